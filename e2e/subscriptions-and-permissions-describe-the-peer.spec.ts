/**
 * The Subscriptions panel shows this peer's `orders` subscription (from `--subscribe`) and the Big
 * Peer's `everything`, with how many local documents each matches, and registers and cancels a
 * subscription; the Permissions panel shows every peer's rules and a document's verdicts.
 */
import { withContract } from './contract.ts';
import { resultRows, runInConsole } from './documents.ts';
import { expect, openInspector, REPLICATION_TIMEOUT_MS, test } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('subscriptions');
let peer: InspectedPeer;
let bigPeerKey: string;

test.beforeAll(async () => {
  const bigPeer = await mesh.startBigPeer();
  peer = await mesh.startPeer('a', { bigPeer, subscribe: ['SELECT * FROM orders'] });
  await expect.poll(() => /phy started; remote = ([A-Za-z0-9_-]+)/.exec(peer.stderr())?.[1], { timeout: REPLICATION_TIMEOUT_MS }).toBeTruthy();
  bigPeerKey = /phy started; remote = ([A-Za-z0-9_-]+)/.exec(peer.stderr())?.[1] as string;
  await withContract(peer, async (client) => {
    for (let i = 1; i <= 4; i++)
      await client.query('INSERT INTO orders DOCUMENTS (:order)', { order: { _id: `order-${i}`, status: i <= 3 ? 'open' : 'shipped', total: i } });
    await client.query('INSERT INTO notes DOCUMENTS (:note)', { note: { _id: 'n1', text: 'not subscribed' } });
  });
});
test.afterAll(() => mesh.stop());

test('the Subscriptions panel shows the local orders subscription and the Big Peer’s everything', async ({ page }) => {
  await openInspector(page, peer, 'Subscriptions');
  const local = page.getByRole('table', { name: 'This peer’s subscriptions' });
  const orders = local.getByRole('row').filter({ hasText: 'orders' }).filter({ hasNotText: 'internal' });
  await expect(orders).toHaveCount(1);
  await expect(orders).toContainText('every document');
  // Matching here: the four orders this peer holds.
  await expect(orders.getByRole('cell').nth(6)).toHaveText('4');
  await expect(orders.getByRole('button', { name: /^Cancel subscription \d+$/ })).toBeVisible();

  const bigPeer = page.getByRole('region', { name: new RegExp(`Big Peer\\s*${bigPeerKey.slice(0, 8)}`) });
  await expect(bigPeer).toBeVisible({ timeout: REPLICATION_TIMEOUT_MS });
  await expect(bigPeer.getByRole('heading')).toContainText('everything');
  await expect(bigPeer).toContainText('everything: all documents of all collections');
  // All six live documents match the Big Peer's everything: the five written here and this
  // peer's own presence document in __presence (the app's peer writes one, docs/replication.md).
  await expect(bigPeer).toContainText('6 local documents match its set');

  // As printed: the spec's shape.
  await bigPeer.getByRole('button', { name: 'As printed' }).click();
  await expect(bigPeer).toContainText(/"everything":\s*true/);
});

test('a subscription registered from the panel shows with its matches, and cancels', async ({ page }) => {
  await openInspector(page, peer, 'Subscriptions');
  await page.getByRole('button', { name: 'Register subscription' }).click();
  const form = page.getByRole('form', { name: 'Register a subscription' });
  await form.getByLabel('Collection').fill('orders');
  await form.getByLabel('WHERE').fill('status = :status');
  await form.getByLabel('Arguments (JSON)').fill('{"status": "open"}');
  await expect(form).toContainText('SELECT * FROM orders WHERE status = :status');
  await form.getByRole('button', { name: 'Register' }).click();

  const local = page.getByRole('table', { name: 'This peer’s subscriptions' });
  const open = local.getByRole('row').filter({ hasText: "(status = 'open')" });
  await expect(open).toHaveCount(1);
  await expect(open.getByRole('cell').nth(6)).toHaveText('3');

  await open.getByRole('button', { name: /^Cancel subscription \d+$/ }).click();
  const dialog = page.getByRole('dialog', { name: /^Cancel subscription #\d+\?$/ });
  await dialog.getByRole('button', { name: 'Cancel subscription' }).click();
  await expect(dialog).toBeHidden();
  await expect(open).toHaveCount(0);
});

test('the Permissions panel shows each peer’s rules and a document’s verdicts', async ({ page }) => {
  await openInspector(page, peer, 'Permissions');
  const bigPeerRules = page.getByRole('region', { name: new RegExp(`Big Peer\\s*${bigPeerKey.slice(0, 8)}`) });
  await expect(bigPeerRules).toBeVisible({ timeout: REPLICATION_TIMEOUT_MS });
  const localRules = page.getByRole('region', { name: /^This peer/ });
  for (const rules of [localRules, bigPeerRules]) {
    await expect(rules.getByRole('group', { name: 'Read rules' })).toContainText('everything');
    await expect(rules.getByRole('group', { name: 'Write rules' })).toContainText('everything');
  }

  const check = page.getByRole('form', { name: 'Check a document’s access' });
  await check.getByLabel('Collection').fill('orders');
  await check.getByLabel('_id').fill('order-2');
  await check.getByRole('button', { name: 'Check access' }).click();
  const verdicts = page.getByRole('table', { name: 'Access by peer' });
  const localRow = verdicts.getByRole('row').filter({ hasText: 'This peer' });
  await expect(localRow).toContainText('may read');
  await expect(localRow).toContainText('may write');
  const bigPeerRow = verdicts.getByRole('row').filter({ hasText: 'Big Peer' });
  await expect(bigPeerRow).toContainText(bigPeerKey.slice(0, 8));
  await expect(bigPeerRow).toContainText('may read');
  await expect(bigPeerRow).toContainText('may write');
  await expect(verdicts.getByText(/may not/)).toHaveCount(0);
});

test('Access on a document in the Documents panel opens its verdicts in Permissions', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await runInConsole(page, 'SELECT * FROM orders WHERE _id = :id', { id: 'order-3' });
  await resultRows(page).first().click();
  await page.getByRole('toolbar', { name: 'Document actions' }).getByRole('button', { name: 'Access' }).click();
  await expect(page.getByRole('tab', { name: 'Permissions' })).toHaveAttribute('aria-selected', 'true');
  const verdicts = page.getByRole('table', { name: 'Access by peer' });
  await expect(verdicts.getByRole('row').filter({ hasText: 'This peer' })).toContainText('may read');
  await expect(page.locator('.access-subject')).toContainText('order-3');
});
