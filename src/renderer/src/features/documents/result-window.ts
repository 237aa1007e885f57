/**
 * How the results bar names a truncated result's window: which rows of how many are shown, and
 * the limit that cut them (`first 83,503 of 100,000 rows`, `limit 64 MB per result`). Pure.
 */
import type { ResultWindow } from '../../../../shared/inspector/documents.ts';
import { formatBytes, formatCount } from '../../ui/format.ts';

export interface WindowSummary {
  /** `first 83,503 of 100,000 rows`, `rows 83,504–100,000 of 100,000`. */
  readonly rows: string;
  /** `limit 64 MB per result` (bytes) or `limit 250,000 rows per result`. */
  readonly limit: string;
  readonly hasPrevious: boolean;
  readonly hasNext: boolean;
}

export function windowSummary(window: ResultWindow, kept: number): WindowSummary {
  const of = `of ${formatCount(window.statementRows)} rows`;
  const rows =
    window.start === 0
      ? `first ${formatCount(kept)} ${of}`
      : kept === 0
        ? `no rows after row ${formatCount(window.start)} ${of}`
        : `rows ${formatCount(window.start + 1)}–${formatCount(window.start + kept)} ${of}`;
  const limit = window.cutBy === 'rows' ? `limit ${formatCount(window.limit.rows)} rows per result` : `limit ${formatBytes(window.limit.bytes)} per result`;
  return { rows, limit, hasPrevious: window.start > 0, hasNext: window.start + kept < window.statementRows };
}
