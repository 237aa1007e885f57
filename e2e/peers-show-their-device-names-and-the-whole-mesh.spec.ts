/**
 * Peers have names (issue 21, part 2): a Big Peer and two `syncmesh inspect` peers, each given a
 * device name, sync through the Big Peer only. Peer A's Mesh shows its own name, the Big Peer's,
 * and peer B (no session with A) as reached via the Big Peer, from the presence documents the
 * Big Peer relays; its Transactions panel names the remote a replication came from; its merge
 * metadata names the writer.
 */
import { resultRows, runInConsole } from './documents.ts';
import { withContract } from './contract.ts';
import { expect, openInspector, REPLICATION_TIMEOUT_MS, test } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('names');
let peerA: InspectedPeer;
let peerB: InspectedPeer;
let keyB: string;

test.beforeAll(async () => {
  const bigPeer = await mesh.startBigPeer({ deviceName: 'cloud-eu-1' });
  [peerA, peerB] = await Promise.all([
    mesh.startPeer('a', { bigPeer, subscribe: ['SELECT * FROM orders'], deviceName: 'till-1' }),
    mesh.startPeer('b', { bigPeer, subscribe: ['SELECT * FROM orders'], deviceName: 'till-2' }),
  ]);
  for (const peer of [peerA, peerB]) {
    await expect.poll(() => /phy started; remote = /.test(peer.stderr()), { timeout: REPLICATION_TIMEOUT_MS }).toBe(true);
  }
  keyB = /Sync started; peer_key = ([A-Za-z0-9_-]+)/.exec(peerB.stderr())?.[1] as string;
  await withContract(peerB, (client) => client.query('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'order-b', total: 5 } }));
});
test.afterAll(() => mesh.stop());

test('the Mesh names this peer and the Big Peer, and shows the peer behind the Big Peer by name', async ({ page }) => {
  await openInspector(page, peerA, 'Mesh');
  const peers = page.getByRole('table', { name: 'Peers' });
  await expect(peers.getByTestId('peer-name').filter({ hasText: 'till-1' })).toBeVisible({ timeout: REPLICATION_TIMEOUT_MS });
  await expect(peers.getByTestId('peer-name').filter({ hasText: 'cloud-eu-1' })).toBeVisible({ timeout: REPLICATION_TIMEOUT_MS });
  const behind = peers.getByTestId('mesh-indirect-peer');
  await expect(behind).toHaveCount(1, { timeout: REPLICATION_TIMEOUT_MS });
  await expect(behind).toHaveAttribute('data-peer', keyB);
  await expect(behind).toContainText('till-2');
  await expect(behind).toContainText('via Big Peer', { timeout: REPLICATION_TIMEOUT_MS });
  await expect(behind).toContainText('online');
  await expect(behind).toContainText(/last seen/);
  // The key stays one click away: its copy button.
  await expect(behind.getByRole('button', { name: 'Copy the peer key' })).toBeVisible();
  // The graph draws it beside the Big Peer, dashed, by name.
  const satellite = page.getByTestId('mesh-indirect-node');
  await expect(satellite).toHaveAttribute('data-peer', keyB);
  await expect(satellite).toHaveAttribute('aria-label', /^till-2 \(.*\), via Big Peer: online, last seen/);
  // The graph labels the named nodes by name.
  await expect(page.getByTestId('mesh-node-name').filter({ hasText: 'till-1' })).toBeVisible();
  await expect(page.getByTestId('mesh-node-name').filter({ hasText: 'cloud-eu-1' })).toBeVisible();
});

test('the Transactions panel names the remote a replication came from', async ({ page }) => {
  await openInspector(page, peerA, 'Transactions');
  const commits = page.getByRole('table', { name: 'Commits' });
  await expect(commits.getByRole('row').filter({ hasText: 'replication from cloud-eu-1' }).first()).toBeVisible({ timeout: REPLICATION_TIMEOUT_MS });
  // Its own presence document is an Internal transaction.
  await expect(commits.getByRole('row').filter({ hasText: 'presence' }).first()).toBeVisible();
});

test('merge metadata names the peer that wrote a field', async ({ page }) => {
  await openInspector(page, peerA, 'Documents');
  await runInConsole(page, 'SELECT * FROM orders WHERE _id = :id', { id: 'order-b' });
  await expect(resultRows(page)).toHaveCount(1, { timeout: REPLICATION_TIMEOUT_MS });
  await resultRows(page).first().click();
  const detail = page.getByRole('complementary', { name: 'Document' });
  await detail.getByRole('tab', { name: /Merge metadata/ }).click();
  const fields = detail.getByRole('table', { name: 'Fields and who wrote them' });
  await expect(fields.getByRole('row', { name: /^total/ }).getByTestId('writer-name')).toHaveText('till-2');
});
