/**
 * The question the inspector exists for, asked where it has its answer: on the Big Peer, which
 * syncs with every register. Two registers log in through the Big Peer's auth webhook (a real
 * HTTP server of this test on 127.0.0.1): register A may read only store A's orders and subscribes
 * to every order; register B may read everything and subscribes to store B's. The inspector
 * attached to the Big Peer (`syncmesh big-peer --inspect-port 0`) traces each order: one register
 * has it, the other not, and the row of the other says why (no subscription, no permission, its
 * session down since when).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withContract } from './contract.ts';
import { resultRows, runInConsole } from './documents.ts';
import { expect, openInspector, REPLICATION_TIMEOUT_MS, test } from './fixtures.ts';
import { createMesh, type BigPeerProcess, type InspectedPeer } from './processes.ts';
import type { Page } from '@playwright/test';

const mesh = createMesh('why-not');
let webhook: Server;
let bigPeer: BigPeerProcess;
let registerA: InspectedPeer;
let registerB: InspectedPeer;
let keyA: string;
let keyB: string;

/** The app's auth webhook: each register's token gets its own read rules. */
const PERMISSIONS: Readonly<Record<string, unknown>> = {
  'register-a': { read: { everything: false, queriesByCollection: { orders: ["store = 'A'"] } }, write: { everything: true } },
  'register-b': { read: { everything: true }, write: { everything: true } },
};

function startWebhook(): Promise<string> {
  webhook = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const { token } = JSON.parse(body) as { token: string };
      const permissions = PERMISSIONS[token];
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(permissions === undefined ? { authenticated: false } : { authenticated: true, userID: token, permissions }));
    });
  });
  return new Promise((resolve) => webhook.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(webhook.address() as AddressInfo).port}/auth`)));
}

test.beforeAll(async () => {
  const url = await startWebhook();
  bigPeer = await mesh.startBigPeer({ inspect: true, config: { authProviders: { pos: { url } } } });
  [registerA, registerB] = await Promise.all([
    mesh.startPeer('register-a', { bigPeer, login: { provider: 'pos', token: 'register-a' }, subscribe: ['SELECT * FROM orders'] }),
    mesh.startPeer('register-b', { bigPeer, login: { provider: 'pos', token: 'register-b' }, subscribe: ["SELECT * FROM orders WHERE store = 'B'"] }),
  ]);
  keyA = await withContract(registerA, async (client) => {
    await client.query('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'order-a', store: 'A', total: 12 } });
    return (await client.call('overview:get', {})).peerKey;
  });
  keyB = await withContract(registerB, async (client) => {
    await client.query('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'order-b', store: 'B', total: 30 } });
    return (await client.call('overview:get', {})).peerKey;
  });
});
test.afterAll(async () => {
  await mesh.stop();
  await new Promise((resolve) => webhook?.close(resolve));
});

/** The trace table's row of the remote whose key starts so. */
function rowOf(page: Page, peerKey: string) {
  return page
    .getByRole('complementary', { name: 'Document' })
    .getByRole('table', { name: 'Delivery to each remote peer' })
    .getByRole('row')
    .filter({ has: page.locator(`[title="${peerKey}"]`) });
}

async function traceOrder(page: Page, id: string): Promise<void> {
  await resultRows(page).filter({ hasText: id }).click();
  await page.getByRole('complementary', { name: 'Document' }).getByRole('tab', { name: 'Sync trace' }).click();
}

/** Refreshes the trace until the remote's row says `text` (replication takes its time). */
async function untilRowSays(page: Page, peerKey: string, text: string | RegExp): Promise<void> {
  const detail = page.getByRole('complementary', { name: 'Document' });
  await expect(async () => {
    await detail.getByRole('button', { name: 'Refresh' }).click();
    await expect(rowOf(page, peerKey)).toContainText(text, { timeout: 1000 });
  }).toPass({ timeout: REPLICATION_TIMEOUT_MS });
}

test('the Big Peer’s trace says one register has the order and why the other has not: no subscription, no permission, its session down', async ({ page }) => {
  await openInspector(page, { inspectorUrl: bigPeer.inspectorUrl as string }, 'Documents');
  await expect(async () => {
    await runInConsole(page, 'SELECT * FROM orders ORDER BY _id');
    await expect(resultRows(page)).toHaveCount(2, { timeout: 1000 });
  }).toPass({ timeout: REPLICATION_TIMEOUT_MS });

  // Store A's order came from register A; register B subscribes to store B's orders only.
  await traceOrder(page, 'order-a');
  await untilRowSays(page, keyA, 'came from');
  await untilRowSays(page, keyB, 'not subscribed');
  await expect(rowOf(page, keyB)).toContainText('No subscription of the remote matches this document, so it is never sent there.');

  // Store B's order: register A subscribes to every order but may read store A's only: the rule that decides is named.
  await traceOrder(page, 'order-b');
  await untilRowSays(page, keyB, 'came from');
  await untilRowSays(page, keyA, 'not permitted');
  await expect(rowOf(page, keyA)).toContainText("The remote may not read it: its read rules for the collection are “store = 'A'”.");

  // Register B goes away: the order it would get is held back because its session is down, since when.
  await registerB.stop();
  await traceOrder(page, 'order-a');
  await untilRowSays(page, keyB, 'session down');
  await expect(rowOf(page, keyB)).toContainText(/No session with it since \d/);
});

test('Alt+G goes to an order by its _id, on its sync trace', async ({ page }) => {
  await openInspector(page, { inspectorUrl: bigPeer.inspectorUrl as string }, 'Overview');
  await page.keyboard.press('Alt+g');
  const dialog = page.getByRole('dialog', { name: 'Go to document' });
  await dialog.getByLabel('Collection').fill('orders');
  await dialog.getByLabel('_id').fill('order-a');
  await dialog.getByRole('button', { name: 'Go' }).click();
  await expect(page.getByRole('tab', { name: 'Documents', exact: true })).toHaveAttribute('aria-selected', 'true');
  const detail = page.getByRole('complementary', { name: 'Document' });
  await expect(detail.getByRole('tab', { name: 'Sync trace' })).toHaveAttribute('aria-selected', 'true');
  await expect(rowOf(page, keyA)).toContainText('came from');
});
