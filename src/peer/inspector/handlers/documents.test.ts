import { afterEach, describe, expect, it } from 'vitest';
import { serveCall } from '../serve-call.ts';
import { inspectorKit, type InspectorKit } from '../../../testing/inspector/test-kit.ts';
import { RESULTS_KEPT } from './result-cache.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

async function withOrders(n: number, options: Parameters<typeof inspectorKit>[0] = {}): Promise<InspectorKit> {
  const k = inspectorKit(options);
  const docs = Array.from({ length: n }, (_, i) => ({ _id: `o${String(i).padStart(4, '0')}`, n: i }));
  await k.sync.store.execute(`INSERT INTO orders DOCUMENTS ${docs.map((_, i) => `(:d${i})`).join(', ')}`, Object.fromEntries(docs.map((d, i) => [`d${i}`, d])));
  return k;
}

describe('documents:query', () => {
  it('runs a SELECT as the user and answers the total and the first page, 200 rows by default', async () => {
    kit = await withOrders(250);
    const outcome = await kit.call('documents:query', { statement: 'SELECT * FROM orders ORDER BY n' });
    expect(outcome).toMatchObject({ statement: 'SELECT * FROM orders ORDER BY n', total: 250, mutatedDocumentIds: [], commitId: null });
    expect(outcome.rows).toHaveLength(200);
    expect(outcome.rows[0]).toEqual({ _id: 'o0000', n: 0 });
    expect(outcome.resultId).toMatch(/^[0-9a-f-]{36}$/);
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('binds named arguments and takes a page size up to 1,000', async () => {
    kit = await withOrders(30);
    const outcome = await kit.call('documents:query', { statement: 'SELECT n FROM orders WHERE n >= :min ORDER BY n', args: { min: 20 }, pageSize: 3 });
    expect(outcome.total).toBe(10);
    expect(outcome.rows).toEqual([{ n: 20 }, { n: 21 }, { n: 22 }]);
  });

  it('runs a mutation and answers its ids and commit, keeping no result', async () => {
    kit = inspectorKit();
    const outcome = await kit.call('documents:query', { statement: 'INSERT INTO people DOCUMENTS (:p)', args: { p: { _id: 'ada' } } });
    expect(outcome).toMatchObject({ resultId: '', total: 0, rows: [], mutatedDocumentIds: ['ada'], commitId: 1 });
    expect((await kit.sync.store.execute('SELECT * FROM people')).items).toEqual([{ _id: 'ada' }]);
  });

  it('answers a DQL error with its own code, unchanged', async () => {
    kit = inspectorKit();
    expect(await kit.fail('documents:query', { statement: '' })).toMatchObject({ code: 'query/invalid' });
    expect(await kit.fail('documents:query', { statement: 'SELEC * FROM x' })).toMatchObject({ code: 'query/invalid' });
    expect(await kit.fail('documents:query', { statement: 'SELECT * FROM x WHERE a = :missing' })).toMatchObject({ code: expect.stringMatching(/^query\//) });
    expect(await kit.fail('documents:query', { statement: 'INSERT INTO __presence DOCUMENTS (:d)', args: { d: { _id: 'x' } } })).toMatchObject({
      code: 'query/unsupported',
    });
  });

  it('refuses bad input naming the field, and runs nothing', async () => {
    kit = inspectorKit();
    const cases: [unknown, string][] = [
      [{}, 'statement'],
      [{ statement: 42 }, 'statement'],
      [{ statement: 'SELECT * FROM a', args: [1] }, 'args'],
      [{ statement: 'SELECT * FROM a', args: 'x' }, 'args'],
      [{ statement: 'SELECT * FROM a', pageSize: 0 }, 'pageSize'],
      [{ statement: 'SELECT * FROM a', pageSize: 1001 }, 'pageSize'],
      [{ statement: 'SELECT * FROM a', pageSize: 2.5 }, 'pageSize'],
      [{ statement: 'SELECT * FROM a', pageSize: '10' }, 'pageSize'],
      [{ statement: 'INSERT INTO a DOCUMENTS ({_id: 1})', drop: true }, 'drop'],
      [null, 'input'],
      [{ statement: 'x'.repeat(100_001) }, 'statement'],
    ];
    for (const [input, field] of cases) {
      const error = await kit.fail('documents:query', input);
      expect(error.code).toBe('inspector/bad-request');
      expect(error.message.startsWith(`${field}:`)).toBe(true);
    }
    expect(kit.sync.store.lastTxnId).toBe(0);
  });
});

describe('documents:rows', () => {
  it('pages through a kept result, and answers no rows past its end', async () => {
    kit = await withOrders(25);
    const { resultId } = await kit.call('documents:query', { statement: 'SELECT n FROM orders ORDER BY n', pageSize: 10 });
    expect(await kit.call('documents:rows', { resultId, offset: 10, limit: 10 })).toEqual({
      resultId,
      offset: 10,
      total: 25,
      rows: Array.from({ length: 10 }, (_, i) => ({ n: 10 + i })),
    });
    expect((await kit.call('documents:rows', { resultId, offset: 20, limit: 10 })).rows.map((r) => r.n)).toEqual([20, 21, 22, 23, 24]);
    expect((await kit.call('documents:rows', { resultId, offset: 25, limit: 10 })).rows).toEqual([]);
  });

  it(`keeps a session’s ${RESULTS_KEPT} most recently used results; an older one is not found`, async () => {
    kit = await withOrders(3);
    const ids: string[] = [];
    for (let i = 0; i < RESULTS_KEPT; i++) ids.push((await kit.call('documents:query', { statement: 'SELECT * FROM orders' })).resultId);
    // Paging the first keeps it fresh: the second becomes the oldest.
    await kit.call('documents:rows', { resultId: ids[0], offset: 0, limit: 1 });
    ids.push((await kit.call('documents:query', { statement: 'SELECT * FROM orders' })).resultId);
    expect(await kit.fail('documents:rows', { resultId: ids[1], offset: 0, limit: 1 })).toMatchObject({
      code: 'inspector/not-found',
      message: expect.stringContaining('resultId'),
    });
    for (const id of [ids[0], ids[2], ids[3], ids[4]]) expect((await kit.call('documents:rows', { resultId: id, offset: 0, limit: 1 })).total).toBe(3);
  });

  it('keeps only the first rows of a result larger than a session’s byte budget, and says it is truncated', async () => {
    // Each row {_id: 'o0000', n: …} counts 64 + 2 × its JSON length, about 104 bytes.
    kit = await withOrders(100, { inspector: { resultLimits: { bytesPerSession: 5_000 } } });
    const outcome = await kit.call('documents:query', { statement: 'SELECT * FROM orders ORDER BY n', pageSize: 1_000 });
    expect(outcome.truncated).toBe(true);
    expect(outcome.total).toBeGreaterThan(40);
    expect(outcome.total).toBeLessThan(50);
    expect(outcome.rows).toHaveLength(outcome.total);
    expect(outcome.rows.map((r) => r.n)).toEqual(Array.from({ length: outcome.total }, (_, i) => i));
    expect(await kit.call('documents:rows', { resultId: outcome.resultId, offset: outcome.total, limit: 10 })).toMatchObject({
      total: outcome.total,
      rows: [],
    });
    expect(await kit.call('documents:query', { statement: 'SELECT * FROM orders WHERE n < 10' })).toMatchObject({ total: 10, truncated: false });
  });

  it('keeps only the first rows of a result beyond a session’s row limit', async () => {
    kit = await withOrders(30, { inspector: { resultLimits: { rowsPerSession: 12 } } });
    expect(await kit.call('documents:query', { statement: 'SELECT * FROM orders' })).toMatchObject({ total: 12, truncated: true });
  });

  it('drops a session’s older results once its results together pass its byte budget, though fewer than 4 are kept', async () => {
    kit = await withOrders(100, { inspector: { resultLimits: { bytesPerSession: 5_000 } } });
    const first = await kit.call('documents:query', { statement: 'SELECT * FROM orders WHERE n < 30' });
    const second = await kit.call('documents:query', { statement: 'SELECT * FROM orders WHERE n >= 30 AND n < 60' });
    expect([first.truncated, second.truncated]).toEqual([false, false]);
    expect(await kit.fail('documents:rows', { resultId: first.resultId, offset: 0, limit: 1 })).toMatchObject({ code: 'inspector/not-found' });
    expect((await kit.call('documents:rows', { resultId: second.resultId, offset: 0, limit: 100 })).rows).toHaveLength(30);
  });

  it('drops the least recently used result of any session once all sessions together pass the overall budget', async () => {
    kit = await withOrders(100, { inspector: { resultLimits: { bytesPerSession: 5_000, bytesOverall: 8_000 } } });
    const mine = await kit.call('documents:query', { statement: 'SELECT * FROM orders WHERE n < 40' });
    const other = kit.inspector.openSession();
    const theirs = await serveCall(other.handlers, 'documents:query', { statement: 'SELECT * FROM orders WHERE n >= 40 AND n < 80' });
    expect(theirs).toMatchObject({ ok: true, value: { total: 40, truncated: false } });
    expect(await kit.fail('documents:rows', { resultId: mine.resultId, offset: 0, limit: 1 })).toMatchObject({ code: 'inspector/not-found' });
    const resultId = theirs.ok ? (theirs.value as { resultId: string }).resultId : '';
    expect(await serveCall(other.handlers, 'documents:rows', { resultId, offset: 0, limit: 1 })).toMatchObject({ ok: true });
  });

  it('keeps results per session: another window cannot page this one’s', async () => {
    kit = await withOrders(3);
    const { resultId } = await kit.call('documents:query', { statement: 'SELECT * FROM orders' });
    const other = kit.inspector.openSession();
    const result = await other.handlers['documents:rows']({ resultId, offset: 0, limit: 1 }).catch((e: unknown) => e);
    expect(result).toMatchObject({ code: 'inspector/not-found' });
    other.close();
  });

  it('refuses bad input naming the field', async () => {
    kit = inspectorKit();
    const cases: [unknown, string][] = [
      [{ offset: 0, limit: 1 }, 'resultId'],
      [{ resultId: 1, offset: 0, limit: 1 }, 'resultId'],
      [{ resultId: 'r', limit: 1 }, 'offset'],
      [{ resultId: 'r', offset: -1, limit: 1 }, 'offset'],
      [{ resultId: 'r', offset: 0, limit: 0 }, 'limit'],
      [{ resultId: 'r', offset: 0, limit: 1001 }, 'limit'],
      [{ resultId: 'r', offset: 0 }, 'limit'],
      [{ resultId: 'r', offset: 0, limit: 1, page: 2 }, 'page'],
    ];
    for (const [input, field] of cases) {
      const error = await kit.fail('documents:rows', input);
      expect([error.code, error.message.split(':')[0]]).toEqual(['inspector/bad-request', field]);
    }
    expect(await kit.fail('documents:rows', { resultId: 'never-given', offset: 0, limit: 1 })).toMatchObject({ code: 'inspector/not-found' });
  });
});
