/**
 * The inspector served read-only (`syncmesh inspect --read-only`, as `serveInspector(sync, {
 * readOnly: true })` serves an app's own peer in production): the page says so, reads work, and
 * a change made through it is refused by the peer and said so, with nothing written.
 */
import { withContract } from './contract.ts';
import { resultRows, runInConsole } from './documents.ts';
import { expect, openInspector, test } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('read-only');
let peer: InspectedPeer;

test.beforeAll(async () => {
  // The store gets its order from a writable run first; the read-only run opens the same store.
  const writable = await mesh.startPeer('register');
  await withContract(writable, (client) => client.query('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'order-1', total: 12 } }));
  await writable.stop();
  peer = await mesh.startPeer('register', { readOnly: true });
});
test.afterAll(() => mesh.stop());

test('a read-only inspector says so, shows the documents, and a change through it is refused with nothing written', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await expect(page.getByRole('contentinfo', { name: 'Status' })).toContainText('Read-only');

  await runInConsole(page, 'SELECT * FROM orders');
  await expect(resultRows(page)).toHaveCount(1);

  await runInConsole(page, "DELETE FROM orders WHERE _id = 'order-1'");
  await expect(page.getByText('The statement failed')).toBeVisible();
  await expect(page.locator('#panel-main')).toContainText('This inspector is read-only');

  await runInConsole(page, 'SELECT * FROM orders');
  await expect(resultRows(page)).toHaveCount(1);
  expect(await withContract(peer, async (client) => (await client.query('SELECT * FROM orders')).total)).toBe(1);
});
