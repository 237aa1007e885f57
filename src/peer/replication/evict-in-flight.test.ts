/**
 * Found by the mesh simulator (docs/simulator.md; seed 2 at step 1523 of an earlier workload of
 * `npm run simulate -- --seed 2 --steps 3000`): an EVICT must not be undone by an update that
 * was on its way when it ran. Here the update brings a document the peer asked for by name
 * (`want`, after a notice: it held the document, which had left its subscription); the peer
 * evicts it before the update arrives. docs/replication.md: "An update made for subscriptions
 * this peer has since changed (it was in flight during a cancel, EVICT, re-register cycle) brings
 * only the documents this peer still holds or its current subscriptions match, so it cannot undo
 * the EVICT."
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { holdable, turns } from './holdable-connection.test-helpers.ts';
import { memoryConnectionPair } from './memory-transport.ts';
import { createMesh, ids, type Mesh } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

// Session#merge decided which documents of an update the peer still wants
// (`#stillWanted`, or none when the subscription version matches) before mergeChunk waited for the
// write slot; an EVICT that committed in between was not seen. mergeChunk now checks inside the write.
it('keeps a document evicted while the update that brings it (asked for by name) was in flight', async () => {
  const big = mesh.peer('big', { bigPeer: true });
  const small = mesh.peer('small');
  small.store.registerSubscription('SELECT * FROM orders WHERE v >= 5');
  const { dialer, acceptor } = memoryConnectionPair();
  const link = holdable(dialer);
  await Promise.all([small.replicator.dial(link.connection), big.replicator.accept(acceptor)]);
  await big.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'o1', v: 7 } });
  await mesh.settle();
  expect(await ids(small, 'orders')).toEqual(['o1']);

  // o1 leaves the subscription: the Big Peer sends a notice, the small peer (holding it) asks for it.
  link.hold();
  await big.store.execute('UPDATE orders SET v = 3 WHERE _id = :id', { id: 'o1' });
  await turns(20);
  expect(link.releaseOne()).toBe(true); // the notice
  await turns(20); // the want goes out, the Big Peer answers with o1 (held)
  // The EVICT is under way (it holds the write slot) when the update arrives: the update is
  // checked against what the peer holds before the EVICT commits, and merged after it.
  const evicting = small.store.execute('EVICT FROM orders WHERE true');
  link.releaseAll();
  await evicting;
  await mesh.settle();
  expect(await ids(small, 'orders')).toEqual([]);
});
