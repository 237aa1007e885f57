/**
 * A SELECT larger than the peer keeps for one inspector (here `syncmesh inspect --result-limit
 * 64KiB`, so that 2,000 orders are too many): the results bar says which rows are shown and what
 * the limit is, and Next rows and Previous rows page past it. A write between two windows moves
 * nothing: the next window starts right after the last row shown.
 */
import { withContract } from './contract.ts';
import { openCollection, resultRows } from './documents.ts';
import { expect, openInspector, test } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('result-limit');
let peer: InspectedPeer;
const ORDERS = 2_000;
const CITIES = ['Lisbon', 'Oslo', 'Kyoto', 'Lima', 'Accra'];
const orderId = (n: number): string => `order-${String(n).padStart(4, '0')}`;
const count = (n: number): string => n.toLocaleString('en-US');
/** Rows the first window keeps: the peer's own answer to the same statement. */
let firstWindow = 0;

test.beforeAll(async () => {
  peer = await mesh.startPeer('a', { resultLimit: '64KiB' });
  await withContract(peer, async (client) => {
    for (let first = 1; first <= ORDERS; first += 500) {
      const docs = Array.from({ length: 500 }, (_, i) => ({ _id: orderId(first + i), n: first + i, city: CITIES[(first + i) % CITIES.length] }));
      await client.query('INSERT INTO orders DOCUMENTS (:docs)', { docs });
    }
    const outcome = await client.query('SELECT * FROM orders');
    expect(outcome.truncated).toBe(true);
    firstWindow = outcome.total;
  });
  expect(firstWindow).toBeGreaterThan(100);
  expect(firstWindow).toBeLessThan(ORDERS / 3);
});
test.afterAll(() => mesh.stop());

test('a result past the limit says what the limit is and pages past it, unmoved by a write between two windows', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await openCollection(page, 'orders');
  const bar = page.getByRole('toolbar', { name: 'Results' });
  const nav = bar.getByRole('group', { name: 'Rows past the limit' });
  await expect(bar).toContainText(`first ${count(firstWindow)} of ${count(ORDERS)} rows`);
  await expect(bar).toContainText('limit 64 KB per result');
  await expect(nav.getByRole('button', { name: 'Previous rows' })).toBeDisabled();
  await expect(resultRows(page).first()).toContainText(orderId(1));

  await nav.getByRole('button', { name: 'Next rows' }).click();
  await expect(bar).toContainText(new RegExp(`rows ${count(firstWindow + 1)}–[\\d,]+ of ${count(ORDERS)} rows`));
  await expect(resultRows(page).first()).toContainText(orderId(firstWindow + 1));
  const second = /rows [\d,]+–([\d,]+) of/.exec((await bar.textContent()) ?? '');
  const secondEnd = Number((second?.[1] ?? '').replace(/,/g, ''));
  expect(secondEnd).toBeGreaterThan(firstWindow + 1);

  // A write before the window while it is shown: the live refresh keeps the same rows, one place later.
  await withContract(peer, (client) => client.query('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'order-0000-late', n: 0, city: 'Oslo' } }));
  await expect(bar).toContainText(`rows ${count(firstWindow + 2)}–${count(secondEnd + 1)} of ${count(ORDERS + 1)} rows`);
  await expect(resultRows(page).first()).toContainText(orderId(firstWindow + 1));

  // The next window starts right after the last row shown: nothing skipped, nothing twice.
  await nav.getByRole('button', { name: 'Next rows' }).click();
  await expect(bar).toContainText(`rows ${count(secondEnd + 2)}–`);
  await expect(resultRows(page).first()).toContainText(orderId(secondEnd + 1));

  // The previous window ends right before it; windows before go back to the first, which now holds the late order first.
  await nav.getByRole('button', { name: 'Previous rows' }).click();
  await expect(bar).toContainText(`–${count(secondEnd + 1)} of ${count(ORDERS + 1)} rows`);
  const previous = nav.getByRole('button', { name: 'Previous rows' });
  for (let clicks = 0; clicks < 4 && (await previous.isEnabled()); clicks++) {
    const before = await bar.textContent();
    await previous.click();
    await expect(bar).not.toHaveText(before ?? '');
  }
  await expect(previous).toBeDisabled();
  await expect(bar).toContainText(new RegExp(`first [\\d,]+ of ${count(ORDERS + 1)} rows`));
  await expect(resultRows(page).first()).toContainText('order-0000-late');
});
