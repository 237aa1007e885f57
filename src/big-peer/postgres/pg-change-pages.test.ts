/**
 * The known ranges of the change page cache, without PostgreSQL: which pages are cut from them
 * and which are left to a read. change-pages.net.test.ts compares the pages cut with real reads.
 */
import { describe, expect, it } from 'vitest';
import type { ChangeQuery } from '../../peer/host.ts';
import { ChangePageCache, KNOWN_ROWS, rowsOfJson } from './pg-change-pages.ts';

/** A row as the read gives it: [collection, id (sort key), body, meta, deleted, txn_id]. */
function row(collection: string, id: string, txnId: number, deleted = false): unknown[] {
  return [collection, Buffer.from(id, 'utf8'), JSON.stringify({ _id: id }), '{}', deleted, txnId];
}

const query = (collection: string, afterTxnId: number, uptoTxnId: number, limit: number, cursor?: ChangeQuery['cursor']): ChangeQuery => ({
  collection,
  afterTxnId,
  uptoTxnId,
  limit,
  ...(cursor === undefined ? {} : { cursor }),
});

describe('the known ranges of the change page cache', () => {
  it('cuts a page inside a known range in (txn_id, id) order, with the next cursor a read would give', () => {
    const cache = new ChangePageCache();
    cache.know(['a'], 4, 6, [row('a', 'x', 5), row('a', 'y', 5, true), row('a', 'w', 6)]);
    const first = cache.get(query('a', 4, 6, 2));
    expect(first?.documents.map((d) => [d.id, d.value === null, d.txnId])).toEqual([
      ['x', false, 5],
      ['y', true, 5],
    ]);
    expect(first?.next).toEqual({ txnId: 5, key: Buffer.from('y').toString('hex') });
    const second = cache.get(query('a', 4, 6, 2, first?.next));
    expect(second?.documents.map((d) => d.id)).toEqual(['w']);
    expect(second?.next).toBeUndefined();
    // A range inside it: only txn_id 6.
    expect(cache.get(query('a', 5, 6, 10))?.documents.map((d) => d.id)).toEqual(['w']);
    expect(cache.pagesCut).toBe(3);
  });

  it('answers a collection of the commit with no rows as empty, and leaves other collections and pages outside the range to a read', () => {
    const cache = new ChangePageCache();
    cache.know(['a', 'b'], 4, 6, [row('a', 'x', 5)]);
    expect(cache.get(query('b', 4, 6, 500))).toEqual({ documents: [], next: undefined });
    expect(cache.get(query('c', 4, 6, 500))).toBeUndefined();
    expect(cache.get(query('a', 3, 6, 500))).toBeUndefined(); // starts before the range
    expect(cache.get(query('a', 4, 7, 500))).toBeUndefined(); // ends after it
    cache.clear();
    expect(cache.get(query('a', 4, 6, 500))).toBeUndefined();
  });

  it('knows of a read cut at its limit the collections that came whole and a prefix of the one cut short, and nothing of the others', () => {
    const cache = new ChangePageCache();
    const rows = [row('a', 'a0', 2), row('a', 'a1', 2)];
    for (let i = 0; rows.length <= KNOWN_ROWS; i++) rows.push(row('b', `b${String(i).padStart(5, '0')}`, 2));
    cache.know(['a', 'b', 'c'], 1, 2, rows);
    expect(cache.get(query('a', 1, 2, 500))?.documents).toHaveLength(2);
    expect(cache.get(query('c', 1, 2, 500))).toBeUndefined(); // may sort after the cut
    const first = cache.get(query('b', 1, 2, 500));
    expect(first?.documents).toHaveLength(500);
    const second = cache.get(query('b', 1, 2, 500, first?.next));
    expect(second?.documents).toHaveLength(500);
    // The third page would need rows past the prefix (1,023 of `b` came).
    expect(cache.get(query('b', 1, 2, 500, second?.next))).toBeUndefined();
  });

  it('takes rows from JSON only when every one has the shape of a row', () => {
    expect(rowsOfJson(JSON.stringify([['a', '78', '{"_id":"x"}', '{}', false, 5]]))).toEqual([['a', Buffer.from('x'), '{"_id":"x"}', '{}', false, 5]]);
    expect(rowsOfJson([['a', '78', '{}', '{}', 'no', 5]])).toBeUndefined();
    expect(rowsOfJson('not json')).toBeUndefined();
    expect(rowsOfJson(undefined)).toBeUndefined();
  });
});
