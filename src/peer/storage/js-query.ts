/**
 * Runs a document query in JavaScript with the reference evaluator: the in-memory storage does
 * all its queries this way, and SQLite falls back to it for the rare condition it cannot express.
 */
import type { JsonObject } from '../../shared/json.ts';
import { evaluate, matches, withInListIndex } from '../dql/evaluate.ts';
import { compareTotal, type Value } from '../dql/values.ts';
import type { DocumentQuery } from './types.ts';

export function runQuery<T>(rows: Iterable<T>, valueOf: (row: T) => JsonObject, keyOf: (row: T) => Buffer, query: DocumentQuery): T[] {
  const kept: { row: T; key: Buffer; sort: Value[] }[] = [];
  withInListIndex(() => {
    const budget = query.budget;
    for (const row of rows) {
      budget?.check();
      const value = valueOf(row);
      if (!matches(query.where, value, query.params)) continue;
      kept.push({ row, key: keyOf(row), sort: query.orderBy.map((t) => evaluate(t.expr, { doc: value, params: query.params })) });
    }
  });
  kept.sort((a, b) => {
    for (let i = 0; i < query.orderBy.length; i++) {
      const c = compareTotal(a.sort[i] as Value, b.sort[i] as Value);
      if (c !== 0) return query.orderBy[i]?.direction === 'DESC' ? -c : c;
    }
    return Buffer.compare(a.key, b.key);
  });
  const end = query.limit === undefined ? undefined : query.offset + query.limit;
  return kept.slice(query.offset, end).map((k) => k.row);
}
