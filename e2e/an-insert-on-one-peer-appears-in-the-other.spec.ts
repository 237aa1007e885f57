/**
 * Two headless peers syncing `orders` through one Big Peer, each with its inspector open: a
 * document inserted through peer A's inspector appears in peer B's, and a document changed on
 * both shows both writers in its merge metadata.
 */
import type { Page } from '@playwright/test';
import { resultRows, resultsGrid, runInConsole, typeInto } from './documents.ts';
import { expect, openInspector, REPLICATION_TIMEOUT_MS, test } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('replicate');
let peerA: InspectedPeer;
let peerB: InspectedPeer;
let keyA: string;
let keyB: string;

/** The peer's own key, from its log line `Sync started; peer_key = …`. */
async function peerKeyOf(peer: InspectedPeer): Promise<string> {
  await expect
    .poll(() => /phy started; remote = /.test(peer.stderr()), { timeout: REPLICATION_TIMEOUT_MS, message: `${peer.name} connects to the Big Peer` })
    .toBe(true);
  return /Sync started; peer_key = ([A-Za-z0-9_-]+)/.exec(peer.stderr())?.[1] as string;
}

test.beforeAll(async () => {
  const bigPeer = await mesh.startBigPeer();
  [peerA, peerB] = await Promise.all([
    mesh.startPeer('a', { bigPeer, subscribe: ['SELECT * FROM orders'] }),
    mesh.startPeer('b', { bigPeer, subscribe: ['SELECT * FROM orders'] }),
  ]);
  [keyA, keyB] = await Promise.all([peerKeyOf(peerA), peerKeyOf(peerB)]);
});
test.afterAll(() => mesh.stop());

/** Inserts `document` into `orders` with the Documents panel's Insert dialog. */
async function insertWithDialog(page: Page, document: Record<string, unknown>): Promise<void> {
  await runInConsole(page, 'SELECT * FROM orders');
  await page.getByRole('toolbar', { name: 'Results' }).getByRole('button', { name: 'Insert document' }).click();
  const dialog = page.getByRole('dialog', { name: 'Insert a document into orders' });
  await expect(dialog).toBeVisible();
  // The dialog's editor may still be mounting when it shows: type until the text is there.
  const editor = dialog.getByRole('textbox', { name: 'Document (JSON)' });
  const text = JSON.stringify(document, null, 2);
  const squeezed = (t: string | null): string => (t ?? '').replace(/\s+/g, '');
  await expect(async () => {
    await typeInto(editor, text);
    expect(squeezed(await editor.textContent())).toBe(squeezed(text));
  }).toPass({ timeout: 10_000 });
  await expect(dialog.getByRole('button', { name: /^Insert\b/ })).toBeEnabled();
  await dialog.getByRole('button', { name: /^Insert\b/ }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('status').filter({ hasText: 'Insert document' })).toContainText('1 document changed');
}

test('a document inserted through peer A’s inspector appears in peer B’s Documents panel', async ({ page, openWindow }) => {
  const pageB = await openWindow();
  await openInspector(pageB, peerB, 'Documents');
  // B watches for the order before it exists; its result refreshes live as replication commits.
  await runInConsole(pageB, 'SELECT * FROM orders WHERE customer = :customer', { customer: 'Ada Lovelace' });
  await expect(pageB.getByText('No documents match')).toBeVisible();

  await openInspector(page, peerA, 'Documents');
  await insertWithDialog(page, { _id: 'order-from-a', customer: 'Ada Lovelace', total: 42.5, items: [{ sku: 'KB-1', qty: 2 }] });

  await expect(resultRows(pageB)).toHaveCount(1, { timeout: REPLICATION_TIMEOUT_MS });
  await expect(resultRows(pageB).first()).toContainText('order-from-a');
  await expect(resultRows(pageB).first()).toContainText('42.5');

  // B's merge metadata says A wrote it.
  await resultRows(pageB).first().click();
  const detail = pageB.getByRole('complementary', { name: 'Document' });
  await detail.getByRole('tab', { name: /Merge metadata/ }).click();
  const fields = detail.getByRole('table', { name: 'Fields and who wrote them' });
  await expect(fields.getByRole('row', { name: /customer/ })).toContainText(keyA.slice(0, 8));
  await expect(fields.getByRole('row', { name: /customer/ })).toContainText('Ada Lovelace');
});

test('a document changed on both peers shows both writers in its merge metadata', async ({ page, openWindow }) => {
  await openInspector(page, peerA, 'Documents');
  await runInConsole(page, 'INSERT INTO orders DOCUMENTS (:order)', { order: { _id: 'order-shared', status: 'open', total: 10, note: 'from A' } });
  await expect(page.getByRole('status').filter({ hasText: 'document changed' })).toContainText('1 document changed');

  const pageB = await openWindow();
  await openInspector(pageB, peerB, 'Documents');
  await runInConsole(pageB, 'SELECT * FROM orders WHERE _id = :id', { id: 'order-shared' });
  await expect(resultRows(pageB)).toHaveCount(1, { timeout: REPLICATION_TIMEOUT_MS });
  await runInConsole(pageB, "UPDATE orders SET status = 'shipped', total = 12 WHERE _id = :id", { id: 'order-shared' });
  await expect(pageB.getByRole('status').filter({ hasText: 'document changed' })).toContainText('1 document changed');

  // A sees B's change, then its metadata: status and total by B, note by A itself.
  await runInConsole(page, 'SELECT * FROM orders WHERE _id = :id AND status = :status', { id: 'order-shared', status: 'shipped' });
  await expect(resultRows(page)).toHaveCount(1, { timeout: REPLICATION_TIMEOUT_MS });
  await resultRows(page).first().click();
  const detail = page.getByRole('complementary', { name: 'Document' });
  await detail.getByRole('tab', { name: /Merge metadata/ }).click();
  const fields = detail.getByRole('table', { name: 'Fields and who wrote them' });
  await expect(fields.getByRole('row', { name: /^status/ })).toContainText(keyB.slice(0, 8));
  await expect(fields.getByRole('row', { name: /^total/ })).toContainText(keyB.slice(0, 8));
  await expect(fields.getByRole('row', { name: /^note/ })).toContainText(keyA.slice(0, 8));
  await expect(fields.getByRole('row', { name: /^note/ })).toContainText('this peer');
  void resultsGrid;
});
