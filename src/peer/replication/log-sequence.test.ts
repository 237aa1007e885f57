/**
 * The spec's log sequence of a local write (section 3.5), word for word and in order, on a
 * small peer with a session to the Big Peer.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createMesh, type Mesh } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

it('logs commit, database change, subscriptions and permissions, the sending update, and its delivery, in order', async () => {
  const big = mesh.peer('big', { bigPeer: true });
  const small = mesh.peer('small');
  small.store.registerSubscription('SELECT * FROM orders WHERE isDeleted = false');
  await mesh.connect(small, big);
  await mesh.settle();
  const from = small.logs.length;
  const { commitId } = await small.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'o1', isDeleted: false } });
  await mesh.settle();
  const lines = small.logs
    .slice(from)
    .filter((e) => e.component === 'txn' || e.component === 'replication')
    .map((e) => `[${e.level}] ${e.message}`);
  const pkA = small.peerKey;
  const pkB = big.peerKey;
  const everything = '{"read":{"everything":true,"queries_by_collection":{}},"write":{"everything":true,"queries_by_collection":{}}}';
  expect(lines.slice(0, 6)).toEqual([
    `[DEBUG] Write txn committed; txn_id = ${commitId}; originator = User`,
    `[DEBUG] Notifying a database change; transaction = ${commitId}`,
    `[DEBUG] Active subscriptions; peer = local; subscriptions = {"everything":false,"queries":{"__presence":[{"expr":"true","order_by":[]}],"orders":[{"expr":"(isDeleted = false)","order_by":[]}]}}`,
    `[DEBUG] Permissions; peer = local; permissions = ${everything}`,
    `[DEBUG] Active subscriptions; peer = ${pkB}; subscriptions = {"everything":true,"queries":{}}`,
    `[DEBUG] Permissions; peer = ${pkB}; permissions = ${everything}`,
  ]);
  expect(lines[6]).toBe(`[DEBUG] Creating a sending update, sending_update_path = ${pkA}/${pkB}/sending_update`);
  expect(lines[7]).toMatch(
    new RegExp(`^\\[DEBUG\\] update creation done; since_index = ${commitId}; new_update_created = true; num_docs = 1; elapsed = \\d+\\.\\d{3}ms$`),
  );
  expect(lines.slice(8)).toEqual(['[DEBUG] No next update chunk to send - setting is_ready to false', '[DEBUG] No message to send']);
});

it('prints the subscriptions and permissions again when an update from a peer wakes the engine', async () => {
  const big = mesh.peer('big', { bigPeer: true });
  const small = mesh.peer('small');
  await mesh.connect(small, big);
  await mesh.settle();
  const from = big.logs.length;
  await small.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'o1' } });
  await mesh.settle();
  const lines = big.logs.slice(from).map((e) => e.message);
  const committed = lines.findIndex((l) => /^Write txn committed; txn_id = \d+; originator = Replication$/.test(l));
  expect(committed).toBeGreaterThanOrEqual(0);
  expect(lines.slice(committed + 1, committed + 6)).toEqual([
    expect.stringMatching(/^Notifying a database change; transaction = \d+$/),
    'Active subscriptions; peer = local; subscriptions = {"everything":true,"queries":{}}',
    'Permissions; peer = local; permissions = {"read":{"everything":true,"queries_by_collection":{}},"write":{"everything":true,"queries_by_collection":{}}}',
    expect.stringMatching(new RegExp(`^Active subscriptions; peer = ${small.peerKey}; subscriptions = \\{"everything":false,"queries":\\{"__presence":`)),
    expect.stringMatching(new RegExp(`^Permissions; peer = ${small.peerKey}; permissions = `)),
  ]);
});
