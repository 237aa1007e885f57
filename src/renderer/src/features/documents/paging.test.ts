import { describe, expect, it } from 'vitest';
import { createPageCache, loadedRows, missingPages, pagesInRange, rowAt, withPage } from './paging.ts';

const rows = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ _id: from + i }));

describe('the page cache of a result', () => {
  it('holds the first page a query answered', () => {
    const cache = createPageCache('r', 100_000, rows(0, 200));
    expect(rowAt(cache, 0)).toEqual({ _id: 0 });
    expect(rowAt(cache, 199)).toEqual({ _id: 199 });
    expect(rowAt(cache, 200)).toBeUndefined();
  });

  it('covers a range with pages, within the result', () => {
    const cache = createPageCache('r', 1_000, rows(0, 200));
    expect(pagesInRange(cache, 150, 450)).toEqual([0, 1, 2]);
    expect(pagesInRange(cache, 900, 5_000)).toEqual([4]);
    expect(pagesInRange(createPageCache('e', 0, []), 0, 10)).toEqual([]);
  });

  it('asks only for pages neither here nor on their way', () => {
    const cache = createPageCache('r', 100_000, rows(0, 200));
    expect(missingPages(cache, 0, 1_000, new Set([2]))).toEqual([1, 3, 4, 5]);
  });

  it('stores pages and finds rows deep in the result', () => {
    const cache = withPage(createPageCache('r', 100_000, rows(0, 200)), 499, rows(99_800, 200));
    expect(rowAt(cache, 99_999)).toEqual({ _id: 99_999 });
  });

  it('drops the least recently stored pages beyond the bound, but never one to keep', () => {
    let cache = createPageCache('r', 100_000, rows(0, 200));
    for (let page = 1; page <= 5; page++) cache = withPage(cache, page, rows(page * 200, 200), new Set([0]), 3);
    expect([...cache.pages.keys()].sort((a, b) => a - b)).toEqual([0, 4, 5]);
    expect(cache.order).toEqual([0, 4, 5]);
  });

  it('keeps memory bounded while scrolling through 100,000 rows', () => {
    let cache = createPageCache('r', 100_000, rows(0, 200));
    for (let page = 1; page < 500; page++) cache = withPage(cache, page, rows(page * 200, 200), new Set([page]));
    expect(cache.pages.size).toBe(60);
    expect(rowAt(cache, 99_999)).toEqual({ _id: 99_999 });
    expect(rowAt(cache, 0)).toBeUndefined();
  });

  it('lists the rows loaded in a range, skipping those not here', () => {
    const cache = withPage(createPageCache('r', 1_000, rows(0, 200)), 2, rows(400, 200));
    expect(loadedRows(cache, 198, 401).map((r) => r._id)).toEqual([198, 199, 400, 401]);
  });
});
