/**
 * What changed between two results of a live query. Rows with an `_id` are matched by it
 * (inserted, deleted, updated); rows without one can only be compared as a whole.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { sortKey } from '../dql/sort-key.ts';

export interface ResultSnapshot {
  readonly items: JsonObject[];
  /** The items as JSON, to tell "nothing changed" in one comparison. */
  readonly json: string;
  /** Row JSON by `_id` key, when every row has an `_id`. */
  readonly byId: ReadonlyMap<string, { id: JsonValue; json: string }> | undefined;
}

export interface ResultChanges {
  readonly inserted: JsonValue[];
  readonly deleted: JsonValue[];
  readonly updated: JsonValue[];
}

export function snapshot(items: JsonObject[]): ResultSnapshot {
  const rows = items.map((item) => JSON.stringify(item));
  let byId: Map<string, { id: JsonValue; json: string }> | undefined = new Map();
  for (let i = 0; i < items.length; i++) {
    const id = (items[i] as JsonObject)._id;
    if (id === undefined) {
      byId = undefined;
      break;
    }
    byId.set(sortKey(id).toString('latin1'), { id, json: rows[i] as string });
  }
  return { items, json: `[${rows.join(',')}]`, byId };
}

export function diff(before: ResultSnapshot | undefined, after: ResultSnapshot): ResultChanges {
  if (after.byId === undefined) return { inserted: [], deleted: [], updated: [] };
  const old = before?.byId ?? new Map<string, { id: JsonValue; json: string }>();
  const inserted: JsonValue[] = [];
  const updated: JsonValue[] = [];
  for (const [key, row] of after.byId) {
    const prev = old.get(key);
    if (prev === undefined) inserted.push(row.id);
    else if (prev.json !== row.json) updated.push(row.id);
  }
  const deleted: JsonValue[] = [];
  for (const [key, row] of old) if (!after.byId.has(key)) deleted.push(row.id);
  return { inserted, deleted, updated };
}
