import { afterEach, describe, expect, it } from 'vitest';
import type { QueryOutcome } from '../../../shared/inspector/documents.ts';
import { inspectorKit, type InspectorKit } from '../../../testing/inspector/test-kit.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

const id = (i: number): string => `o${String(i).padStart(4, '0')}`;

/** `n` orders `o0000`…, and an inspector whose sessions keep about 5,000 bytes (each row counts about 104). */
async function withOrders(n: number, resultLimits: { bytesPerSession?: number; rowsPerSession?: number } = { bytesPerSession: 5_000 }): Promise<InspectorKit> {
  const k = inspectorKit({ inspector: { resultLimits } });
  const docs = Array.from({ length: n }, (_, i) => ({ _id: id(i), n: i }));
  await k.sync.store.execute(`INSERT INTO orders DOCUMENTS ${docs.map((_, i) => `(:d${i})`).join(', ')}`, Object.fromEntries(docs.map((d, i) => [`d${i}`, d])));
  return k;
}

const ids = (outcome: QueryOutcome): unknown[] => outcome.rows.map((r) => r['_id']);

describe('documents:window', () => {
  it('says how many rows the statement returned, and which limit of how much cut the result', async () => {
    kit = await withOrders(100);
    const first = await kit.call('documents:query', { statement: 'SELECT * FROM orders', pageSize: 1_000 });
    expect(first.truncated).toBe(true);
    expect(first.window).toEqual({
      start: 0,
      statementRows: 100,
      limit: { bytes: 5_000, rows: 250_000 },
      cutBy: 'bytes',
      placedBy: 'start',
    });
    const whole = await kit.call('documents:query', { statement: 'SELECT * FROM orders WHERE n < 10' });
    expect(whole).toMatchObject({ truncated: false, window: { start: 0, statementRows: 10, cutBy: null } });
  });

  it('names the row limit when the rows a session keeps cut the result', async () => {
    kit = await withOrders(30, { rowsPerSession: 12 });
    const first = await kit.call('documents:query', { statement: 'SELECT * FROM orders' });
    expect(first).toMatchObject({ total: 12, truncated: true, window: { statementRows: 30, cutBy: 'rows', limit: { rows: 12 } } });
  });

  it('pages past the limit: the windows after the first show every row once, in order, and the previous one comes back', async () => {
    kit = await withOrders(100);
    const windows: QueryOutcome[] = [await kit.call('documents:query', { statement: 'SELECT * FROM orders', pageSize: 1_000 })];
    for (let guard = 0; guard < 10 && (windows.at(-1) as QueryOutcome).window!.start + (windows.at(-1) as QueryOutcome).total < 100; guard++) {
      windows.push(await kit.call('documents:window', { resultId: (windows.at(-1) as QueryOutcome).resultId, direction: 'next', pageSize: 1_000 }));
    }
    expect(windows.length).toBeGreaterThan(2);
    expect(windows.flatMap(ids)).toEqual(Array.from({ length: 100 }, (_, i) => id(i)));
    for (const [i, w] of windows.entries()) {
      expect(w.rows).toHaveLength(w.total);
      if (i > 0) expect(w.window).toMatchObject({ start: windows[i - 1]!.window!.start + windows[i - 1]!.total, statementRows: 100, placedBy: 'row' });
    }
    const last = windows.at(-1) as QueryOutcome;
    expect(last.window!.cutBy).toBeNull();
    // The result of a window is kept like any other: its rows page with documents:rows.
    expect(await kit.call('documents:rows', { resultId: last.resultId, offset: 0, limit: 2 })).toMatchObject({
      total: last.total,
      rows: last.rows.slice(0, 2),
    });
    // Back from the last window: the one before it again, and so on to the first.
    let back = last;
    for (let i = windows.length - 2; i >= 0; i--) {
      back = await kit.call('documents:window', { resultId: back.resultId, direction: 'previous', pageSize: 1_000 });
      expect(ids(back)).toEqual(ids(windows[i]!));
    }
    expect(back.window).toMatchObject({ start: 0, placedBy: 'row' });
    // A window takes the session's whole budget: the older windows were dropped to make room.
    expect(await kit.fail('documents:rows', { resultId: windows[0]!.resultId, offset: 0, limit: 1 })).toMatchObject({ code: 'inspector/not-found' });
  });

  it('keeps its place by _id when rows before it were inserted and deleted between two windows', async () => {
    kit = await withOrders(100);
    const first = await kit.call('documents:query', { statement: 'SELECT * FROM orders', pageSize: 1_000 });
    const lastKept = first.total - 1;
    // The last kept row and a few before it go; rows that sort before the window's end arrive.
    await kit.sync.store.execute(`DELETE FROM orders WHERE n >= ${lastKept - 3} AND n <= ${lastKept}`);
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a-new', n: -1 }, b: { _id: `${id(5)}-new`, n: -2 } });
    const next = await kit.call('documents:window', { resultId: first.resultId, direction: 'next', pageSize: 1_000 });
    // It starts right after the last row of the first window that is still there: nothing skipped, nothing twice.
    expect(next.rows[0]).toEqual({ _id: id(lastKept + 1), n: lastKept + 1 });
    expect(next.window).toMatchObject({ statementRows: 98, placedBy: 'row', start: lastKept - 4 + 2 + 1 });
  });

  it('places the window by position when its rows carry no _id (a projection), and says so', async () => {
    kit = await withOrders(100);
    const first = await kit.call('documents:query', { statement: 'SELECT n FROM orders ORDER BY n', pageSize: 1_000 });
    expect(first.truncated).toBe(true);
    const next = await kit.call('documents:window', { resultId: first.resultId, direction: 'next', pageSize: 1_000 });
    expect(next.window).toMatchObject({ start: first.total, placedBy: 'offset' });
    expect(next.rows[0]).toEqual({ n: first.total });
  });

  it('runs the statement again with its arguments', async () => {
    kit = await withOrders(200);
    const first = await kit.call('documents:query', { statement: 'SELECT * FROM orders WHERE n >= :min', args: { min: 100 }, pageSize: 1_000 });
    expect(first.window).toMatchObject({ statementRows: 100 });
    const next = await kit.call('documents:window', { resultId: first.resultId, direction: 'next' });
    expect(next.rows[0]).toEqual({ _id: id(100 + first.total), n: 100 + first.total });
    expect(next.window!.statementRows).toBe(100);
  });

  it('answers the first window for previous from the first, and no rows past the last', async () => {
    kit = await withOrders(60);
    const first = await kit.call('documents:query', { statement: 'SELECT * FROM orders', pageSize: 1_000 });
    const again = await kit.call('documents:window', { resultId: first.resultId, direction: 'previous', pageSize: 1_000 });
    expect(ids(again)).toEqual(ids(first));
    expect(again.window).toMatchObject({ start: 0, placedBy: 'start' });
    const second = await kit.call('documents:window', { resultId: again.resultId, direction: 'next', pageSize: 1_000 });
    expect(second.window!.start + second.total).toBe(60);
    const past = await kit.call('documents:window', { resultId: second.resultId, direction: 'next' });
    expect(past).toMatchObject({ total: 0, rows: [], truncated: true, window: { start: 60, statementRows: 60 } });
  });

  it('takes the same window again for a refresh, from its first row still there', async () => {
    kit = await withOrders(100);
    const first = await kit.call('documents:query', { statement: 'SELECT * FROM orders', pageSize: 1_000 });
    const second = await kit.call('documents:window', { resultId: first.resultId, direction: 'next', pageSize: 1_000 });
    const start = second.window!.start;
    await kit.sync.store.execute(`DELETE FROM orders WHERE n = ${start}`);
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a-new', n: -1 } });
    const again = await kit.call('documents:window', { resultId: second.resultId, direction: 'current', pageSize: 1_000 });
    expect(again.rows[0]).toEqual({ _id: id(start + 1), n: start + 1 });
    expect(again.window).toMatchObject({ start: start + 1, placedBy: 'row' });
    const firstAgain = await kit.call('documents:window', {
      resultId: (await kit.call('documents:query', { statement: 'SELECT * FROM orders' })).resultId,
      direction: 'current',
    });
    expect(firstAgain.rows[0]).toEqual({ _id: 'a-new', n: -1 });
    expect(firstAgain.window).toMatchObject({ start: 0, placedBy: 'start' });
  });

  it('refuses bad input naming the field, and an unknown result as not found', async () => {
    kit = await withOrders(3);
    const cases: [unknown, string][] = [
      [{ direction: 'next' }, 'resultId'],
      [{ resultId: 'r' }, 'direction'],
      [{ resultId: 'r', direction: 'sideways' }, 'direction'],
      [{ resultId: 'r', direction: 'next', pageSize: 0 }, 'pageSize'],
      [{ resultId: 'r', direction: 'next', offset: 3 }, 'offset'],
    ];
    for (const [input, field] of cases) {
      const error = await kit.fail('documents:window', input);
      expect([error.code, error.message.split(':')[0]]).toEqual(['inspector/bad-request', field]);
    }
    expect(await kit.fail('documents:window', { resultId: 'never-given', direction: 'next' })).toMatchObject({ code: 'inspector/not-found' });
  });
});
