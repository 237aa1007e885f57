/**
 * The PostgreSQL schema of a Big Peer store, as numbered migrations, applied at start by one node
 * at a time (a session advisory lock per schema), each in its own transaction. A node that finds
 * a schema newer than it knows refuses to start (`store/schema-too-new`): it would misread it.
 */
import { StoreError } from '../../peer/host.ts';
import type { Statement, StatementResult } from './pg-protocol.ts';

/** The SQL of each migration, in order: migration `n` is `PG_MIGRATIONS[n - 1]`. Never edit one; add the next. */
export const PG_MIGRATIONS: readonly string[] = [
  // 1: as the SQLite store (src/peer/storage/sqlite-schema.ts): documents unique by collection and
  // the order-preserving key of `_id` (bytea compares bytewise, so the key gives `_id` order);
  // bodies as text, exactly as written. The clock row is also the cluster's write lock: a write
  // transaction takes it FOR UPDATE first, so txn_ids are one sequence committed in order.
  `
  CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL);
  CREATE TABLE clock (one integer PRIMARY KEY CHECK (one = 1), txn_id bigint NOT NULL, hlc text NOT NULL);
  INSERT INTO clock (one, txn_id, hlc) VALUES (1, 0, '');
  CREATE TABLE documents (
    collection text NOT NULL,
    id bytea NOT NULL,
    body text NOT NULL,
    meta text NOT NULL,
    deleted boolean NOT NULL DEFAULT false,
    txn_id bigint NOT NULL,
    PRIMARY KEY (collection, id)
  );
  CREATE INDEX documents_by_txn ON documents (collection, txn_id, id);
  `,
  // 2: tombstones only, for the daily tombstone reaper (reapTombstones): a partial index, so a
  // reap reads the tombstones and never the live documents.
  `
  CREATE INDEX documents_tombstones ON documents (collection, id) WHERE deleted;
  `,
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** The table of applied migrations: one row each, with when and by which node. */
export const VERSIONS_TABLE = 'syncmesh_schema_versions';

/** The schema of a store whose URL names none. */
export const DEFAULT_SCHEMA = 'syncmesh';

/** A schema name we put in search_path and identifiers unquoted: lower-case letters, digits, underscores. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export type RunStatements = (statements: readonly Statement[]) => StatementResult[];

/**
 * Brings `schema` up to date, holding the schema's migration lock meanwhile (other nodes
 * starting wait for it); returns the version found.
 * @throws StoreError `store/schema-too-new` when the database is newer than this code.
 */
export function migratePg(run: RunStatements, schema: string, node: string): number {
  const lock: Statement = { sql: "SELECT pg_advisory_lock(hashtext('syncmesh.migrate'), hashtext($1))", params: [schema] };
  const unlock: Statement = { sql: "SELECT pg_advisory_unlock(hashtext('syncmesh.migrate'), hashtext($1))", params: [schema] };
  run([lock]);
  try {
    const [, , found] = run([
      { sql: `CREATE SCHEMA IF NOT EXISTS ${schema}` },
      {
        sql: `CREATE TABLE IF NOT EXISTS ${VERSIONS_TABLE} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), applied_by text NOT NULL)`,
      },
      { sql: `SELECT coalesce(max(version), 0)::integer FROM ${VERSIONS_TABLE}` },
    ]);
    const current = found?.rows[0]?.[0] as number;
    if (current > PG_SCHEMA_VERSION) {
      throw new StoreError(
        'store/schema-too-new',
        `the PostgreSQL store (schema ${schema}) has schema version ${current}, newer than ${PG_SCHEMA_VERSION} which this SyncMesh knows: ` +
          'a newer Big Peer migrated it; run this node with that version too',
        { details: { schema, version: current, supported: PG_SCHEMA_VERSION } },
      );
    }
    for (let v = current; v < PG_SCHEMA_VERSION; v++) {
      try {
        run([
          { sql: 'BEGIN' },
          { sql: PG_MIGRATIONS[v] as string },
          { sql: `INSERT INTO ${VERSIONS_TABLE} (version, applied_by) VALUES ($1, $2)`, params: [v + 1, node] },
          { sql: 'COMMIT' },
        ]);
      } catch (error) {
        try {
          run([{ sql: 'ROLLBACK' }]);
        } catch {
          // The connection is gone: the server rolled back.
        }
        throw error;
      }
    }
    return current;
  } finally {
    try {
      run([unlock]);
    } catch {
      // The connection is gone, and the lock with it.
    }
  }
}
