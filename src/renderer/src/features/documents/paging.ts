/**
 * A SELECT's rows as the inspector holds them: the peer keeps the whole result, the inspector a
 * bounded set of pages fetched with `documents:rows` as the table scrolls (the least recently
 * used pages are dropped, never one on screen). A result of 100,000 rows thus costs a few
 * thousand rows of memory and a constant DOM. Pure.
 */
import type { JsonObject } from '../../../../shared/json.ts';

/** Rows per `documents:rows` page (and the first page a query answers). */
export const PAGE_SIZE = 200;
/** Pages kept at most (12,000 rows). */
export const MAX_PAGES_KEPT = 60;

export interface PageCache {
  readonly resultId: string;
  readonly total: number;
  readonly pageSize: number;
  readonly pages: ReadonlyMap<number, readonly JsonObject[]>;
  /** Page numbers, least recently stored first. */
  readonly order: readonly number[];
}

/** A cache holding the first page a query answered. */
export function createPageCache(resultId: string, total: number, firstRows: readonly JsonObject[], pageSize = PAGE_SIZE): PageCache {
  const pages = new Map<number, readonly JsonObject[]>();
  if (total > 0) pages.set(0, firstRows.slice(0, pageSize));
  return { resultId, total, pageSize, pages, order: total > 0 ? [0] : [] };
}

export function pageOf(cache: Pick<PageCache, 'pageSize'>, index: number): number {
  return Math.floor(index / cache.pageSize);
}

/** The row at `index`, or undefined while its page is not here. */
export function rowAt(cache: PageCache, index: number): JsonObject | undefined {
  return cache.pages.get(pageOf(cache, index))?.[index % cache.pageSize];
}

/** Page numbers covering rows `start` to `end` (inclusive), within the result. */
export function pagesInRange(cache: Pick<PageCache, 'pageSize' | 'total'>, start: number, end: number): number[] {
  if (cache.total === 0) return [];
  const first = Math.max(0, Math.floor(start / cache.pageSize));
  const last = Math.min(Math.ceil(cache.total / cache.pageSize) - 1, Math.floor(Math.max(start, end) / cache.pageSize));
  const pages: number[] = [];
  for (let page = first; page <= last; page++) pages.push(page);
  return pages;
}

/** Pages of the range that are neither here nor on their way. */
export function missingPages(cache: PageCache, start: number, end: number, inFlight: ReadonlySet<number>): number[] {
  return pagesInRange(cache, start, end).filter((page) => !cache.pages.has(page) && !inFlight.has(page));
}

/** The cache with a page stored; beyond `maxPages`, the least recently stored pages not in `keep` go. */
export function withPage(
  cache: PageCache,
  page: number,
  rows: readonly JsonObject[],
  keep: ReadonlySet<number> = new Set(),
  maxPages = MAX_PAGES_KEPT,
): PageCache {
  const pages = new Map(cache.pages);
  pages.set(page, rows);
  const order = [...cache.order.filter((p) => p !== page), page];
  while (pages.size > maxPages) {
    const victim = order.find((p) => !keep.has(p) && p !== page);
    if (victim === undefined) break;
    order.splice(order.indexOf(victim), 1);
    pages.delete(victim);
  }
  return { ...cache, pages, order };
}

/** Rows loaded now, for the JSON copy of what is on screen. */
export function loadedRows(cache: PageCache, start: number, end: number): JsonObject[] {
  const rows: JsonObject[] = [];
  for (let i = Math.max(0, start); i <= Math.min(end, cache.total - 1); i++) {
    const row = rowAt(cache, i);
    if (row !== undefined) rows.push(row);
  }
  return rows;
}
