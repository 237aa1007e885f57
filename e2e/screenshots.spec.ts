/**
 * The committed screenshots of every panel (`docs/screenshots/<panel>.png`, 1440×900): a mesh
 * filled with realistic data by real processes, photographed through peer A's inspector. It runs
 * only with SYNCMESH_SCREENSHOTS=1 (`npm run screenshots`; playwright.config.ts leaves it out
 * otherwise), so that `npm test` does not rewrite committed files.
 *
 * The scene: a Big Peer; peer A (DEBUG logs) and peer B, both syncing orders, customers and
 * products; about 300 orders written on both, a few deleted; one order edited on both peers
 * (merge metadata with two writers, a counter with two tallies); the Big Peer restarted (a closed
 * connection beside the elected one); a blocked wait behind a held write slot, then a
 * writer waiting behind a second hold when the Transactions panel is photographed. Peer A evicts
 * orders by a local 72-hour TTL (its window half a day away, so that nothing runs on its own):
 * last, the evict/re-sync scenario runs from the Eviction panel, then a dry run and a run of the
 * orders strategy.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { ContractClient, withContract } from './contract.ts';
import { openCollection, resultRows, runInConsole } from './documents.ts';
import { expect, openInspector, REPLICATION_TIMEOUT_MS, section, showPanel, test, valueOf, type PanelName } from './fixtures.ts';
import { createMesh, type BigPeerProcess, type InspectedPeer } from './processes.ts';

const OUT = resolve(import.meta.dirname, '..', 'docs', 'screenshots');

const mesh = createMesh('screenshots');
let bigPeer: BigPeerProcess;
let peerA: InspectedPeer;
let peerB: InspectedPeer;

/** A small deterministic generator, so that every run draws the same orders. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Margaret',
  'Ken',
  'Frances',
  'John',
  'Radia',
  'Tim',
  'Hedy',
  'Linus',
  'Sophie',
  'Niklaus',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Hamilton',
  'Thompson',
  'Allen',
  'Backus',
  'Perlman',
  'Berners-Lee',
  'Lamarr',
  'Torvalds',
  'Wilson',
  'Wirth',
];
const CITIES = ['Lisbon', 'Oslo', 'Kyoto', 'Lima', 'Accra', 'Montréal', 'Tallinn', 'Porto', 'Nairobi', 'Hobart'];
const STATUSES = ['open', 'open', 'paid', 'paid', 'paid', 'shipped', 'shipped', 'delivered', 'cancelled'];
const PRODUCTS = [
  ['KB-101', 'Mechanical keyboard', 89],
  ['MS-220', 'Wireless mouse', 29.5],
  ['MN-270', '27" monitor', 279],
  ['HD-050', 'USB-C hub', 45],
  ['CH-900', 'Desk chair', 349],
  ['LP-014', 'Laptop stand', 39.9],
  ['CB-002', 'Cable pack', 12.5],
  ['HS-310', 'Headset', 74],
  ['WC-080', 'Webcam', 59],
  ['SD-512', 'SSD 512 GB', 64.99],
  ['DK-440', 'Docking station', 189],
  ['LM-010', 'Desk lamp', 34],
] as const;

function customers(): Record<string, unknown>[] {
  const next = random(7);
  return Array.from({ length: 40 }, (_, i) => {
    const first = FIRST[i % FIRST.length] as string;
    const last = LAST[Math.floor(next() * LAST.length)] as string;
    return {
      _id: `cust-${String(i + 1).padStart(3, '0')}`,
      name: `${first} ${last}`,
      email: `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '') + '@example.com',
      city: CITIES[Math.floor(next() * CITIES.length)],
      tier: next() < 0.2 ? 'gold' : next() < 0.5 ? 'silver' : 'standard',
      since: new Date(Date.UTC(2022, Math.floor(next() * 36), 1 + Math.floor(next() * 27))).toISOString().slice(0, 10),
    };
  });
}

/** Orders `from`…`to` (1-based numbers), written by `origin`. */
function orders(from: number, to: number, origin: string): Record<string, unknown>[] {
  const result: Record<string, unknown>[] = [];
  for (let n = from; n <= to; n++) {
    const next = random(1000 + n);
    const lines = 1 + Math.floor(next() * 3);
    const items = Array.from({ length: lines }, () => {
      const [sku, name, price] = PRODUCTS[Math.floor(next() * PRODUCTS.length)] as (typeof PRODUCTS)[number];
      return { sku, name, qty: 1 + Math.floor(next() * 3), price };
    });
    const total = Math.round(items.reduce((sum, item) => sum + item.qty * item.price, 0) * 100) / 100;
    const created = new Date(Date.UTC(2026, 10, 1) + n * 2_700_000 + Math.floor(next() * 600_000));
    result.push({
      _id: `ord-${String(n).padStart(5, '0')}`,
      customer: `cust-${String(1 + Math.floor(next() * 40)).padStart(3, '0')}`,
      status: STATUSES[Math.floor(next() * STATUSES.length)],
      total,
      currency: 'EUR',
      items,
      city: CITIES[Math.floor(next() * CITIES.length)],
      priority: next() < 0.15,
      createdAt: created.toISOString(),
      channel: origin,
    });
  }
  return result;
}

/** Inserts documents in statements of `batch` documents each. */
async function insertAll(client: ContractClient, collection: string, documents: readonly Record<string, unknown>[], batch: number): Promise<void> {
  for (let i = 0; i < documents.length; i += batch) {
    const chunk = documents.slice(i, i + batch);
    const args = Object.fromEntries(chunk.map((doc, j) => [`d${j}`, doc]));
    await client.query(`INSERT INTO ${collection} DOCUMENTS ${chunk.map((_, j) => `(:d${j})`).join(', ')}`, args as Record<string, unknown>);
  }
}

async function count(client: ContractClient, collection: string): Promise<number> {
  const outcome = await client.query(`SELECT COUNT(*) AS n FROM ${collection}`);
  return Number((outcome.rows[0] as { n?: number } | undefined)?.n ?? 0);
}

async function shoot(page: Page, name: string): Promise<void> {
  // Let fonts, layout and a last poll settle; animations stop for the picture.
  await page.evaluate(() => document.fonts.ready);
  await page.mouse.move(0, 899);
  await page.screenshot({ path: join(OUT, `${name}.png`), animations: 'disabled', caret: 'hide' });
}

async function panel(page: Page, name: PanelName): Promise<void> {
  await showPanel(page, name);
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  mkdirSync(OUT, { recursive: true });
  // Device names, so that the panels show names (not the host name of the machine that shoots).
  bigPeer = await mesh.startBigPeer({ deviceName: 'cloud-eu-1' });
  const subscribe = ['SELECT * FROM orders', 'SELECT * FROM customers', 'SELECT * FROM products WHERE active = true'];
  // A window half a day from now: no scheduled run while the scene is set.
  const hour = (new Date().getUTCHours() + 12) % 24;
  const evictWindow = `${String(hour).padStart(2, '0')}:00-${String((hour + 2) % 24).padStart(2, '0')}:00`;
  [peerA, peerB] = await Promise.all([
    mesh.startPeer('a', { bigPeer, subscribe, logLevel: 'DEBUG', evict: ['local:orders:72'], evictWindow, deviceName: 'till-1' }),
    mesh.startPeer('b', { bigPeer, subscribe: subscribe.slice(0, 2), deviceName: 'till-2' }),
  ]);
  for (const peer of [peerA, peerB]) {
    await expect.poll(() => /phy started/.test(peer.stderr()), { timeout: REPLICATION_TIMEOUT_MS, message: `${peer.name} connects` }).toBe(true);
  }
  const a = new ContractClient(peerA);
  const b = new ContractClient(peerB);
  try {
    // Products on A, customers on B; orders on both, in batches of varied sizes.
    await insertAll(
      a,
      'products',
      PRODUCTS.map(([sku, name, price], i) => ({ _id: sku, name, price, active: i !== 7, stock: (i * 37) % 120 })),
      12,
    );
    await insertAll(b, 'customers', customers(), 10);
    await insertAll(a, 'orders', orders(1, 180, 'web'), 15);
    await insertAll(b, 'orders', orders(181, 300, 'store'), 8);
    for (let n = 301; n <= 306; n++) await a.query('INSERT INTO orders DOCUMENTS (:order)', { order: orders(n, n, 'web')[0] as Record<string, unknown> });
    // A few cancelled orders deleted: tombstones.
    const deleted = (await a.query("DELETE FROM orders WHERE status = 'cancelled' AND total < 60")).mutatedDocumentIds.length;
    for (const [client, name] of [
      [a, 'A'],
      [b, 'B'],
    ] as const) {
      await expect.poll(() => count(client, 'orders'), { timeout: REPLICATION_TIMEOUT_MS, message: `${name} holds every order` }).toBe(306 - deleted);
    }
    await expect.poll(() => count(a, 'customers'), { timeout: REPLICATION_TIMEOUT_MS, message: 'A holds every customer' }).toBe(40);

    // One order edited on both peers: status and total by B, the note by A, views counted on both.
    const shared = { ...(orders(307, 307, 'web')[0] as Record<string, unknown>), _id: 'ord-00307', createdAt: '2026-11-22T09:30:00.000Z', note: 'gift wrap' };
    await a.query('INSERT INTO orders DOCUMENTS (:order)', { order: shared });
    await a.query('UPDATE orders APPLY views PN_INCREMENT BY 3 WHERE _id = :id', { id: 'ord-00307' });
    await expect
      .poll(async () => (await b.query('SELECT _id FROM orders WHERE _id = :id', { id: 'ord-00307' })).total, { timeout: REPLICATION_TIMEOUT_MS })
      .toBe(1);
    await b.query("UPDATE orders SET status = 'shipped', total = 412.5, carrier = 'DHL' APPLY views PN_INCREMENT BY 2 WHERE _id = :id", { id: 'ord-00307' });
    await expect
      .poll(async () => (await a.query('SELECT carrier FROM orders WHERE _id = :id', { id: 'ord-00307' })).rows[0]?.['carrier'], {
        timeout: REPLICATION_TIMEOUT_MS,
      })
      .toBe('DHL');
    await a.query("UPDATE orders SET note = 'gift wrap, leave at the door' WHERE _id = :id", { id: 'ord-00307' });
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
test.afterAll(() => mesh.stop());

test('screenshots of every panel, with real data', async ({ page }) => {
  test.setTimeout(240_000);
  await openInspector(page, peerA, 'Overview');

  // The Big Peer restarts, the Mesh panel open: A's connection closes, A redials until it is back.
  await panel(page, 'Mesh');
  const connections = page.getByRole('table', { name: 'Connections' });
  await expect(connections.getByRole('row').filter({ hasText: 'elected' })).toHaveCount(1, { timeout: REPLICATION_TIMEOUT_MS });
  bigPeer = await mesh.restartBigPeer(bigPeer, async () => {
    await expect(connections.getByRole('row').filter({ hasText: /closed|connecting/ })).toHaveCount(1, { timeout: REPLICATION_TIMEOUT_MS });
    await expect(connections).toContainText(/ECONNREFUSED|ended|shutting down/);
    await shoot(page, 'mesh-reconnecting');
  });
  await expect(connections.getByRole('row').filter({ hasText: 'elected' })).toHaveCount(1, { timeout: REPLICATION_TIMEOUT_MS });
  const sync = section(page, 'Sync');

  // A blocked wait: a 12 s hold and a write behind it (its "blocked" line at 10 s, DEBUG).
  await withContract(peerA, async (client) => {
    await client.call('transactions:hold', { ms: 12_000, hint: 'nightly export' });
    await client.query('UPDATE orders SET status = :status WHERE _id = :id', { id: 'ord-00042', status: 'delivered' });
  });

  // Overview.
  await panel(page, 'Overview');
  await expect(section(page, 'Collections').getByRole('row', { name: /orders/ })).toBeVisible();
  await expect(valueOf(sync, /^Big Peer$/)).toContainText('Connected');
  await shoot(page, 'overview');

  // Documents: the orders, newest first, the order edited on both peers selected with its merge metadata.
  await panel(page, 'Documents');
  await openCollection(page, 'orders');
  await runInConsole(page, 'SELECT * FROM orders WHERE total > :min ORDER BY createdAt DESC', { min: 50 });
  await expect(resultRows(page).first()).toContainText('ord-00307');
  await resultRows(page).first().click();
  const detail = page.getByRole('complementary', { name: 'Document' });
  await detail.getByRole('tab', { name: /Merge metadata/ }).click();
  await expect(detail.getByRole('table', { name: 'Fields and who wrote them' })).toContainText('carrier');
  await shoot(page, 'documents');
  await page.getByRole('tab', { name: 'JSON' }).click();
  await detail.getByRole('tab', { name: /^Document/ }).click();
  await shoot(page, 'documents-json');
  await page.getByRole('tab', { name: 'Table' }).click();

  // Subscriptions.
  await panel(page, 'Subscriptions');
  await expect(page.getByRole('table', { name: 'This peer’s subscriptions' })).toBeVisible();
  await expect(page.locator('#panel-main')).toContainText('local documents match its set');
  await shoot(page, 'subscriptions');

  // Permissions, with the verdicts for the shared order.
  await panel(page, 'Permissions');
  const check = page.getByRole('form', { name: 'Check a document’s access' });
  await check.getByLabel('Collection').fill('orders');
  await check.getByLabel('_id').fill('ord-00307');
  await check.getByRole('button', { name: 'Check access' }).click();
  await expect(page.getByRole('table', { name: 'Access by peer' })).toContainText('may write');
  await shoot(page, 'permissions');

  // Mesh.
  await panel(page, 'Mesh');
  await expect(connections.getByRole('row').filter({ hasText: 'elected' })).toHaveCount(1);
  await shoot(page, 'mesh');

  // Transactions: a second hold with a writer waiting behind it now, beside the earlier blocked wait.
  const holder = new ContractClient(peerA);
  try {
    await holder.call('transactions:hold', { ms: 25_000, hint: 'schema migration' });
    const behind = holder.query("UPDATE orders SET status = 'paid' WHERE _id = :id", { id: 'ord-00043' });
    await panel(page, 'Transactions');
    const slot = page.getByRole('region', { name: 'Write slot now' });
    await expect(slot.getByRole('list', { name: 'Writers waiting for the slot' }).getByRole('listitem')).toHaveCount(1);
    await page.getByRole('tab', { name: /Blocked waits/ }).click();
    // The writer waiting now behind the hold, beside the earlier waits behind the 12 s hold (the
    // peer's own presence writes among them), logged at DEBUG.
    await expect(page.getByRole('table', { name: 'Blocked waits' }).getByRole('row').filter({ hasText: 'schema migration' })).not.toHaveCount(0);
    // A few seconds of waiting, so that the bars have length.
    await expect(slot.getByRole('list', { name: 'Writers waiting for the slot' })).toContainText(/(?<![\d.])([4-9]|1\d)(\.\d)? s/, { timeout: 20_000 });
    await shoot(page, 'transactions');

    // Logs: the newest entries at DEBUG, after the write that waited.
    await behind;
  } finally {
    await holder.close();
  }
  await panel(page, 'Logs');
  await expect(page.getByRole('rowgroup', { name: 'Log entries, newest last' }).getByRole('row').last()).toBeVisible();
  await shoot(page, 'logs');

  // Eviction: the evict/re-sync scenario run from the panel, the orders strategy dry-run, then run.
  await panel(page, 'Eviction');
  const scenario = section(page, 'Evict/re-sync scenario');
  await scenario.getByLabel('Documents').fill('600');
  await scenario.getByLabel('Cycles each way').fill('2');
  await scenario.getByRole('button', { name: 'Run scenario' }).click();
  await expect(scenario.getByTestId('scenario-verdict')).toContainText('loop reproduced', { timeout: 120_000 });
  const strategies = page.getByRole('table', { name: 'Eviction strategies' });
  await strategies.getByRole('button', { name: 'Dry run orders' }).click();
  await expect(page.getByTestId('dry-run')).toContainText('SELECT * FROM orders');
  await page.getByRole('radio', { name: '2 min' }).click();
  await page.locator('#panel-main .panel-scroll').evaluate((element) => element.scrollTo(0, element.scrollHeight));
  await shoot(page, 'eviction-dry-run-and-scenario');
  await strategies.getByRole('button', { name: 'Run now orders' }).click();
  const dialog = page.getByRole('dialog', { name: 'Run the eviction of orders now' });
  await expect(dialog).toContainText('documents');
  await dialog.getByRole('button', { name: 'Run now' }).click();
  // The holds above blocked writes a moment ago: the run is refused (eviction/write-blocked), and Force runs it.
  const result = page.getByTestId('run-result');
  await expect(result).toContainText(/evicted \d+ documents|refused/);
  if (await result.getByRole('alert').isVisible()) {
    await result.getByRole('button', { name: 'Force…' }).click();
    await page.getByRole('dialog', { name: 'Force the eviction of orders' }).getByRole('button', { name: 'Force run' }).click();
  }
  await expect(result).toContainText(/run of orders: evicted \d+ documents/);
  await page.locator('#panel-main .panel-scroll').evaluate((element) => element.scrollTo(0, 0));
  await expect(page.getByTestId('eviction-mark').and(page.locator('[data-collection="orders"][data-kind="eviction"]'))).toHaveCount(1);
  await shoot(page, 'eviction');
});
