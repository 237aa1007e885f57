/**
 * A Big Peer strategy next to an application subscription that selects what it evicts (the
 * find-all `SELECT * FROM orders`), against a real peer started with `--evict big-peer:orders`
 * and a real Big Peer: the strategy's row and the subscription's row in Subscriptions both flag
 * the overlap; Run now's dialog predicts the refusal, so Cancel is its primary, focused action and
 * the run a danger "anyway"; Narrow, one click in Subscriptions, puts the fix in place, and both
 * flags go.
 */
import { withContract } from './contract.ts';
import { expect, openInspector, REPLICATION_TIMEOUT_MS, section, showPanel, test, type PanelName } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('eviction-overlap');
let peer: InspectedPeer;
const EVICTION: PanelName = 'Eviction';
const WINDOW_START = (new Date().getUTCHours() + 12) % 24;
const WINDOW = `${String(WINDOW_START).padStart(2, '0')}:00-${String((WINDOW_START + 2) % 24).padStart(2, '0')}:00`;
const NARROWED = 'SELECT * FROM `orders` WHERE evictionFlag == false';

test.beforeAll(async () => {
  const bigPeer = await mesh.startBigPeer();
  // The window half a day away: no scheduled run may happen while the test looks.
  peer = await mesh.startPeer('a', { bigPeer, evict: ['big-peer:orders'], evictWindow: WINDOW });
  await expect.poll(() => /phy started/.test(peer.stderr()), { timeout: REPLICATION_TIMEOUT_MS, message: 'the peer connects to the Big Peer' }).toBe(true);
  await withContract(peer, async (client) => {
    await client.query('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'o1', evictionFlag: false }, b: { _id: 'o2', evictionFlag: true } });
    await client.call('subscriptions:register', { statement: 'SELECT * FROM orders' });
  });
});
test.afterAll(() => mesh.stop());

test('flags the overlap on the strategy and the subscription, makes Cancel the default of a refused run, and narrows it in one click', async ({ page }) => {
  test.setTimeout(120_000);
  await openInspector(page, peer, EVICTION);

  // The strategy's row: flagged, with the culprit and its fix.
  const strategies = page.getByRole('table', { name: 'Eviction strategies' });
  const orders = strategies.getByRole('row').filter({ hasText: 'Big Peer TTL' });
  const flag = orders.getByTestId('strategy-overlap');
  await expect(flag).toContainText('Overlap: every run is refused');
  await expect(flag).toContainText('eviction/overlap');
  await expect(flag).toContainText('SELECT * FROM orders');
  await expect(flag).toContainText(NARROWED);
  await expect(flag.getByRole('button', { name: /^Narrow subscription \d+$/ })).toBeVisible();

  // Run now: the dialog predicts the refusal; Cancel is the primary, focused action, the run a danger "anyway".
  await orders.getByRole('button', { name: 'Run now orders' }).click();
  const dialog = page.getByRole('dialog', { name: 'Run the eviction of orders now' });
  await expect(dialog).toContainText('It would be refused now');
  const cancel = dialog.getByRole('button', { name: 'Cancel', exact: true });
  const runAnyway = dialog.getByRole('button', { name: 'Run now anyway' });
  await expect(cancel).toHaveClass(/\bbtn-primary\b/);
  await expect(cancel).toBeFocused();
  await expect(runAnyway).toHaveClass(/\bbtn-danger\b/);
  await expect(runAnyway).not.toHaveClass(/\bbtn-primary\b/);
  // Enter takes the default: the dialog closes, nothing ran.
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('run-result')).toHaveCount(0);
  await expect(page.getByRole('table', { name: 'Eviction runs' }).getByRole('row').filter({ hasText: 'orders' })).toHaveCount(0);

  // Subscriptions: the same subscription is flagged on its row, with Narrow beside Cancel.
  const panel = await showPanel(page, 'Subscriptions');
  const mine = panel.getByRole('table', { name: 'This peer’s subscriptions' });
  const findAll = mine.getByRole('row').filter({ hasText: 'overlaps eviction of orders' });
  await expect(findAll).toHaveCount(1);
  await expect(findAll).toContainText('every document'); // its expr: true
  await expect(page.getByTestId('subscription-overlap-note')).toContainText(NARROWED);
  await findAll.getByRole('button', { name: /^Narrow subscription \d+$/ }).click();

  // Fixed: no flag here, the narrowed one registered in its place.
  await expect(mine.getByRole('row').filter({ hasText: 'overlaps eviction of orders' })).toHaveCount(0);
  await expect(page.getByTestId('subscription-overlap-note')).toHaveCount(0);
  // The strategy's own subscription and the narrowed one (the find-all one is gone).
  await expect(mine.getByRole('row').filter({ hasText: '(evictionFlag = false)' })).toHaveCount(2);
  await expect(mine.getByRole('row').filter({ hasText: 'orders' })).toHaveCount(2);

  // And none on the strategy; a run is no longer predicted refused: Run now is the primary action again.
  await showPanel(page, EVICTION);
  await expect(section(page, 'Strategies').getByTestId('strategy-overlap')).toHaveCount(0);
  await orders.getByRole('button', { name: 'Run now orders' }).click();
  const again = page.getByRole('dialog', { name: 'Run the eviction of orders now' });
  await expect(again).toContainText('1 document');
  await expect(again.getByRole('button', { name: 'Run now', exact: true })).toHaveClass(/\bbtn-primary\b/);
  await expect(again.getByRole('button', { name: 'Cancel', exact: true })).not.toHaveClass(/\bbtn-primary\b/);
  await again.getByRole('button', { name: 'Cancel', exact: true }).click();
});
