/** The columns of a result table: `_id` first, then fields in the order they first appear; and their widths. Pure. */
import type { JsonObject } from '../../../../shared/json.ts';

/** Columns shown at most; the rest of a row is in its JSON. */
export const MAX_COLUMNS = 60;

/** Adds the fields of `rows` not yet in `columns`, in the order they appear. Returns `columns` itself when nothing is new. */
export function extendColumns(columns: readonly string[], rows: readonly JsonObject[], max = MAX_COLUMNS): readonly string[] {
  const known = new Set(columns);
  const added: string[] = [];
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (known.has(key) || known.size >= max) continue;
      known.add(key);
      added.push(key);
    }
  }
  if (added.length === 0) return columns;
  const all = [...columns, ...added];
  const id = all.indexOf('_id');
  if (id > 0) {
    all.splice(id, 1);
    all.unshift('_id');
  }
  return all;
}

const CHAR_PX = 7.2;
const MIN_WIDTH = 72;
const MAX_WIDTH = 340;

/** A width per column from its name and sampled values: wide enough for most, never huge. */
export function columnWidths(columns: readonly string[], sample: readonly JsonObject[]): Record<string, number> {
  const widths: Record<string, number> = {};
  for (const column of columns) {
    const lengths = sample.slice(0, 100).map((row) => displayLength(row[column]));
    lengths.sort((a, b) => a - b);
    const typical = lengths[Math.floor(lengths.length * 0.9)] ?? 0;
    const chars = Math.max(column.length + 2, typical);
    widths[column] = Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, chars * CHAR_PX + 20)));
  }
  return widths;
}

function displayLength(value: unknown): number {
  if (value === undefined) return 1;
  if (typeof value === 'string') return value.length;
  try {
    return JSON.stringify(value).length;
  } catch {
    return 10;
  }
}
