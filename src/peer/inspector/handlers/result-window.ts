/**
 * Windows over a SELECT result too large for the result cache's budget (result-cache.ts): the
 * peer keeps one window of it at a time, and `documents:window` moves to the next or the
 * previous window by running the statement again.
 *
 * Where a new window starts, with writes in between (docs/inspector-api.md, "Results past the
 * limit"):
 * - The next window starts right after the last row of the current window that the statement
 *   still returns, found by its `_id`; the previous window ends right before the first such row.
 *   Without ORDER BY a result is in `_id` order, which no write changes, so this is keyset paging:
 *   no row that was there throughout is skipped or shown twice, whatever was inserted or deleted
 *   meanwhile. With ORDER BY the same holds unless a write changes a sorted field: a row that
 *   moves across the boundary can be skipped or shown again.
 * - The same window again (a refresh) starts at the first row of the window that the statement
 *   still returns.
 * - When no row of the window can be found again (a projection without `_id`, or every row of
 *   the window was deleted), the window is placed by position (`offset`): rows inserted or
 *   deleted before it shift what it shows by as many rows.
 *
 * Pure: no I/O, no clock.
 */
import type { JsonObject } from '../../../shared/json.ts';

export type WindowDirection = 'forward' | 'backward';

/** How a window was placed: a fresh run (`start`), by a row of the previous window (`row`), or by position (`offset`). */
export type WindowPlacement = 'start' | 'row' | 'offset';

export interface WindowRequest {
  /** Forward: the first row taken; backward: the row after the last one taken. */
  readonly from: number;
  readonly direction: WindowDirection;
  readonly placedBy: WindowPlacement;
}

export const FROM_START: WindowRequest = { from: 0, direction: 'forward', placedBy: 'start' };

export interface WindowBudget {
  readonly rows: number;
  readonly bytes: number;
}

export interface FittedWindow {
  /** Index of the first row kept in the statement's rows. */
  readonly start: number;
  readonly count: number;
  readonly bytes: number;
  /** Which limit stopped the window short of the result's end (forward) or start (backward), if one did. */
  readonly cutBy: 'bytes' | 'rows' | null;
}

/** What a row costs beyond its JSON text (the array slot, the object), roughly. */
const ROW_OVERHEAD_BYTES = 64;

/** What one kept row counts against the byte budget: its JSON text as UTF-16, and its overhead. */
export function rowBytes(row: JsonObject): number {
  return ROW_OVERHEAD_BYTES + 2 * (JSON.stringify(row)?.length ?? 0);
}

/** The rows from `request.from` on (or before it, backward) that fit the budget. */
export function fitWindow(rows: readonly JsonObject[], request: WindowRequest, budget: WindowBudget): FittedWindow {
  const step = request.direction === 'forward' ? 1 : -1;
  const from = Math.max(0, Math.min(rows.length, request.from));
  let at = request.direction === 'forward' ? from : from - 1;
  let bytes = 0;
  let count = 0;
  let cutBy: FittedWindow['cutBy'] = null;
  for (; at >= 0 && at < rows.length; at += step) {
    if (count >= budget.rows) {
      cutBy = 'rows';
      break;
    }
    const size = rowBytes(rows[at] as JsonObject);
    if (bytes + size > budget.bytes) {
      cutBy = 'bytes';
      break;
    }
    bytes += size;
    count++;
  }
  return { start: request.direction === 'forward' ? from : from - count, count, bytes, cutBy };
}

const idKey = (row: JsonObject): string | undefined => (Object.hasOwn(row, '_id') ? JSON.stringify(row['_id']) : undefined);

/** Each `_id` of `rows` (as JSON text) and its index; the last one wins should an id repeat. */
function indexById(rows: readonly JsonObject[]): Map<string, number> {
  const index = new Map<string, number>();
  rows.forEach((row, i) => {
    const key = idKey(row);
    if (key !== undefined) index.set(key, i);
  });
  return index;
}

/** The window as kept: its rows, and where it started in the statement's rows then. */
export interface KeptWindow {
  readonly rows: readonly JsonObject[];
  readonly start: number;
}

/** Where the window after `current` starts in `rows`, the statement's rows now. */
export function placeAfter(current: KeptWindow, rows: readonly JsonObject[]): WindowRequest {
  const ids = indexById(rows);
  for (let i = current.rows.length - 1; i >= 0; i--) {
    const key = idKey(current.rows[i] as JsonObject);
    const at = key === undefined ? undefined : ids.get(key);
    if (at !== undefined) return { from: at + 1, direction: 'forward', placedBy: 'row' };
  }
  return { from: Math.min(rows.length, current.start + current.rows.length), direction: 'forward', placedBy: 'offset' };
}

/** Where `current` starts again in `rows` (a refresh): at its first row the statement still returns. */
export function placeAgain(current: KeptWindow, rows: readonly JsonObject[]): WindowRequest {
  const before = placeBefore(current, rows);
  return { ...before, direction: 'forward' };
}

/** Where the window before `current` ends (exclusive) in `rows`, the statement's rows now. */
export function placeBefore(current: KeptWindow, rows: readonly JsonObject[]): WindowRequest {
  const ids = indexById(rows);
  for (const row of current.rows) {
    const key = idKey(row);
    const at = key === undefined ? undefined : ids.get(key);
    if (at !== undefined) return { from: at, direction: 'backward', placedBy: 'row' };
  }
  return { from: Math.min(rows.length, current.start), direction: 'backward', placedBy: 'offset' };
}
