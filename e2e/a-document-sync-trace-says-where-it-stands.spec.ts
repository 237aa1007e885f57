/**
 * The document sync trace against real processes: a register's own order is acknowledged by the
 * Big Peer, an order it received came from the Big Peer, and while the Big Peer is down the trace
 * says the session is down and since when.
 */
import { withContract } from './contract.ts';
import { resultRows, runInConsole } from './documents.ts';
import { expect, openInspector, REPLICATION_TIMEOUT_MS, test } from './fixtures.ts';
import { createMesh, type BigPeerProcess, type InspectedPeer } from './processes.ts';

const mesh = createMesh('trace');
let bigPeer: BigPeerProcess;
let register: InspectedPeer;
let other: InspectedPeer;

test.beforeAll(async () => {
  bigPeer = await mesh.startBigPeer();
  [register, other] = await Promise.all([
    mesh.startPeer('register', { bigPeer, subscribe: ['SELECT * FROM orders'] }),
    mesh.startPeer('other', { bigPeer, subscribe: ['SELECT * FROM orders'] }),
  ]);
  await withContract(register, (client) => client.query('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'order-mine', total: 12 } }));
  await withContract(other, (client) => client.query('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'order-theirs', total: 30 } }));
});
test.afterAll(() => mesh.stop());

test('the sync trace says the Big Peer acknowledged the register’s order, that a received one came from it, and when its session is down', async ({ page }) => {
  await openInspector(page, register, 'Documents');
  await runInConsole(page, 'SELECT * FROM orders ORDER BY _id');
  await expect(resultRows(page)).toHaveCount(2, { timeout: REPLICATION_TIMEOUT_MS });
  await resultRows(page).filter({ hasText: 'order-mine' }).click();
  const detail = page.getByRole('complementary', { name: 'Document' });
  await detail.getByRole('tab', { name: 'Sync trace' }).click();
  const table = detail.getByRole('table', { name: 'Delivery to each remote peer' });
  await expect(async () => {
    await detail.getByRole('button', { name: 'Refresh' }).click();
    await expect(table.getByRole('row', { name: /Big Peer/ })).toContainText('acknowledged', { timeout: 1000 });
  }).toPass({ timeout: REPLICATION_TIMEOUT_MS });
  await expect(table.getByRole('row', { name: /Big Peer/ })).toContainText('The remote acknowledged this version (under its subscription to everything).');

  await resultRows(page).filter({ hasText: 'order-theirs' }).click();
  await detail.getByRole('tab', { name: 'Sync trace' }).click();
  await expect(table.getByRole('row', { name: /Big Peer/ })).toContainText('came from it');

  bigPeer = await mesh.restartBigPeer(bigPeer, async () => {
    await expect(async () => {
      await detail.getByRole('button', { name: 'Refresh' }).click();
      await expect(table.getByRole('row', { name: /Big Peer/ })).toContainText('session down', { timeout: 1000 });
    }).toPass({ timeout: REPLICATION_TIMEOUT_MS });
    await expect(table.getByRole('row', { name: /Big Peer/ })).toContainText(/No session with it since/);
  });
});
