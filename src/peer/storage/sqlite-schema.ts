/**
 * The SQLite schema, as numbered migrations. `PRAGMA user_version` holds the version applied; a
 * store written by a newer SyncMesh is refused rather than misread.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { StoreError } from '../errors.ts';

/** The SQL of each migration, in order: migration `n` is `MIGRATIONS[n - 1]`. Never edit one; add the next. */
export const MIGRATIONS: readonly string[] = [
  // 1: documents in an ordinary rowid table, unique by collection and the order-preserving key
  // of `_id` (the index gives `_id` order). Not WITHOUT ROWID: bodies of a kilobyte or more
  // would overflow its b-tree pages and take about three times the disk. A tombstone keeps
  // `{"_id": …}` as its body and `deleted = 1`.
  `
  CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE clock (one INTEGER PRIMARY KEY CHECK (one = 1), txn_id INTEGER NOT NULL, hlc TEXT NOT NULL);
  INSERT INTO clock (one, txn_id, hlc) VALUES (1, 0, '');
  CREATE TABLE documents (
    collection TEXT NOT NULL,
    id BLOB NOT NULL,
    body TEXT NOT NULL,
    meta TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    txn_id INTEGER NOT NULL,
    UNIQUE (collection, id)
  );
  `,
  // 2: documents of a collection by last commit, for replication's `changedSince`. A rowid
  // table's index entries end with the rowid, so (collection, txn_id) gives (txn_id, rowid)
  // order: the pages' order with no sort.
  `
  CREATE INDEX documents_by_txn ON documents (collection, txn_id);
  `,
  // 3: the secondary indexes an application created (CREATE INDEX): their keys as JSON, and the
  // name of the SQLite index that holds each (sqlite-index-sql.ts).
  `
  CREATE TABLE secondary_indexes (
    collection TEXT NOT NULL,
    name TEXT NOT NULL,
    keys TEXT NOT NULL,
    sqlite_name TEXT NOT NULL UNIQUE,
    PRIMARY KEY (collection, name)
  ) WITHOUT ROWID;
  `,
  // 4: tombstones by deletion stamp, for the daily tombstone reaper: a partial index, so it
  // holds tombstones only and the reaper never reads the live documents.
  `
  CREATE INDEX documents_tombstones ON documents (json_extract(meta, '$.d[0]')) WHERE deleted = 1;
  `,
  // 5: the live documents of each collection, kept by the writer in the clock's row (a JSON
  // object of collection to count, sqlite-live-counts.ts), so that COUNT(*) of a collection
  // reads one value rather than every document of it.
  `
  ALTER TABLE clock ADD COLUMN live TEXT NOT NULL DEFAULT '{}';
  UPDATE clock SET live = (
    SELECT json_group_object(collection, n) FROM (SELECT collection, SUM(deleted = 0) AS n FROM documents GROUP BY collection) WHERE n > 0
  ) WHERE one = 1;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema up to date; returns the version it found. */
export function migrate(db: BetterSqlite3.Database, path: string): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new StoreError(
      'store/schema-too-new',
      `the store at ${path} has schema version ${current}, newer than ${SCHEMA_VERSION} which this SyncMesh knows; open it with a newer SyncMesh`,
      { details: { path, version: current, supported: SCHEMA_VERSION } },
    );
  }
  for (let v = current; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v] as string);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
  return current;
}
