/**
 * "Connect to a running peer", as the desktop app's window shows it. Electron cannot run here,
 * so the page gets a stand-in of the preload's `window.syncmesh.peers` (the one part that is
 * Electron's): it keeps the remembered list in the page and opens a URL with `window.open`, where
 * the app's main process opens a window of its own (src/main/remote-peers.ts, unit-tested with
 * real files). Everything else is real: the register's inspector served by `syncmesh inspect`, and
 * the back office's, a second process whose URL is pasted into the dialog.
 */
import { expect, openInspector, test } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';
import { withContract } from './contract.ts';

const mesh = createMesh('connect-peer');
let register: InspectedPeer;
let backOffice: InspectedPeer;
let backOfficeKey: string;

test.beforeAll(async () => {
  [register, backOffice] = await Promise.all([mesh.startPeer('register'), mesh.startPeer('back-office')]);
  backOfficeKey = await withContract(backOffice, async (client) => (await client.call('overview:get', {})).peerKey);
});
test.afterAll(() => mesh.stop());

/** The preload's `peers`, as the main process answers it, minus the window (window.open stands in). */
function standInPeers(): void {
  const remembered: { url: string; label: string; lastOpenedAt: number }[] = [];
  Object.defineProperty(window, 'syncmesh', {
    value: {
      versions: { app: 'test', electron: 'stand-in', chrome: 'stand-in', node: 'stand-in' },
      peers: {
        list: async () => [...remembered],
        open: async (url: string, label?: string) => {
          const normal = url.trim().replace(/#.*$/, '').replace(/\/?$/, '/');
          const entry = { url: normal, label: label ?? new URL(normal).host, lastOpenedAt: Date.now() };
          const at = remembered.findIndex((e) => e.url === normal);
          if (at !== -1) remembered.splice(at, 1);
          remembered.unshift(entry);
          window.open(normal, '_blank');
          return { ok: true, value: entry };
        },
        forget: async (url: string) => {
          const at = remembered.findIndex((e) => e.url === url);
          if (at !== -1) remembered.splice(at, 1);
        },
      },
    },
  });
}

test('the desktop window opens another peer’s inspector by the URL it printed, remembers it and forgets it', async ({ page, context }) => {
  await page.addInitScript(standInPeers);
  await openInspector(page, register);
  await page.getByRole('button', { name: 'Connect to a running peer' }).click();
  const dialog = page.getByRole('dialog', { name: 'Connect to a running peer' });
  await expect(dialog.getByText('None yet')).toBeVisible();

  // Checked as it is typed, with the main process's rule.
  const url = dialog.getByLabel('Inspector URL');
  await url.fill(backOffice.inspectorUrl.replace('127.0.0.1', 'localhost'));
  await expect(dialog.getByText(/must be an IP address such as 127\.0\.0\.1/)).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Connect' })).toBeDisabled();

  await url.fill(`${backOffice.inspectorUrl}#/mesh`);
  await dialog.getByLabel('Name (optional)').fill('Back office');
  const opened = context.waitForEvent('page');
  await dialog.getByRole('button', { name: 'Connect' }).click();
  const other = await opened;
  await expect(other.getByRole('contentinfo', { name: 'Status' }).getByText('Linked to peer')).toBeVisible();
  await expect(other.getByRole('contentinfo', { name: 'Status' }).locator(`[title="${backOfficeKey}"]`)).toBeVisible();
  await expect(dialog.getByRole('status')).toHaveText('Opened Back office in a window of its own.');

  const remembered = dialog.getByRole('table', { name: 'Remembered peers' });
  await expect(remembered.getByRole('row', { name: /Back office/ })).toContainText(new URL(backOffice.inspectorUrl).host);
  await remembered.getByRole('button', { name: 'Forget Back office' }).click();
  await expect(dialog.getByText('None yet')).toBeVisible();
});

test('in a browser, where no other window can be opened, the inspector offers no such button', async ({ page }) => {
  await openInspector(page, register);
  await expect(page.getByRole('button', { name: 'Connect to a running peer' })).toHaveCount(0);
});
