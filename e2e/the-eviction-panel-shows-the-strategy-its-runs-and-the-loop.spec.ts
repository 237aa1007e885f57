/**
 * The Eviction panel against a real peer started with `--evict local:orders:72`, syncing with a
 * Big Peer: the strategy is shown; with old and new orders and an overlapping find-all
 * subscription, the dry run lists the old orders it would evict and the subscription it would
 * cancel first; Run now evicts them (the run in the table with its counts, a mark on the chart),
 * a second run is refused as too soon, clearly, and Force runs it anyway; then the evict/re-sync
 * scenario, run from the panel, shows its rows as they come, the re-syncs on the chart, and the
 * verdict with the fix. The chart draws the database file and the WAL as two lines; a scenario
 * can be cancelled from the panel, leaving the peer as it was, and while one runs the peer's
 * eviction schedule keeps running.
 */
import { withContract } from './contract.ts';
import { expect, openInspector, REPLICATION_TIMEOUT_MS, section, test, type PanelName } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('eviction');
let peer: InspectedPeer;
/** The panel under test. */
const EVICTION: PanelName = 'Eviction';
const HOUR = 3_600_000;
const WINDOW_START = (new Date().getUTCHours() + 12) % 24;
const WINDOW = `${String(WINDOW_START).padStart(2, '0')}:00-${String((WINDOW_START + 2) % 24).padStart(2, '0')}:00`;

test.beforeAll(async () => {
  const bigPeer = await mesh.startBigPeer();
  // The low-activity window half a day from now, whatever the time of the run: no scheduled run
  // may happen on its own while the test looks (with the default 02:00-05:00 one did, at 02:00).
  peer = await mesh.startPeer('a', { bigPeer, evict: ['local:orders:72'], evictWindow: WINDOW });
  await expect.poll(() => /phy started/.test(peer.stderr()), { timeout: REPLICATION_TIMEOUT_MS, message: 'the peer connects to the Big Peer' }).toBe(true);
  // Three orders older than the 72 h TTL, two newer; and the find-all subscription that overlaps them.
  const now = Date.now();
  const order = (id: string, hoursAgo: number) => ({ _id: id, total: 10, createdAt: new Date(now - hoursAgo * HOUR).toISOString() });
  await withContract(peer, async (client) => {
    await client.query('INSERT INTO orders DOCUMENTS (:a), (:b), (:c), (:d), (:e)', {
      a: order('old-1', 120),
      b: order('old-2', 100),
      c: order('old-3', 80),
      d: order('new-1', 20),
      e: order('new-2', 2),
    });
    await client.call('subscriptions:register', { statement: 'SELECT * FROM orders' });
  });
});
test.afterAll(() => mesh.stop());

test('shows the strategy, dry-runs it, runs it (refused when too soon, then forced), and runs the evict/re-sync scenario', async ({ page }) => {
  test.setTimeout(180_000);
  await openInspector(page, peer, EVICTION);

  // The strategy.
  const strategies = page.getByRole('table', { name: 'Eviction strategies' });
  const orders = strategies.getByRole('row').filter({ hasText: 'orders' });
  await expect(orders).toContainText('Local TTL');
  await expect(orders).toContainText('createdAt older than 3 d (72 h)');
  await expect(orders).toContainText('never');
  await expect(section(page, 'Strategies')).toContainText(`Scheduled runs in ${WINDOW} UTC`);

  // The dry run: the three old orders, and the overlapping subscription cancelled first.
  await orders.getByRole('button', { name: 'Dry run orders' }).click();
  const dry = page.getByTestId('dry-run');
  const evicted = dry.getByRole('list', { name: 'Documents the run would evict' }).getByRole('listitem');
  // In the store's order; what matters is which.
  await expect.poll(async () => (await evicted.allInnerTexts()).sort()).toEqual(['old-1', 'old-2', 'old-3']);
  await expect(dry.locator('.eviction-count').filter({ hasText: 'Would evict' })).toContainText('3');
  await expect(dry.locator('dt', { hasText: 'Cancels first' }).locator('+ dd')).toContainText('SELECT * FROM orders');
  await expect(dry).toContainText('nothing comes back');

  // Run now: the dialog says what will run; the run evicts the three.
  await orders.getByRole('button', { name: 'Run now orders' }).click();
  const dialog = page.getByRole('dialog', { name: 'Run the eviction of orders now' });
  await expect(dialog).toContainText('3 documents');
  await dialog.getByRole('button', { name: 'Run now' }).click();
  const result = page.getByTestId('run-result');
  await expect(result).toContainText('evicted 3 documents');
  await expect(result).toContainText('cancelled SELECT * FROM orders');
  const runs = page.getByRole('table', { name: 'Eviction runs' });
  await expect(runs.getByRole('row').nth(1)).toContainText(/orders\s*manual\s*evicted\s*3/);
  await expect(orders).toContainText('evicted 3');
  // The chart marks it.
  await expect(page.getByTestId('eviction-mark').and(page.locator('[data-kind="eviction"][data-collection="orders"]'))).toHaveCount(1);

  // Run now again: refused, too soon, said plainly with its code; Force runs it anyway.
  await orders.getByRole('button', { name: 'Run now orders' }).click();
  await page.getByRole('dialog', { name: 'Run the eviction of orders now' }).getByRole('button', { name: 'Run now' }).click();
  const refusal = result.getByRole('alert');
  await expect(refusal).toContainText('Run of orders refused: Evicted less than a day ago');
  await expect(refusal).toContainText('eviction/too-soon');
  await refusal.getByRole('button', { name: 'Force…' }).click();
  await page.getByRole('dialog', { name: 'Force the eviction of orders' }).getByRole('button', { name: 'Force run' }).click();
  await expect(result).toContainText('Forced run of orders: evicted 0 documents');
  await expect(runs.getByRole('row').nth(1)).toContainText('forced');
  await expect(runs.getByRole('row')).toHaveCount(4);

  // The scenario: rows as they come, then the verdict and the fix; the re-syncs on the chart.
  const scenario = section(page, 'Evict/re-sync scenario');
  await scenario.getByLabel('Documents').fill('40');
  await scenario.getByLabel('Cycles each way').fill('1');
  await scenario.getByRole('button', { name: 'Run scenario' }).click();
  const rows = scenario.getByRole('table', { name: 'Scenario cycles' }).locator('tbody tr');
  await expect(rows.first()).toContainText('wrong way', { timeout: 90_000 });
  await expect(rows).toHaveCount(2, { timeout: 90_000 });
  await expect(rows.nth(1)).toContainText('right way');
  const verdict = scenario.getByTestId('scenario-verdict');
  await expect(verdict).toContainText('Evict/re-sync loop reproduced');
  await expect(verdict).toContainText('The fix');
  await expect(verdict).toContainText('spec 3.2');
  const resynced = Number((await rows.first().getByRole('cell').nth(3).innerText()).replace(/,/g, ''));
  expect(resynced).toBeGreaterThan(0);
  await expect(rows.nth(1).getByRole('cell').nth(3)).toHaveText('0');
  await expect(page.getByTestId('eviction-mark').and(page.locator('[data-kind="resync"]')).first()).toBeAttached();
  // The scenario's own strategy is gone again: orders is the only one.
  await expect(strategies.getByRole('row')).toHaveCount(2);
});

test('charts the database file and the WAL apart, and cancels a scenario while the schedule keeps running', async ({ page }) => {
  test.setTimeout(180_000);
  await openInspector(page, peer, EVICTION);

  // The store plot: two series, the file and its WAL, each in the legend, the readout and the chart.
  const chart = section(page, 'Documents, store and memory');
  const legend = chart.getByRole('group', { name: 'Series shown' });
  await expect(legend.getByRole('button', { name: 'Database file' })).toHaveAttribute('aria-pressed', 'true');
  await expect(legend.getByRole('button', { name: 'WAL' })).toHaveAttribute('aria-pressed', 'true');
  await expect(legend.getByRole('button', { name: 'Store on disk' })).toHaveCount(0);
  const readout = chart.locator('.eviction-readout');
  await expect(readout).toContainText(/database [\d.]+ [KM]?B/);
  await expect(readout).toContainText(/WAL [\d.]+ [KM]?B/);
  await expect(chart.locator('path.eviction-line.series-databaseBytes')).toHaveAttribute('d', /^M/);
  await expect(chart.locator('path.eviction-line.series-walBytes')).toHaveAttribute('d', /^M/);
  // Hiding the WAL leaves the file's line alone.
  await legend.getByRole('button', { name: 'WAL' }).click();
  await expect(chart.locator('path.eviction-line.series-walBytes')).toHaveCount(0);
  await expect(chart.locator('path.eviction-line.series-databaseBytes')).toHaveCount(1);
  await legend.getByRole('button', { name: 'WAL' }).click();

  // A scenario long enough to cancel: its right-way cycles wait 2 s each.
  const strategiesCard = section(page, 'Strategies');
  const scenario = section(page, 'Evict/re-sync scenario');
  await scenario.getByLabel('Documents').fill('300');
  await scenario.getByLabel('Cycles each way').fill('6');
  await scenario.getByRole('button', { name: 'Run scenario' }).click();
  const rows = scenario.getByRole('table', { name: 'Scenario cycles' }).locator('tbody tr');
  await expect(rows.first()).toContainText('wrong way', { timeout: 90_000 });
  // Its right way under way: its own strategy shows, off the schedule ("when asked"), and the
  // peer's schedule is as before: the window, never "manual only".
  const demo = page.getByRole('table', { name: 'Eviction strategies' }).getByRole('row').filter({ hasText: 'evict_loop_demo' });
  await expect(demo).toContainText('when asked', { timeout: 90_000 });
  await expect(
    page
      .getByRole('table', { name: 'Eviction strategies' })
      .getByRole('row')
      .filter({ hasText: /^orders/ }),
  ).toContainText(/in \d/);
  await expect(strategiesCard).toContainText(`Scheduled runs in ${WINDOW} UTC`);
  await expect(strategiesCard.getByText(`window ${WINDOW}`)).toBeVisible();
  await expect(strategiesCard).not.toContainText('manual only');
  await scenario.getByRole('button', { name: 'Cancel', exact: true }).click();

  // Cancelled, said as such, not as a failure; the rows done so far stay.
  const cancelled = scenario.getByTestId('scenario-cancelled');
  await expect(cancelled).toContainText(/Cancelled after \d+ of 12 cycles/, { timeout: 30_000 });
  await expect(scenario.getByTestId('scenario-verdict')).toHaveCount(0);
  await expect(scenario.getByRole('button', { name: 'Cancel', exact: true })).toHaveCount(0);
  expect(await rows.count()).toBeLessThan(12);
  // Nothing half done: no strategy or subscription of the scenario left, the schedule as it was.
  const strategies = page.getByRole('table', { name: 'Eviction strategies' });
  await expect(strategies.getByRole('row')).toHaveCount(2);
  await expect(strategies).not.toContainText('evict_loop_demo');
  await expect(strategiesCard.getByText(`window ${WINDOW}`)).toBeVisible();
  await withContract(peer, async (client) => {
    const { local } = await client.call('subscriptions:list', {});
    expect(local.filter((s) => s.collection === 'evict_loop_demo')).toEqual([]);
    const state = await client.call('eviction:get', {});
    expect(state).toMatchObject({ scheduled: true, window: WINDOW });
    expect(state.scenario).toBeUndefined();
    expect(state.collections.map((c) => c.strategy.collection)).toEqual(['orders']);
    expect(state.collections[0]?.nextRunAt).toBeGreaterThan(0);
  });
  // Another may run at once.
  await expect(scenario.getByRole('button', { name: 'Run scenario' })).toBeEnabled();
});
