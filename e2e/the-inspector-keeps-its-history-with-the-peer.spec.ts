/**
 * `syncmesh inspect` serves each run on a new port, a new origin whose localStorage is empty: the
 * page keeps the console's history and the theme with the peer, so the next run on the same store
 * finds them.
 */
import { withContract } from './contract.ts';
import { consoleEditor, runInConsole } from './documents.ts';
import { allowConsoleErrors, expect, openInspector, test } from './fixtures.ts';
import { createMesh } from './processes.ts';

const mesh = createMesh('prefs');
test.afterAll(() => mesh.stop());

test('the console’s history and the theme come back when the peer is inspected again on a new port', async ({ page, openWindow }) => {
  const first = await mesh.startPeer('register');
  await openInspector(page, first, 'Documents');
  await runInConsole(page, 'SELECT * FROM orders WHERE total > :min', { min: 5 });
  await expect(page.getByText('No documents match')).toBeVisible();
  await page.getByRole('button', { name: /^Theme: .*Switch to Light/ }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  // Saved about a second after the change: the peer holds both.
  await expect
    .poll(() => withContract(first, async (client) => JSON.stringify((await client.call('prefs:get', {})).prefs)), { timeout: 10_000 })
    .toContain('"theme":"light"');
  expect(await withContract(first, async (client) => JSON.stringify((await client.call('prefs:get', {})).prefs))).toContain('WHERE total > :min');
  // The first page dials its stopped peer again and again: Chromium logs each refusal.
  allowConsoleErrors(page, /WebSocket connection to .* failed/);
  await first.stop();

  const second = await mesh.startPeer('register');
  expect(new URL(second.origin).port).not.toBe(new URL(first.origin).port);
  const again = await openWindow();
  await openInspector(again, second, 'Documents');
  await expect(again.locator('html')).toHaveAttribute('data-theme', 'light');
  await consoleEditor(again).focus();
  await again.getByRole('button', { name: /^Previous statement/ }).click();
  await expect(consoleEditor(again)).toHaveText('SELECT * FROM orders WHERE total > :min');
});
