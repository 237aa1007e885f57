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
  // 3: DQL conditions, ORDER BY and LIMIT run in PostgreSQL (pg-translate.ts), over `doc`, the
  // body as jsonb. Stored, not computed per query: parsing the text costs more than reading the
  // binary form (200,000 bodies: 280 ms against 30 ms to count them), and it is what secondary
  // indexes are built from. `body` stays as written. jsonb cannot hold U+0000, so a body with
  // one (or with the text \u0000) gets no `doc`: queries of a collection holding such a
  // document run in JavaScript (`documents_unparsed` finds them without reading the others).
  // syncmesh_key is sort-key.ts in SQL: the order-preserving bytes of a value (NULL, the
  // MISSING of a path that leads nowhere, included), so one bytea compares as DQL compares
  // values of every type. Secondary indexes and ORDER BY use it. Functions are created with
  // their schema written into their bodies: index expressions are evaluated by sessions with
  // any search_path (autovacuum's ANALYZE too). Strings compare as the bytes of their UTF-8
  // form (code-point order), which needs a UTF8 database.
  `
  DO $do$
  BEGIN
    IF current_setting('server_encoding') <> 'UTF8' THEN
      RAISE EXCEPTION 'SyncMesh needs a UTF8 database: DQL orders strings by their UTF-8 bytes, and this one is %', current_setting('server_encoding');
    END IF;
    EXECUTE format($f$
      CREATE FUNCTION %1$I.syncmesh_jsonb(body text) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $b$ SELECT CASE WHEN strpos(body, '\\u0000') = 0 THEN body::jsonb END $b$;
      CREATE FUNCTION %1$I.syncmesh_composite_key(v jsonb) RETURNS bytea LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $b$
      DECLARE
        out bytea;
        k text;
        e jsonb;
      BEGIN
        IF jsonb_typeof(v) = 'array' THEN
          out := '\\x05'::bytea;
          FOR e IN SELECT t.x FROM jsonb_array_elements(v) WITH ORDINALITY AS t(x, n) ORDER BY t.n LOOP
            out := out || %1$I.syncmesh_key(e);
          END LOOP;
        ELSE
          out := '\\x06'::bytea;
          FOR k, e IN SELECT t.key, t.value FROM jsonb_each(v) AS t ORDER BY t.key COLLATE "C" LOOP
            out := out || '\\x01'::bytea || decode(replace(k, '\\', '\\\\'), 'escape') || '\\x0000'::bytea || %1$I.syncmesh_key(e);
          END LOOP;
        END IF;
        RETURN out || '\\x00'::bytea;
      END
      $b$;
      CREATE FUNCTION %1$I.syncmesh_key(v jsonb) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $b$
        SELECT CASE jsonb_typeof(v)
          WHEN 'string' THEN '\\x04'::bytea || decode(replace(v #>> '{}', '\\', '\\\\'), 'escape') || '\\x0000'::bytea
          WHEN 'number' THEN '\\x03'::bytea || CASE WHEN v::float8 >= 0
            THEN set_byte(float8send(v::float8 + 0), 0, get_byte(float8send(v::float8 + 0), 0) # 128)
            ELSE int8send(~(('x' || encode(float8send(v::float8), 'hex'))::bit(64)::bigint)) END
          WHEN 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN '\\x02'::bytea ELSE '\\x01'::bytea END
          WHEN 'null' THEN '\\x07'::bytea
          WHEN 'array' THEN %1$I.syncmesh_composite_key(v)
          WHEN 'object' THEN %1$I.syncmesh_composite_key(v)
          ELSE '\\x08'::bytea
        END
      $b$;
    $f$, current_schema());
  END
  $do$;
  ALTER TABLE documents ADD COLUMN doc jsonb GENERATED ALWAYS AS (syncmesh_jsonb(body)) STORED;
  CREATE INDEX documents_unparsed ON documents (collection) WHERE doc IS NULL AND NOT deleted;
  CREATE TABLE secondary_indexes (
    collection text NOT NULL,
    name text NOT NULL,
    keys text NOT NULL,
    pg_name text NOT NULL UNIQUE,
    PRIMARY KEY (collection, name)
  );
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
