/**
 * A SELECT * over 100,000 documents through the inspector, on a SQLite store in a temporary
 * directory: the result stays on the peer and crosses a page at a time. Prints how long it took.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inspectorKit, removeTempDirs, tempDir, type InspectorKit } from '../../../testing/inspector/test-kit.ts';

const N = 100_000;
const BATCH = 1_000;
let kit: InspectorKit;

beforeAll(async () => {
  kit = inspectorKit({ sync: { inMemory: false, persistenceDirectory: tempDir() }, minimumLogLevel: 'INFO' });
  const started = performance.now();
  for (let b = 0; b < N / BATCH; b++) {
    const docs = Array.from({ length: BATCH }, (_, i) => {
      const n = b * BATCH + i;
      return {
        _id: `order-${String(n).padStart(6, '0')}`,
        n,
        locationId: n % 7,
        createdAt: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
        items: [{ sku: `s${n % 97}`, qty: n % 5 }],
      };
    });
    await kit.sync.store.execute(
      `INSERT INTO orders DOCUMENTS ${docs.map((_, i) => `(:d${i})`).join(', ')}`,
      Object.fromEntries(docs.map((d, i) => [`d${i}`, d])),
    );
  }
  console.log(`inserted ${N} documents in ${Math.round(performance.now() - started)} ms`);
  expect((await kit.call('overview:get')).storeSizeBytes).toBeGreaterThan(1_000_000);
}, 300_000);

afterAll(() => {
  kit.dispose();
  removeTempDirs();
});

it(`answers SELECT * over ${N.toLocaleString('en')} documents with the total and a first page, and pages to the end`, async () => {
  const started = performance.now();
  const outcome = await kit.call('documents:query', { statement: 'SELECT * FROM orders' });
  const queryMs = performance.now() - started;
  expect(outcome.total).toBe(N);
  expect(outcome.rows).toHaveLength(200);
  const pageStarted = performance.now();
  const last = await kit.call('documents:rows', { resultId: outcome.resultId, offset: N - 1000, limit: 1000 });
  const pageMs = performance.now() - pageStarted;
  expect(last.rows).toHaveLength(1000);
  expect(new Set([...outcome.rows, ...last.rows].map((r) => r._id)).size).toBe(1200);
  const bytes = JSON.stringify(outcome).length;
  console.log(
    `SELECT * of ${N}: ${Math.round(queryMs)} ms (peer elapsedMs ${Math.round(outcome.elapsedMs)}); first answer ${bytes} bytes of JSON; a page of 1,000 rows: ${pageMs.toFixed(1)} ms`,
  );
  expect(queryMs).toBeLessThan(30_000);
}, 120_000);
