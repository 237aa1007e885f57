/**
 * Deterministic SQL functions through which the SQLite translation reaches the evaluator's own
 * operators, so that what SQL cannot express natively still has the reference semantics. Values
 * travel as JSON text; SQL NULL is MISSING.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { JsonObject } from '../../shared/json.ts';
import { comparison, inList, like, negate, operate } from '../dql/evaluate.ts';
import { SCALAR_FUNCTIONS } from '../dql/functions.ts';
import { sortKey } from '../dql/sort-key.ts';
import { MISSING, type Value } from '../dql/values.ts';

function fromSql(v: unknown): Value {
  return v === null || v === undefined ? MISSING : (JSON.parse(v as string) as Value);
}

function toSql(v: Value): string | null {
  return v === MISSING ? null : JSON.stringify(v);
}

function bool(t: boolean | null): number | null {
  return t === null ? null : t ? 1 : 0;
}

export function registerSqlFunctions(db: BetterSqlite3.Database): void {
  const options = { deterministic: true, varargs: false } as const;
  db.function('dql_cmp', options, (op: unknown, a: unknown, b: unknown) => bool(comparison(op as string, fromSql(a), fromSql(b))));
  db.function('dql_in', options, (needle: unknown, haystack: unknown) => bool(inList(fromSql(needle), fromSql(haystack))));
  db.function('dql_like', options, (ci: unknown, v: unknown, p: unknown) => bool(like(fromSql(v), fromSql(p), ci === 1)));
  db.function('dql_sortkey', options, (v: unknown) => sortKey(fromSql(v)));
  db.function('dql_apply', { deterministic: true, varargs: true }, (name: unknown, ...args: unknown[]) => {
    const values = args.map(fromSql);
    if (name === 'neg' || name === 'pos') return toSql(negate(name === 'neg' ? '-' : '+', values[0] as Value));
    const fn = Object.hasOwn(SCALAR_FUNCTIONS, name as string) ? SCALAR_FUNCTIONS[name as string] : undefined;
    if (fn !== undefined) return toSql(fn.fn(values));
    return toSql(operate(name as string, values[0] as Value, values[1] as Value));
  });
  db.function('dql_array', { deterministic: true, varargs: true }, (...items: unknown[]) =>
    JSON.stringify(items.map((i) => (i === null ? null : JSON.parse(i as string)))),
  );
  db.function('dql_object', { deterministic: true, varargs: true }, (...kv: unknown[]) => {
    const out: JsonObject = {};
    for (let i = 0; i + 1 < kv.length; i += 2) if (kv[i + 1] !== null) out[kv[i] as string] = JSON.parse(kv[i + 1] as string);
    return JSON.stringify(out);
  });
}
