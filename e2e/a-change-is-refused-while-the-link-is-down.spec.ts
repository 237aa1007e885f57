/**
 * The inspector page loses its peer (the `syncmesh inspect` process stops): a mutation run then is
 * refused at once and said so, never sent later; a SELECT waits for the link, counted in the
 * banner, and Cancel answers it unsent.
 */
import { runInConsole } from './documents.ts';
import { allowConsoleErrors, expect, openInspector, test } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('link-down');
let peer: InspectedPeer;

test.beforeAll(async () => {
  peer = await mesh.startPeer('a');
});
test.afterAll(() => mesh.stop());

test('a mutation made while the link is down is refused and said so; a read waits and can be cancelled', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await runInConsole(page, 'SELECT * FROM orders');
  await expect(page.getByText('No documents match')).toBeVisible();

  // The page dials its peer again and again while it is gone: Chromium logs each refusal.
  allowConsoleErrors(page, /WebSocket connection to .* failed/);
  await peer.stop();
  const banner = page.locator('.link-banner');
  await expect(banner).toBeVisible();

  await runInConsole(page, "INSERT INTO orders DOCUMENTS ({ _id: 'late' })");
  await expect(page.getByText('The statement failed')).toBeVisible();
  await expect(page.locator('#panel-main')).toContainText('this was not sent, and will not be sent later');

  await runInConsole(page, 'SELECT * FROM orders');
  await expect(banner).toContainText('1 read waits for the link');
  await banner.getByRole('button', { name: 'Cancel' }).click();
  await expect(banner).not.toContainText('waits for the link');
  await expect(page.locator('#panel-main')).toContainText('Cancelled while waiting for the link to the peer; it was not sent.');
});
