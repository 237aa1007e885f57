/**
 * Secondary indexes as the storage knows them: which paths of which collection, in which
 * direction, and the plan a query gets (`EXPLAIN`). Indexes are local to a peer: they are not
 * replicated, and change which documents a query looks at, never which it finds.
 */
import type { PathSegment } from '../dql/ast.ts';

/** One key of an index: a document path and its direction. */
export interface IndexKey {
  readonly path: readonly PathSegment[];
  readonly direction: 'ASC' | 'DESC';
}

/** A secondary index: a name unique within its collection, and its keys in order. */
export interface IndexDefinition {
  readonly collection: string;
  readonly name: string;
  readonly keys: readonly IndexKey[];
}

/** Which storage operation a plan is of: reading documents, counting them, or evicting them. */
export type PlanOperation = 'find' | 'count' | 'evict';

/**
 * How the storage runs a query, in a stable shape (docs/dql.md "EXPLAIN"):
 * - `access`: `index` (a secondary index, named in `index`), `id` (the `_id` key), `count` (the
 *   collection's live count, kept by the store: COUNT(*) without a condition), `scan` (every document of the collection);
 * - `sorted`: whether ORDER BY needs a sort after reading (false when the index gives the order);
 * - `sql`: the SQL the store runs, or null where JavaScript filters (the in-memory storage);
 * - `details`: SQLite's own plan lines (`EXPLAIN QUERY PLAN`), empty where there is no SQL.
 */
export interface StoragePlan {
  readonly access: 'index' | 'id' | 'count' | 'scan';
  readonly index: string | null;
  readonly sorted: boolean;
  readonly sql: string | null;
  readonly details: readonly string[];
}
