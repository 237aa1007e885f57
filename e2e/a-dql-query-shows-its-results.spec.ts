/**
 * The DQL console of the Documents panel against a real peer: a SELECT with named arguments shows
 * its rows in the table and as JSON, a mutation says what it changed, and a malformed statement
 * shows its error.
 */
import { withContract } from './contract.ts';
import { compositorLayers } from './compositor.ts';
import { consoleEditor, resultRows, resultsGrid, runInConsole, typeInto } from './documents.ts';
import { expect, openInspector, test } from './fixtures.ts';
import { createMesh, type InspectedPeer } from './processes.ts';

const mesh = createMesh('dql');
let peer: InspectedPeer;

const CITIES = ['Lisbon', 'Oslo', 'Kyoto', 'Lima', 'Accra'];

test.beforeAll(async () => {
  peer = await mesh.startPeer('a');
  await withContract(peer, async (client) => {
    for (let i = 1; i <= 30; i++) {
      const order = { _id: `order-${String(i).padStart(3, '0')}`, total: i * 7, status: i % 3 === 0 ? 'shipped' : 'open', city: CITIES[i % CITIES.length] };
      await client.query('INSERT INTO orders DOCUMENTS (:order)', { order });
    }
    // Wider than the grid: it scrolls sideways too.
    const parts = Array.from({ length: 120 }, (_, i) => ({
      _id: `part-${String(i).padStart(3, '0')}`,
      ...Object.fromEntries(Array.from({ length: 12 }, (_, f) => [`field${f}`, `value ${f} of part ${i}`])),
    }));
    await client.query(`INSERT INTO parts DOCUMENTS ${parts.map((_, i) => `(:p${i})`).join(', ')}`, Object.fromEntries(parts.map((p, i) => [`p${i}`, p])));
  });
});
test.afterAll(() => mesh.stop());

test('a SELECT with arguments shows its rows in the table and as JSON', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await runInConsole(page, 'SELECT * FROM orders WHERE status = :status AND total > :min ORDER BY total DESC', { status: 'shipped', min: 100 });
  // total = 7i with i a multiple of 3 above 100: i = 15, 18, 21, 24, 27, 30.
  const summary = page.getByRole('toolbar', { name: 'Results' });
  await expect(summary).toContainText('6 rows');
  await expect(resultRows(page)).toHaveCount(6);
  for (const name of ['_id', 'city', 'status', 'total']) await expect(resultsGrid(page).getByRole('columnheader', { name })).toBeVisible();
  await expect(resultRows(page).first()).toContainText('order-030');
  await expect(resultRows(page).first()).toContainText('210');
  await expect(resultRows(page).last()).toContainText('order-015');
  await expect(resultRows(page).last()).toContainText('105');

  await page.getByRole('tab', { name: 'JSON' }).click();
  await expect(page.getByRole('tab', { name: 'JSON' })).toHaveAttribute('aria-selected', 'true');
  await expect(resultsGrid(page).getByRole('columnheader', { name: 'Document (JSON)' })).toBeVisible();
  await expect(resultRows(page).first()).toContainText(/"_id":\s*"order-030"/);
  await expect(resultRows(page).first()).toContainText(/"total":\s*210/);
  await page.getByRole('tab', { name: 'Table' }).click();
  await expect(resultsGrid(page).getByRole('columnheader', { name: 'city' })).toBeVisible();
});

test('a mutation run in the console says what it changed and the result follows it', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await runInConsole(page, 'SELECT * FROM orders WHERE city = :city', { city: 'Kyoto' });
  await expect(page.getByRole('toolbar', { name: 'Results' })).toContainText('6 rows');
  await runInConsole(page, "UPDATE orders SET status = 'cancelled' WHERE _id = :id", { id: 'order-002' });
  await expect(page.getByRole('status').filter({ hasText: 'document changed' })).toContainText(/1 document changed.*txn \d+/);
  await runInConsole(page, 'SELECT _id, status FROM orders WHERE status = :status', { status: 'cancelled' });
  await expect(resultRows(page)).toHaveCount(1);
  await expect(resultRows(page).first()).toContainText('order-002');
  await expect(resultRows(page).first()).toContainText('cancelled');
});

test('a malformed statement shows its error and keeps the last result', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await runInConsole(page, 'SELECT * FROM orders LIMIT 3');
  await expect(resultRows(page)).toHaveCount(3);
  await runInConsole(page, 'SELEKT * FROM orders');
  await expect(page.getByText('The statement failed')).toBeVisible();
  await expect(page.locator('#panel-main')).toContainText('Syntax error at line 1 column 1: expected a statement, found SELEKT');
  await expect(consoleEditor(page)).toHaveText('SELEKT * FROM orders');
  // The last result stays.
  await expect(resultRows(page)).toHaveCount(3);
});

test('an index made in the console is listed, and EXPLAIN shows the plan that uses it', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await runInConsole(page, 'CREATE INDEX IF NOT EXISTS by_city ON orders (city)');
  await expect(resultRows(page)).toHaveCount(1);
  await expect(resultRows(page).first()).toContainText('by_city');
  await runInConsole(page, 'SELECT name, collection, statement FROM system:indexes');
  await expect(resultRows(page).first()).toContainText('CREATE INDEX by_city ON orders (city ASC)');
  await runInConsole(page, 'EXPLAIN SELECT * FROM orders WHERE city = :city', { city: 'Oslo' });
  await expect(resultRows(page)).toHaveCount(1);
  for (const name of ['access', 'index', 'sql', 'estimatedRows']) await expect(resultsGrid(page).getByRole('columnheader', { name })).toBeVisible();
  await page.getByRole('tab', { name: 'JSON' }).click();
  // 30 orders over 5 cities: 6 in Oslo, found through the index.
  await expect(resultRows(page).first()).toContainText(/"access":\s*"index"/);
  await expect(resultRows(page).first()).toContainText(/"index":\s*"by_city"/);
  await expect(resultRows(page).first()).toContainText(/"estimatedRows":\s*6/);
  await page.getByRole('tab', { name: 'Table' }).click();
});

test('the console completes collection names, then the fields seen in that collection', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await typeInto(consoleEditor(page), 'SELECT * FROM ord');
  await consoleEditor(page).press('Control+Space');
  await expect(page.getByRole('listbox')).toContainText('orders');
  await consoleEditor(page).press('Escape');
  // Once a result of orders has shown its fields, they complete in a statement on orders.
  await runInConsole(page, 'SELECT * FROM orders LIMIT 3');
  await expect(resultRows(page)).toHaveCount(3);
  await typeInto(consoleEditor(page), 'SELECT * FROM orders WHERE ci');
  await consoleEditor(page).press('Control+Space');
  await expect(page.getByRole('listbox')).toContainText('city');
  await consoleEditor(page).press('Escape');
});

test('a wide result scrolls down with no compositor layer per row, and its numbers stay at the left when scrolled across', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await runInConsole(page, 'SELECT * FROM parts');
  await expect(page.getByRole('toolbar', { name: 'Results' })).toContainText('120 rows');
  const grid = resultsGrid(page);
  await grid.evaluate((g) => {
    g.scrollTop = 1_000;
  });
  await expect(resultRows(page).first()).not.toContainText('part-000');
  const rows = await resultRows(page).count();
  // A sticky number cell per row made every row a layer of its own: more layers than rows.
  const layers = await compositorLayers(page);
  expect(layers.length, `${layers.length} layers for ${rows} rows: ${layers.map((l) => `${l.reasons.join('+')} ${l.size}`).join(', ')}`).toBeLessThan(15);

  const numberOffset = () =>
    grid.evaluate((g) => {
      const cell = g.querySelector('[role="row"] + [role="row"] [role="rowheader"]') as HTMLElement;
      return Math.round(cell.getBoundingClientRect().left - g.getBoundingClientRect().left);
    });
  expect(await numberOffset()).toBe(0);
  await grid.evaluate((g) => {
    g.scrollLeft = 200;
  });
  await expect.poll(() => grid.evaluate((g) => g.scrollLeft)).toBe(200);
  await expect.poll(numberOffset).toBe(0);
  const header = grid.getByRole('columnheader', { name: '#' });
  expect(Math.round((await header.boundingBox())?.x ?? -1)).toBe(Math.round((await grid.boundingBox())?.x ?? -2));
});

test('a result being scrolled keeps its rows in index order in the DOM, each at its own place', async ({ page }) => {
  await openInspector(page, peer, 'Documents');
  await runInConsole(page, 'SELECT * FROM parts');
  await expect(page.getByRole('toolbar', { name: 'Results' })).toContainText('120 rows');
  // Frame by frame, 5 rows and a bit further each, as a quick wheel would: what the DOM holds in
  // each frame while the grid says it is scrolling, and where each row is drawn.
  const frames = await resultsGrid(page).evaluate(
    (grid) =>
      new Promise<{ scrolling: boolean; indices: number[]; tops: number[] }[]>((resolve) => {
        const seen: { scrolling: boolean; indices: number[]; tops: number[] }[] = [];
        let step = 0;
        const frame = (): void => {
          const rows = [...grid.querySelectorAll('[role="row"][aria-rowindex]')].filter((r) => r.querySelector('[role="gridcell"]') !== null);
          seen.push({
            scrolling: grid.hasAttribute('data-scrolling'),
            indices: rows.map((r) => Number(r.getAttribute('aria-rowindex'))),
            tops: rows.map((r) => r.getBoundingClientRect().top),
          });
          if (++step > 12) return resolve(seen);
          grid.scrollTop += 5 * 24 + 7;
          requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
  );
  expect(frames.filter((f) => f.scrolling).length, 'frames seen while the grid was scrolling').toBeGreaterThan(5);
  for (const { indices, tops } of frames) {
    expect(indices.length).toBeGreaterThan(5);
    expect(indices, 'rows in index order, one after another').toEqual(indices.map((_, i) => (indices[0] as number) + i));
    const gaps = tops.slice(1).map((top, i) => Math.round(top - (tops[i] as number)));
    expect(new Set(gaps), 'each row drawn one row below the one before it').toEqual(new Set([24]));
  }
});
