/**
 * Secondary indexes on PostgreSQL (DQL `CREATE INDEX`, as on the small peer): one expression
 * index per DQL index, shared by every node, with a row in `secondary_indexes` naming it.
 *
 * Each key is the sort key of the path's value (`syncmesh_key`, migration 3), the expression
 * pg-translate.ts compares an indexed path by: so an index serves conditions on its paths
 * (equality, ranges, IN, IS NULL/MISSING, under NOT and OR too) and ORDER BY them, in the
 * cross-type order. Each index is partial, over one collection's live documents, and ends with
 * `id`, the ORDER BY tie-break, as on SQLite (sqlite-index-sql.ts).
 *
 * The index is built by a plain CREATE INDEX inside the store's write transaction, not
 * CONCURRENTLY (which cannot run in a transaction): it commits with its catalog row or not at
 * all. Meanwhile every node's writes wait, as they would for the cluster write lock the build
 * holds anyway; reads go on.
 */
import { createHash } from 'node:crypto';
import type { IndexDefinition, IndexKey } from '../../peer/host.ts';
import { indexKeyOf, pathKeySql, pgIdentifier } from './pg-translate.ts';
import { liveSql } from './pg-query-sql.ts';

/** PostgreSQL's name for a DQL index: unique per collection and name, within the 63 bytes an identifier holds. */
export function pgIndexName(collection: string, name: string): string {
  return `dql_${createHash('sha256')
    .update(JSON.stringify([collection, name]))
    .digest('hex')
    .slice(0, 32)}`;
}

/** The CREATE INDEX of a DQL index. @throws Untranslatable for a path or collection SQL cannot write. */
export function createIndexSql(pgName: string, index: IndexDefinition): string {
  const keys = index.keys.map((k) => `${pathKeySql(k.path)}${k.direction === 'DESC' ? ' DESC' : ''}`);
  return `CREATE INDEX ${pgIdentifier(pgName)} ON documents (${[...keys, 'id'].join(', ')}) WHERE ${liveSql(index.collection)}`;
}

/** A row of `secondary_indexes`: collection, name, keys (JSON). */
export type CatalogRow = [string, string, string];

export function definitionOf(row: CatalogRow): IndexDefinition {
  return { collection: row[0], name: row[1], keys: JSON.parse(row[2]) as IndexKey[] };
}

/** The paths the indexes hold, as `indexKeyOf` names them. */
export function indexedPaths(definitions: readonly IndexDefinition[]): Set<string> {
  return new Set(definitions.flatMap((d) => d.keys.map((k) => indexKeyOf(k.path))));
}

/** The catalog in collection, then name order (code points, as DQL orders text). */
export const CATALOG_SQL = 'SELECT collection, name, keys FROM secondary_indexes ORDER BY collection COLLATE "C", name COLLATE "C"';
