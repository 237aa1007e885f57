/**
 * Runs a SELECT: the storage filters, orders and limits where it can (in SQLite); projection,
 * grouping, aggregates and DISTINCT happen here on what it returns.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { CallExpr, Expr, OrderTerm, Projection, SelectStatement } from '../dql/ast.ts';
import { evaluate, type EvalEnv, type Params } from '../dql/evaluate.ts';
import { aggregate, type AggregateName } from '../dql/functions.ts';
import { sortKey } from '../dql/sort-key.ts';
import { MISSING, compareTotal, type Value } from '../dql/values.ts';
import { QueryEvaluationError } from '../errors.ts';
import type { DocumentQuery, StorageReader } from '../storage/types.ts';
import type { PreparedStatement } from './prepare.ts';
import type { Budget } from '../budget.ts';

/** The value of LIMIT or OFFSET: a non-negative integer (one beyond 2^53 counts as 2^53 - 1). */
export function countOf(expr: Expr | undefined, clause: string, params: Params): number | undefined {
  if (expr === undefined) return undefined;
  const v = evaluate(expr, { doc: {}, params });
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new QueryEvaluationError(`${clause} must be a non-negative integer, found ${v === MISSING ? 'nothing' : JSON.stringify(v)}`);
  }
  // No collection holds 2^53 documents, and SQLite takes no LIMIT beyond a 64-bit integer.
  return Math.min(v, Number.MAX_SAFE_INTEGER);
}

/** The documents a statement selects (an EVICT's, a subscription's SELECT), as a storage query with its LIMIT and OFFSET evaluated. */
export function documentQueryOf(
  ast: {
    readonly collection: string;
    readonly where: Expr | undefined;
    readonly orderBy: readonly OrderTerm[];
    readonly limit: Expr | undefined;
    readonly offset: Expr | undefined;
  },
  params: Params,
): DocumentQuery {
  return {
    collection: ast.collection,
    where: ast.where,
    params,
    orderBy: ast.orderBy,
    limit: countOf(ast.limit, 'LIMIT', params),
    offset: countOf(ast.offset, 'OFFSET', params) ?? 0,
  };
}

/** Output names: the alias, else a path's last field name, else `($n)` by position. */
export function projectionNames(projections: readonly Projection[]): string[] {
  return projections.map((p, i) => {
    if (p.kind === 'star') return '*';
    if (p.alias !== undefined) return p.alias;
    if (p.expr.kind === 'path') {
      const last = p.expr.segments[p.expr.segments.length - 1];
      if (typeof last === 'string') return last;
    }
    return `($${i + 1})`;
  });
}

function project(env: EvalEnv, projections: readonly Projection[], names: readonly string[]): JsonObject {
  const out: JsonObject = {};
  projections.forEach((p, i) => {
    if (p.kind === 'star') {
      Object.assign(out, env.doc);
      return;
    }
    const v = evaluate(p.expr, env);
    if (v !== MISSING) out[names[i] as string] = v;
  });
  return out;
}

// ORDER BY a projection's name (its alias, or a path's last field name) orders by that
// projection's expression, as in grouped queries.
function resolveAliases(orderBy: readonly OrderTerm[], projections: readonly Projection[], names: readonly string[]): OrderTerm[] {
  return orderBy.map((t) => {
    if (t.expr.kind !== 'path' || t.expr.segments.length !== 1) return t;
    const i = names.indexOf(t.expr.segments[0] as string);
    const p = i >= 0 ? projections[i] : undefined;
    return p?.kind === 'expr' ? { expr: p.expr, direction: t.direction } : t;
  });
}

function isCountStar(p: Projection): boolean {
  return p.kind === 'expr' && p.expr.kind === 'call' && p.expr.name === 'count' && p.expr.star && !p.expr.distinct;
}

function distinct(rows: JsonObject[]): JsonObject[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = sortKey(r).toString('latin1');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Does each row of this SELECT come from one matching document, counted from the first one?
 * Then its result can change only through a document that matches it now or is among those
 * it returned, which lets observers skip commits that cannot touch them.
 */
export function rowsFollowDocuments(prepared: PreparedStatement, params: Params): boolean {
  const ast = prepared.ast as SelectStatement;
  return !prepared.grouped && !ast.distinct && (countOf(ast.offset, 'OFFSET', params) ?? 0) === 0;
}

/**
 * Runs a SELECT. When `sourceIds` is given and the rows follow documents, it receives the
 * `_id` keys (sort keys, latin1) of the documents the rows came from. With a `budget`, it throws
 * `BudgetExceeded` once that is spent (checked between rows).
 */
export function runSelect(reader: StorageReader, prepared: PreparedStatement, params: Params, sourceIds?: Set<string>, budget?: Budget): JsonObject[] {
  const ast = prepared.ast as SelectStatement;
  const limit = countOf(ast.limit, 'LIMIT', params);
  const offset = countOf(ast.offset, 'OFFSET', params) ?? 0;
  const names = projectionNames(ast.projections);
  const starOnly = ast.projections.length === 1 && ast.projections[0]?.kind === 'star';
  const { shape, query } = selectStorageQuery(prepared, params, budget);

  if (shape === 'documents') {
    const values = reader.findValues(query);
    if (sourceIds !== undefined) for (const doc of values) sourceIds.add(sortKey(doc._id as JsonValue).toString('latin1'));
    return starOnly ? values : values.map((doc) => project({ doc, params }, ast.projections, names));
  }
  if (shape === 'distinct') {
    const values = reader.findValues(query);
    budget?.check();
    const rows = distinct(values.map((doc) => project({ doc, params }, ast.projections, names)));
    return rows.slice(offset, limit === undefined ? undefined : offset + limit);
  }
  // `SELECT COUNT(*) [AS n], … FROM c [WHERE …]`: counted by the storage, no document read.
  if (shape === 'count') {
    const n = reader.count(query);
    const row: JsonObject = {};
    names.forEach((name) => (row[name] = n));
    return [row].slice(offset, limit === undefined ? undefined : offset + limit);
  }
  return runGrouped(reader, prepared, ast, params, names, limit, offset, budget);
}

/**
 * What a SELECT asks of the storage: its documents in order and bounded (`documents`), all of
 * them for DISTINCT (`distinct`) or grouping (`grouped`), or only how many (`count`, for a
 * projection of nothing but COUNT(*)). EXPLAIN shows the plan of this query.
 */
export function selectStorageQuery(
  prepared: PreparedStatement,
  params: Params,
  budget?: Budget,
): { shape: 'documents' | 'distinct' | 'count' | 'grouped'; query: DocumentQuery } {
  const ast = prepared.ast as SelectStatement;
  const all: DocumentQuery = { collection: ast.collection, where: ast.where, params, orderBy: [], limit: undefined, offset: 0, budget };
  if (!prepared.grouped) {
    const orderBy = resolveAliases(ast.orderBy, ast.projections, projectionNames(ast.projections));
    if (ast.distinct) return { shape: 'distinct', query: { ...all, orderBy } };
    const limit = countOf(ast.limit, 'LIMIT', params);
    const offset = countOf(ast.offset, 'OFFSET', params) ?? 0;
    return { shape: 'documents', query: { ...all, orderBy, limit, offset } };
  }
  if (ast.groupBy.length === 0 && !ast.distinct && prepared.aggregates.length > 0 && ast.projections.every(isCountStar)) return { shape: 'count', query: all };
  return { shape: 'grouped', query: all };
}

function runGrouped(
  reader: StorageReader,
  prepared: PreparedStatement,
  ast: SelectStatement,
  params: Params,
  names: readonly string[],
  limit: number | undefined,
  offset: number,
  budget: Budget | undefined,
): JsonObject[] {
  const docs = reader.findValues({ collection: ast.collection, where: ast.where, params, orderBy: [], limit: undefined, offset: 0, budget });
  const groups = new Map<string, { key: Buffer; docs: JsonObject[] }>();
  for (const doc of docs) {
    budget?.check();
    const keyValues = ast.groupBy.map((g) => evaluate(g, { doc, params }));
    const key = Buffer.concat(keyValues.map((v) => sortKey(v)));
    const hex = key.toString('latin1');
    let group = groups.get(hex);
    if (group === undefined) groups.set(hex, (group = { key, docs: [] }));
    group.docs.push(doc);
  }
  // Aggregating without GROUP BY gives one row, also over no documents.
  if (ast.groupBy.length === 0 && groups.size === 0) groups.set('', { key: Buffer.alloc(0), docs: [] });

  const sorted = [...groups.values()].sort((a, b) => Buffer.compare(a.key, b.key));
  const rows = sorted.map((group) => {
    budget?.check();
    const aggregates = new Map<CallExpr, JsonValue>();
    for (const call of prepared.aggregates) {
      let values: Value[] = call.star ? group.docs : group.docs.map((doc) => evaluate(call.args[0] as Expr, { doc, params }));
      if (call.distinct) values = distinctValues(values);
      aggregates.set(call, aggregate(call.name as AggregateName, values, call.star));
    }
    const env: EvalEnv = { doc: group.docs[0] ?? {}, params, aggregates };
    const row = project(env, ast.projections, names);
    const sort = ast.orderBy.map((t) => {
      const alias = t.expr.kind === 'path' && t.expr.segments.length === 1 ? names.indexOf(t.expr.segments[0] as string) : -1;
      if (alias < 0) return evaluate(t.expr, env);
      const name = names[alias] as string;
      return Object.hasOwn(row, name) ? (row[name] as JsonValue) : MISSING; // a null value stays null
    });
    return { row, sort };
  });
  rows.sort((a, b) => {
    for (let i = 0; i < ast.orderBy.length; i++) {
      const c = compareTotal(a.sort[i] as Value, b.sort[i] as Value);
      if (c !== 0) return ast.orderBy[i]?.direction === 'DESC' ? -c : c;
    }
    return 0;
  });
  let out = rows.map((r) => r.row);
  if (ast.distinct) out = distinct(out);
  return out.slice(offset, limit === undefined ? undefined : offset + limit);
}

function distinctValues(values: Value[]): Value[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    if (v === null || v === MISSING) return true;
    const key = sortKey(v).toString('latin1');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
