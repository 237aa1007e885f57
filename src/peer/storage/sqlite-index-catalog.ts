/**
 * The catalog of secondary indexes in a SQLite store (the `secondary_indexes` table), and how a
 * query's plan is read from SQLite's `EXPLAIN QUERY PLAN`.
 */
import type { IndexDefinition, IndexKey, StoragePlan } from './index-definition.ts';
import { jsonPath } from './sql-translate.ts';

/** A row of `secondary_indexes`. */
export interface IndexRow {
  readonly collection: string;
  readonly name: string;
  readonly keys: string;
  readonly sqlite_name: string;
}

/** The indexes of one collection: their definitions, SQLite's name for each, and the JSON paths (as SQL text) they hold. */
export interface CollectionIndexes {
  readonly definitions: readonly IndexDefinition[];
  readonly bySqliteName: ReadonlyMap<string, string>;
  readonly paths: ReadonlySet<string>;
  /** Each index's SQLite name and keys (JSON paths as SQL text), to find one that gives an ORDER BY. */
  readonly keyed: readonly { readonly sqliteName: string; readonly keys: readonly { readonly jp: string; readonly descending: boolean }[] }[];
}

/**
 * The SQLite name of an index that reads the collection in the order of `orderBy` (each term a
 * JSON path as SQL text, or undefined for a term that is no indexed path): its keys begin with
 * the terms' paths, all in the terms' directions or all reversed. Undefined when none does.
 */
export function indexForOrder(
  indexes: CollectionIndexes,
  orderBy: readonly { readonly jp: string | undefined; readonly descending: boolean }[],
): string | undefined {
  if (orderBy.length === 0 || orderBy.some((t) => t.jp === undefined)) return undefined;
  // One in the same directions first: read backwards, an index gives the `_id` tie-break reversed too, which SQLite then sorts.
  for (const reversed of [false, true]) {
    const index = indexes.keyed.find((ix) => orderBy.every((t, i) => t.jp === ix.keys[i]?.jp && (t.descending === ix.keys[i]?.descending) !== reversed));
    if (index !== undefined) return index.sqliteName;
  }
  return undefined;
}

/** The catalog by collection. */
export function readCatalog(rows: readonly IndexRow[]): Map<string, CollectionIndexes> {
  type Entry = CollectionIndexes & {
    definitions: IndexDefinition[];
    bySqliteName: Map<string, string>;
    paths: Set<string>;
    keyed: CollectionIndexes['keyed'][number][];
  };
  const out = new Map<string, Entry>();
  for (const row of rows) {
    let entry = out.get(row.collection);
    if (entry === undefined) out.set(row.collection, (entry = { definitions: [], bySqliteName: new Map(), paths: new Set(), keyed: [] }));
    const keys = JSON.parse(row.keys) as IndexKey[];
    entry.definitions.push({ collection: row.collection, name: row.name, keys });
    entry.bySqliteName.set(row.sqlite_name, row.name);
    const keyed = keys.map((k) => ({ jp: jsonPath(k.path), descending: k.direction === 'DESC' }));
    for (const k of keyed) entry.paths.add(k.jp);
    entry.keyed.push({ sqliteName: row.sqlite_name, keys: keyed });
  }
  return out;
}

/** SQLite's name for a secondary index: unique for each collection and name. */
export function sqliteIndexName(collection: string, name: string): string {
  return `dql_index ${JSON.stringify([collection, name])}`;
}

/** The plan of a query's SQL from its `EXPLAIN QUERY PLAN` lines. */
export function planFromDetails(sql: string, details: readonly string[], indexes: CollectionIndexes | undefined): StoragePlan {
  let index: string | null = null;
  for (const [sqliteName, name] of indexes?.bySqliteName ?? []) {
    if (details.some((d) => d.includes(`INDEX ${sqliteName}`))) index = name;
  }
  const byId = details.some((d) => /USING (?:COVERING )?INDEX sqlite_autoindex_documents_1 \(collection=\? AND id[=>]/.test(d));
  return {
    access: index !== null ? 'index' : byId ? 'id' : 'scan',
    index,
    sorted: details.some((d) => d.startsWith('USE TEMP B-TREE FOR')),
    sql,
    details,
  };
}
