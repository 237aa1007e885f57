/**
 * How many local documents a subscription query (or a whole subscription set) matches now,
 * counted through the store's reader with replication's compiled queries: a condition, and for
 * a query with LIMIT or OFFSET, its window. A document matched by several queries of one set
 * counts once.
 */
import type { JsonObject } from '../../../shared/json.ts';
import type { SubscriptionQuery, SubscriptionSetShape } from '../../../shared/subscriptions.ts';
import type { Expr } from '../../dql/ast.ts';
import { compileSubscriptions, safeMatches, windowQuery, type CompiledQuery } from '../../replication/matching.ts';
import type { DocumentQuery, StorageReader } from '../../storage/types.ts';

function all(collection: string, where: Expr | undefined): DocumentQuery {
  return { collection, where, params: {}, orderBy: [], limit: undefined, offset: 0 };
}

/** Counts with the storage's own evaluation; a condition it cannot evaluate is checked document by document, as replication does. */
function countWhere(reader: StorageReader, collection: string, where: Expr | undefined): number {
  try {
    return reader.count(all(collection, where));
  } catch {
    return reader.findValues(all(collection, undefined)).filter((v) => safeMatches(where, v)).length;
  }
}

function windowOf(reader: StorageReader, q: CompiledQuery): JsonObject[] {
  try {
    return reader.findValues(windowQuery(q));
  } catch {
    return [];
  }
}

/** Documents one query matches now (its window, for LIMIT/OFFSET). */
export function countQuery(reader: StorageReader, q: CompiledQuery): number {
  if (!q.windowed) return countWhere(reader, q.collection, q.where);
  const matching = countWhere(reader, q.collection, q.where);
  const offset = q.query.offset ?? 0;
  return Math.max(0, Math.min(q.query.limit ?? Number.POSITIVE_INFINITY, matching - offset));
}

/** Compiles one query of a collection (throws a ParseError when its condition does not parse). */
export function compileOne(collection: string, query: SubscriptionQuery): CompiledQuery {
  const compiled = compileSubscriptions({ everything: false, queries: { [collection]: [query] } });
  return compiled.byCollection.get(collection)?.[0] as CompiledQuery;
}

/** Documents of one collection that any of the queries matches, each once. */
export function countUnion(reader: StorageReader, collection: string, queries: readonly CompiledQuery[]): number {
  const plain = queries.filter((q) => !q.windowed);
  let total = 0;
  if (plain.some((q) => q.where === undefined)) total = countWhere(reader, collection, undefined);
  else if (plain.length > 0) {
    const either = plain.map((q) => q.where as Expr).reduce((left, right): Expr => ({ kind: 'binary', op: 'OR', left, right, pos: left.pos }));
    total = countWhere(reader, collection, either);
  }
  const extra = new Set<string>();
  for (const q of queries.filter((w) => w.windowed)) {
    for (const value of windowOf(reader, q)) {
      if (plain.some((p) => safeMatches(p.where, value))) continue;
      extra.add(JSON.stringify(value._id ?? null));
    }
  }
  return total + extra.size;
}

/** Per-query counts of a set and the count of its union (every local document for `everything`). */
export function countSet(
  reader: StorageReader,
  set: SubscriptionSetShape,
  everything: () => number,
): { perQuery: { collection: string; query: SubscriptionQuery; count: number }[]; total: number } {
  if (set.everything) return { perQuery: [], total: everything() };
  const compiled = compileSubscriptions(set);
  const perQuery: { collection: string; query: SubscriptionQuery; count: number }[] = [];
  let total = 0;
  for (const [collection, queries] of compiled.byCollection) {
    for (const q of queries) perQuery.push({ collection, query: q.query, count: countQuery(reader, q) });
    total += countUnion(reader, collection, queries);
  }
  return { perQuery, total };
}
