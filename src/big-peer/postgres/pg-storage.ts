/**
 * The PostgreSQL storage of the Big Peer: the StorageEngine of src/peer/storage/types.ts on one
 * PostgreSQL schema that several Big Peer nodes share. It passes the same acceptance suite as
 * SQLite. What differs, and why:
 *
 * - The engine is synchronous (the store reads and writes within one turn, as with SQLite), so
 *   its calls block on a worker thread that owns the `pg` connections (pg-bridge.ts). Only the
 *   wait for the cluster write lock (`acquireWrite`) and the poller do not block.
 * - One PostgreSQL write transaction at a time in the whole cluster: it starts by locking the
 *   clock row (SELECT … FOR UPDATE), so txn_ids are one sequence and commit in their order, which
 *   replication by txn_id (`changedSince`) needs. A SEQUENCE would not do: a lower txn_id could
 *   commit after a higher one was read.
 * - Group commit: the store's write transactions that queue on this node meanwhile run inside
 *   that transaction, each under a savepoint with its own txn_id, and commit with it; each is
 *   answered only after that COMMIT (CommitGroup below, docs/deploy.md).
 * - A commit NOTIFYs the other nodes (channel `syncmesh_commit`, with its first and last txn_id
 *   and collections); a poller reads the clock every `pollIntervalMs` too, so a lost
 *   notification delays a change by that much at most (`onExternalCommit`).
 * - After a commit, no node blocks on a read of the change page its sessions ask for: the group
 *   reads back what it wrote before its COMMIT, and the other nodes get it with the NOTIFY or
 *   from their worker thread as it arrives (pg-change-pages.ts).
 * - Conditions, ORDER BY, LIMIT and OFFSET run in PostgreSQL, translated to SQL over the jsonb
 *   form of the body (pg-translate.ts, pg-query-sql.ts); what has no SQL form is left to the
 *   reference evaluator, on the documents the rest of the condition lets through, and logged at
 *   DEBUG. DQL's secondary indexes are expression indexes every node shares (pg-indexes.ts).
 *   Replication reads by txn_id and `_id` only, which are indexed.
 * - Writes of whole documents (`put`) are sent in batches: at the next read, savepoint or commit.
 */
import pg from 'pg';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import {
  StoreError,
  UnsupportedQueryError,
  runQuery,
  sortKey,
  writeThrough,
  systemTimers,
  type ChangePage,
  type ChangeQuery,
  type ClockState,
  type CollectionInfo,
  type DiskUsage,
  type DocumentQuery,
  type Expr,
  type ExternalCommit,
  type IndexDefinition,
  type PlanOperation,
  type StoragePlan,
  type Logger,
  type ReadTransaction,
  type ReapedTombstone,
  type Savepoint,
  type StorageEngine,
  type StorageReader,
  type StorageWriter,
  type StoredDocument,
  type TimerHandle,
  type Timers,
  type TombstoneReap,
  type WriteTransaction,
  type GroupedWriteTransaction,
} from '../../peer/host.ts';
import { PgBridge, describeServer } from './pg-bridge.ts';
import type { Statement, StatementResult } from './pg-protocol.ts';
import { DEFAULT_SCHEMA, PG_SCHEMA_VERSION, SCHEMA_NAME, migratePg } from './pg-schema.ts';
import { Untranslatable, pgIdentifier } from './pg-translate.ts';
import { liveSql, planQuery, unparsedSql, type PgQueryPlan } from './pg-query-sql.ts';
import { CATALOG_SQL, createIndexSql, definitionOf, indexedPaths, pgIndexName, type CatalogRow } from './pg-indexes.ts';
import { planOf } from './pg-explain.ts';
import { joinedStatements } from './pg-inline.ts';
import { ChangePageCache, bufferOf, pageOf, prefetchSql, rowsOfJson, seededNotify, toStored, type Row, type Seed } from './pg-change-pages.ts';

/**
 * The channel commits are announced on; payload `{"s": schema, "t": last txn_id, "f": first
 * txn_id, "c": [collections], "r": [rows it wrote]}`, `r` only when it fits (pg-change-pages.ts).
 */
export const COMMIT_CHANNEL = 'syncmesh_commit';
/** A NOTIFY payload must stay under 8000 bytes: past this, the collections are left out (any may have changed). */
const MAX_PAYLOAD = 7_000;
export const DEFAULT_POLL_INTERVAL_MS = 1_000;

export interface PgStorageOptions {
  /** `postgres://user:password@host:port/database` (any libpq-style URL `pg` takes). */
  readonly url: string;
  /** The schema holding this store's tables (default `syncmesh`): one per Big Peer app in a database. */
  readonly schema?: string;
  /** Names this node in `pg_stat_activity` and in the migrations it applies. */
  readonly nodeName?: string;
  readonly logger?: Logger;
  readonly timers?: Timers;
  /** How often the clock is read for commits whose notification was lost (default 1 s): the bound on their delay. */
  readonly pollIntervalMs?: number;
  /** A blocking call not answered within this fails with `store/unavailable` (default 30 s). */
  readonly callTimeoutMs?: number;
  /** The bounds of a commit group (see CommitGroup). */
  readonly groupCommit?: GroupCommitOptions;
}

export interface GroupCommitOptions {
  /**
   * Most write transactions in one group (default 64; 1: every write commits alone). Each but the
   * first is a subtransaction (its SAVEPOINT), and PostgreSQL keeps 64 of a transaction's
   * subtransactions in shared memory: past that, every snapshot of the server looks them up on disk.
   */
  readonly maxWriters?: number;
  /** A group takes no new writer once it has been open this long (default 20 ms): what its first writer waits for the others, at most, besides their own time. */
  readonly maxOpenMs?: number;
}

export const DEFAULT_GROUP_MAX_WRITERS = 64;
export const DEFAULT_GROUP_MAX_OPEN_MS = 20;

/**
 * Group commit: the write transactions of this node that come while one PostgreSQL transaction
 * holds the clock row run inside it, one after another, and commit with it.
 *
 * - The first writer BEGINs and locks the clock row; each next one starts with a SAVEPOINT of
 *   its own (sent with its first statement). Each takes the next txn_id after the one before it,
 *   so txn_ids stay one sequence and commit in their order; one txn_id per writer, not per group,
 *   because replication, `commitId` and the observers name a writer's changes by its txn_id.
 * - A writer that fails (a statement refused, its code throwing) rolls back to its savepoint:
 *   the writers before it in the group are untouched. The first has no savepoint: it is alone then.
 * - When a writer ends, the group waits one turn of the event loop (setImmediate) for the next
 *   writer queued in the store; with none, or once `maxWriters` joined or it is `maxOpenMs` old,
 *   it sends the clock row, the NOTIFY (its first and last txn_id) and COMMIT as one request.
 * - `commit()` of each writer returns the group's Promise: the store answers the writer and tells
 *   observers and sessions only once the COMMIT is done. A node killed mid-group loses only writes
 *   nobody was told of; a COMMIT that fails fails every writer of the group, each told so.
 * - While a group commits, the next one's BEGIN waits behind it on the same connection.
 * - A writer whose code may await an earlier write's answer (`acquireWrite({ alone: true })`, the
 *   store's interactive transactions) begins a group: joining, it would wait for itself.
 */
class CommitGroup {
  /** Writers that joined (each one's savepoint is named after its place). */
  joined = 0;
  /** Writers whose changes it holds. */
  members = 0;
  /** A writer is open in it: the group must not commit under it. */
  active = false;
  state: 'open' | 'committing' | 'done' = 'open';
  scheduled = false;
  clock: ClockState;
  moved = false;
  readonly firstTxnId: number;
  readonly collections = new Set<string>();
  readonly openedAt = performance.now();
  readonly durable: Promise<void>;
  resolve!: () => void;
  reject!: (error: Error) => void;

  constructor(clock: ClockState) {
    this.clock = clock;
    this.firstTxnId = clock.lastTxnId + 1;
    this.durable = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Every member awaits it; this keeps a group of none from being an unhandled rejection.
    this.durable.catch(() => {});
  }
}

/** Documents per statement of `insertManyIfAbsent`: a bulk INSERT takes a round trip per this many, not per document. */
const INSERT_BATCH = 1_000;

const COLUMNS = 'SELECT id, body, meta, deleted, txn_id FROM documents';
/** Begins a write transaction and takes the cluster write lock: one text, one round trip. */
const LOCK_CLOCK = 'BEGIN; SELECT txn_id, hlc FROM clock WHERE one = 1 FOR UPDATE';

function bodyOf(doc: StoredDocument): string {
  return JSON.stringify(doc.value ?? { _id: doc.id });
}

/** Does SQL answer this query exactly, in `_id` order with no condition? */
function isPlain(query: DocumentQuery): boolean {
  return query.where === undefined && query.orderBy.length === 0;
}

/** What readers share with their storage: its logger, and the paths its secondary indexes hold. */
interface ReaderContext {
  readonly logger: Logger | undefined;
  /** The paths (`indexKeyOf`) the collection's indexes hold, read with `one` when not known lately. */
  indexed(collection: string, one: (sql: string) => StatementResult): ReadonlySet<string>;
  /** Forgets what `indexed` knows: an index was made or dropped. */
  catalogChanged(): void;
}

/** SQLSTATE query_canceled: statement_timeout, set from a query's budget, stopped it. */
const QUERY_CANCELED = '57014';

/** Reads through one session: a snapshot of its own (REPEATABLE READ), or the write transaction. */
class PgReader implements StorageReader {
  protected readonly run: (statements: readonly Statement[]) => StatementResult[];
  readonly #pages: ChangePageCache | undefined;
  protected readonly context: ReaderContext;

  /** `pages`: for readers of committed data only, never the write transaction's (it sees its own changes). */
  constructor(run: (statements: readonly Statement[]) => StatementResult[], context: ReaderContext, pages?: ChangePageCache) {
    this.run = run;
    this.#pages = pages;
    this.context = context;
  }

  /** One statement of this session. */
  query(sql: string, params?: readonly unknown[]): StatementResult {
    return this.one(sql, params);
  }

  protected one(sql: string, params?: readonly unknown[]): StatementResult {
    return this.run([params === undefined ? { sql } : { sql, params }])[0] as StatementResult;
  }

  /** The live documents of a query's collection that it selects, in its order. */
  protected rows(query: DocumentQuery): Row[] {
    if (isPlain(query)) {
      return this.one(`${COLUMNS} WHERE collection = $1 AND NOT deleted ORDER BY id LIMIT $2 OFFSET $3`, [query.collection, query.limit ?? null, query.offset])
        .rows as Row[];
    }
    const plan = this.#plan(query);
    if (plan === undefined)
      return this.#inJs(query, `${COLUMNS} WHERE collection = $1 AND NOT deleted`, [query.collection], 'the collection name has no SQL form');
    const exact = plan.residual === undefined && plan.order !== undefined;
    const params: unknown[] = [];
    let sql = `${COLUMNS} WHERE ${liveSql(query.collection)}${plan.where}`;
    if (exact) {
      params.push(query.limit ?? null, query.offset);
      sql += ` ORDER BY ${plan.order} LIMIT $${params.length - 1} OFFSET $${params.length}`;
    }
    const [unparsed, found] = this.#budgeted(query, [{ sql: unparsedSql(query.collection) }, { sql, params }]);
    if (unparsed?.rows[0]?.[0] === true) return this.#withUnparsed(query);
    const rows = (found as StatementResult).rows as Row[];
    if (exact) return rows;
    return this.#inJs(query, rows, undefined, plan.fallback ?? 'no SQL form', plan.residual);
  }

  /** The query's plan, or undefined when no part of it has a SQL form. */
  #plan(query: DocumentQuery): PgQueryPlan | undefined {
    try {
      return planQuery(
        query,
        this.context.indexed(query.collection, (sql) => this.one(sql)),
      );
    } catch (error) {
      if (error instanceof Untranslatable) return undefined;
      throw error;
    }
  }

  /** A collection holding documents jsonb cannot hold (U+0000): SQL would not see them, so the evaluator reads all. */
  #withUnparsed(query: DocumentQuery): Row[] {
    return this.#inJs(
      query,
      `${COLUMNS} WHERE collection = $1 AND NOT deleted`,
      [query.collection],
      'the collection holds documents with U+0000, which jsonb cannot',
    );
  }

  /**
   * The reference evaluator over rows (or the rows of `sql`): the whole query, or with `residual`
   * only what SQL left of its condition (the order, limit and offset are always applied here).
   */
  #inJs(query: DocumentQuery, source: Row[] | string, params: unknown[] | undefined, reason: string, residual: Expr | undefined = query.where): Row[] {
    this.context.logger?.debug(LOG_EVENTS.postgresQueryInJs, { collection: query.collection, reason, prefiltered: typeof source !== 'string' });
    const rows = typeof source === 'string' ? ((this.#budgeted(query, [{ sql: source, params }])[0] as StatementResult).rows as Row[]) : source;
    return runQuery(
      rows,
      (r) => JSON.parse(r[1]) as JsonObject,
      (r) => bufferOf(r[0]),
      { ...query, where: residual },
    );
  }

  /**
   * Runs statements of a query within its budget: PostgreSQL's statement_timeout stops them
   * once it is spent, as the evaluator's checks between rows would (`query/timeout`).
   */
  #budgeted(query: DocumentQuery, statements: Statement[]): StatementResult[] {
    const budget = query.budget;
    if (budget === undefined) return this.run(statements);
    budget.check();
    const ms = Math.max(1, Math.ceil(budget.remainingMs));
    try {
      return this.run([{ sql: `SET LOCAL statement_timeout = ${ms}` }, ...statements, { sql: 'SET LOCAL statement_timeout TO DEFAULT' }]).slice(1, -1);
    } catch (error) {
      if (error instanceof StoreError && (error.details as { sqlstate?: string } | undefined)?.sqlstate === QUERY_CANCELED) throw budget.error();
      throw error;
    }
  }

  findValues(query: DocumentQuery): JsonObject[] {
    return this.rows(query).map((r) => JSON.parse(r[1]) as JsonObject);
  }

  findDocuments(query: DocumentQuery): StoredDocument[] {
    return this.rows(query).map(toStored);
  }

  count(query: DocumentQuery): number {
    if (query.where === undefined)
      return this.one('SELECT count(*) FROM documents WHERE collection = $1 AND NOT deleted', [query.collection]).rows[0]?.[0] as number;
    const all = { ...query, orderBy: [], limit: undefined, offset: 0 };
    const plan = this.#plan(all);
    if (plan === undefined || plan.residual !== undefined) return this.rows(all).length;
    const [unparsed, counted] = this.#budgeted(query, [
      { sql: unparsedSql(query.collection) },
      { sql: `SELECT count(*) FROM documents WHERE ${liveSql(query.collection)}${plan.where}` },
    ]);
    if (unparsed?.rows[0]?.[0] === true) return this.#withUnparsed(all).length;
    return counted?.rows[0]?.[0] as number;
  }

  indexes(collection?: string): IndexDefinition[] {
    const rows = this.one(CATALOG_SQL).rows as CatalogRow[];
    return rows.filter((r) => collection === undefined || r[0] === collection).map(definitionOf);
  }

  explain(query: DocumentQuery, operation: PlanOperation): StoragePlan {
    const plan = this.#plan(query);
    const unparsed = this.one(unparsedSql(query.collection)).rows[0]?.[0] === true;
    if (plan === undefined || unparsed) {
      return {
        access: 'scan',
        index: null,
        sorted: query.orderBy.length > 0,
        sql: null,
        details: [
          unparsed
            ? 'the collection holds documents with U+0000, which jsonb cannot: JavaScript filters every document'
            : 'the condition has no SQL form: JavaScript filters every document',
        ],
      };
    }
    const exact = plan.residual === undefined && plan.order !== undefined;
    const params: unknown[] = [];
    const live = `FROM documents WHERE ${liveSql(query.collection)}${plan.where}`;
    let sql: string;
    if (operation === 'count') sql = `SELECT count(*) ${live}`;
    else if (!exact) sql = `SELECT id, body ${live}`;
    else {
      params.push(query.limit ?? null, query.offset);
      sql = `SELECT id, body ${live} ORDER BY ${plan.order} LIMIT $${params.length - 1} OFFSET $${params.length}`;
    }
    const json = this.one(`EXPLAIN (FORMAT JSON) ${sql}`, params).rows[0]?.[0];
    const names = new Map(this.indexes(query.collection).map((d) => [pgIndexName(d.collection, d.name), d.name]));
    const described = planOf(sql, typeof json === 'string' ? JSON.parse(json) : json, names);
    if (exact) return described;
    return { ...described, sorted: query.orderBy.length > 0, details: [...described.details, `then JavaScript: ${plan.fallback ?? ''}`] };
  }

  get(collection: string, id: JsonValue): StoredDocument | undefined {
    const row = this.one(`${COLUMNS} WHERE collection = $1 AND id = $2`, [collection, sortKey(id)]).rows[0] as Row | undefined;
    return row === undefined ? undefined : toStored(row);
  }

  changedSince(query: ChangeQuery): ChangePage {
    if (!Number.isInteger(query.limit) || query.limit < 1) throw new RangeError(`changedSince needs a limit >= 1, not ${query.limit}`);
    if (this.#pages === undefined) return this.#changedSince(query);
    let page = this.#pages.get(query);
    if (page === undefined) this.#pages.set(query, (page = this.#changedSince(query)));
    return page;
  }

  #changedSince(query: ChangeQuery): ChangePage {
    const { cursor } = query;
    // A cursor at or before afterTxnId excludes nothing that (after, upto] does not.
    const fromCursor = cursor !== undefined && cursor.txnId > query.afterTxnId;
    if (fromCursor && typeof cursor.key !== 'string') throw new TypeError('this change cursor was not made by the PostgreSQL storage');
    // One row more than the limit: it tells whether another page follows. (txn_id, id) is the
    // index's order, so a cursor is one index seek.
    const { rows } = fromCursor
      ? this.one(`${COLUMNS} WHERE collection = $1 AND (txn_id, id) > ($2, $3) AND txn_id <= $4 ORDER BY txn_id, id LIMIT $5`, [
          query.collection,
          cursor.txnId,
          Buffer.from(cursor.key as string, 'hex'),
          query.uptoTxnId,
          query.limit + 1,
        ])
      : this.one(`${COLUMNS} WHERE collection = $1 AND txn_id > $2 AND txn_id <= $3 ORDER BY txn_id, id LIMIT $4`, [
          query.collection,
          query.afterTxnId,
          query.uptoTxnId,
          query.limit + 1,
        ]);
    return pageOf(rows as Row[], query.limit);
  }

  collections(): CollectionInfo[] {
    const { rows } = this.one(
      'SELECT collection, count(*) FILTER (WHERE NOT deleted), count(*) FILTER (WHERE deleted) FROM documents GROUP BY collection ORDER BY collection COLLATE "C"',
    );
    return rows.map((r) => ({ name: r[0] as string, documents: r[1] as number, tombstones: r[2] as number }));
  }

  clock(): ClockState {
    const row = this.one('SELECT txn_id, hlc FROM clock WHERE one = 1').rows[0] as [number, string];
    return { lastTxnId: row[0], lastHlc: row[1] };
  }

  setting(key: string): string | undefined {
    return this.one('SELECT value FROM settings WHERE key = $1', [key]).rows[0]?.[0] as string | undefined;
  }
}

/**
 * The end of a transaction or group, one round trip: the clock row and the NOTIFY in one
 * statement (a data-modifying WITH), then COMMIT, as one text. A text of several statements
 * takes no parameters, so the values are quoted literals (`pg.escapeLiteral`). `f` in the
 * payload is the first txn_id it commits: a node that knew the one before knows exactly which
 * collections changed. `seed`: what the statement reads back and answers with, and puts in the
 * payload when it fits (pg-change-pages.ts).
 */
function commitEnd(schema: string, moved: { first: number; clock: ClockState; collections: ReadonlySet<string> } | undefined, seed?: Seed): Statement[] {
  if (moved === undefined) return [{ sql: 'COMMIT' }];
  const { first, clock } = moved;
  if (!Number.isSafeInteger(clock.lastTxnId)) throw new StoreError('store/io', `a txn_id must be an integer, not ${clock.lastTxnId}`);
  let payload = JSON.stringify({ s: schema, t: clock.lastTxnId, f: first, c: [...moved.collections] });
  const full = payload.length <= MAX_PAYLOAD;
  if (!full) payload = JSON.stringify({ s: schema, t: clock.lastTxnId });
  const read = seed === undefined ? undefined : seededNotify(seed, payload, MAX_PAYLOAD, full);
  return [
    {
      sql:
        `WITH c AS (UPDATE clock SET txn_id = ${clock.lastTxnId}, hlc = ${pg.escapeLiteral(clock.lastHlc)} WHERE one = 1)${read?.cte ?? ''} ` +
        `SELECT pg_notify(${pg.escapeLiteral(COMMIT_CHANNEL)}, ${read?.payload ?? pg.escapeLiteral(payload)})${read?.select ?? ''}; COMMIT`,
      ...(read === undefined ? {} : { resultOf: 0 }),
    },
  ];
}

interface PendingPut {
  readonly collection: string;
  readonly id: Buffer;
  readonly body: string;
  readonly meta: string;
  readonly deleted: boolean;
  readonly txnId: number;
}

/**
 * The write transaction's reader and writer. `put`s wait in a batch (the last per document wins,
 * as it would have in order) and go as one statement before anything else runs.
 */
class PgWriter extends PgReader implements StorageWriter {
  readonly #puts = new Map<string, PendingPut>();
  #clock: ClockState;
  #clockChanged = false;
  readonly written = new Set<string>();
  #savepoints = 0;
  /** Statements that go before this writer's first (a group member's SAVEPOINT): sent with it, no round trip of their own. */
  readonly #prefix: Statement[];

  constructor(run: (statements: readonly Statement[]) => StatementResult[], clock: ClockState, context: ReaderContext, prefix: readonly Statement[] = []) {
    super((statements) => {
      const flush = this.#flush();
      const head = this.#prefix.splice(0);
      if (flush !== undefined) head.push(flush);
      if (head.length === 0) return run(statements);
      // One text, one round trip, when small enough (pg-inline.ts): its result is the last statement's.
      const joined = statements.length <= 1 && head.length + statements.length > 1 ? joinedStatements([...head, ...statements]) : undefined;
      if (joined !== undefined) return run([joined]).slice(0, statements.length);
      return run([...head, ...statements]).slice(head.length);
    }, context);
    this.#clock = clock;
    this.#prefix = [...prefix];
  }

  /** Has any statement of this writer been sent (its prefix with it)? */
  get began(): boolean {
    return this.#prefix.length === 0;
  }

  /** Did this writer move the clock (take a txn_id)? */
  get clockChanged(): boolean {
    return this.#clockChanged;
  }

  /** Sends what waits in the batch (a group member's end). */
  flushPending(): void {
    if (this.#puts.size > 0) this.run([]);
  }

  #flush(): Statement | undefined {
    if (this.#puts.size === 0) return undefined;
    const puts = [...this.#puts.values()];
    this.#puts.clear();
    return {
      sql:
        'INSERT INTO documents (collection, id, body, meta, deleted, txn_id) ' +
        "SELECT c, decode(i, 'hex'), b, m, d, t FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::bigint[]) AS p(c, i, b, m, d, t) " +
        'ON CONFLICT (collection, id) DO UPDATE SET body = excluded.body, meta = excluded.meta, deleted = excluded.deleted, txn_id = excluded.txn_id',
      params: [
        puts.map((p) => p.collection),
        puts.map((p) => p.id.toString('hex')),
        puts.map((p) => p.body),
        puts.map((p) => p.meta),
        puts.map((p) => p.deleted),
        puts.map((p) => p.txnId),
      ],
    };
  }

  /** The statements that end the transaction with a commit: what waits, then the commit itself. */
  commitStatements(schema: string, firstTxnId: number): Statement[] {
    const flush = this.#flush();
    const out: Statement[] = flush === undefined ? [] : [flush];
    out.push(...commitEnd(schema, this.#clockChanged ? { first: firstTxnId, clock: this.#clock, collections: this.written } : undefined));
    return out;
  }

  /** The txn_id this transaction commits (or the one it found, when it set none). */
  get committedTxnId(): number {
    return this.#clock.lastTxnId;
  }

  override clock(): ClockState {
    return this.#clock;
  }

  insertIfAbsent(collection: string, doc: StoredDocument): boolean {
    this.written.add(collection);
    const result = this.one('INSERT INTO documents (collection, id, body, meta, deleted, txn_id) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING', [
      collection,
      sortKey(doc.id),
      bodyOf(doc),
      JSON.stringify(doc.meta),
      doc.value === null,
      doc.txnId,
    ]);
    return result.rowCount === 1;
  }

  /** One statement per INSERT_BATCH documents: the ids it did not write are those that were there. */
  insertManyIfAbsent(collection: string, docs: readonly StoredDocument[]): boolean[] {
    if (docs.length === 1) return [this.insertIfAbsent(collection, docs[0] as StoredDocument)];
    const inserted: boolean[] = [];
    for (let from = 0; from < docs.length; from += INSERT_BATCH) {
      const batch = docs.slice(from, from + INSERT_BATCH);
      this.written.add(collection);
      const ids = batch.map((doc) => sortKey(doc.id).toString('hex'));
      const { rows } = this.one(
        'INSERT INTO documents (collection, id, body, meta, deleted, txn_id) ' +
          "SELECT $1, decode(i, 'hex'), b, m, d, t FROM unnest($2::text[], $3::text[], $4::text[], $5::boolean[], $6::bigint[]) AS p(i, b, m, d, t) " +
          "ON CONFLICT DO NOTHING RETURNING encode(id, 'hex')",
        [
          collection,
          ids,
          batch.map(bodyOf),
          batch.map((doc) => JSON.stringify(doc.meta)),
          batch.map((doc) => doc.value === null),
          batch.map((doc) => doc.txnId),
        ],
      );
      const written = new Set(rows.map((r) => r[0] as string));
      for (const id of ids) inserted.push(written.has(id));
    }
    return inserted;
  }

  put(collection: string, doc: StoredDocument): void {
    this.written.add(collection);
    const id = sortKey(doc.id);
    this.#puts.set(`${collection}\u0000${id.toString('latin1')}`, {
      collection,
      id,
      body: bodyOf(doc),
      meta: JSON.stringify(doc.meta),
      deleted: doc.value === null,
      txnId: doc.txnId,
    });
  }

  evict(query: DocumentQuery): JsonValue[] {
    let removed: { key: Buffer; body: string }[];
    if (isPlain(query) && query.limit === undefined && query.offset === 0) {
      removed = this.one('DELETE FROM documents WHERE collection = $1 AND NOT deleted RETURNING id, body', [query.collection]).rows.map((r) => ({
        key: bufferOf(r[0] as Uint8Array),
        body: r[1] as string,
      }));
    } else {
      removed = this.rows(query).map((r) => ({ key: bufferOf(r[0]), body: r[1] }));
      if (removed.length > 0) {
        this.one("DELETE FROM documents WHERE collection = $1 AND id IN (SELECT decode(i, 'hex') FROM unnest($2::text[]) AS u(i))", [
          query.collection,
          removed.map((r) => r.key.toString('hex')),
        ]);
      }
    }
    if (removed.length > 0) this.written.add(query.collection);
    removed.sort((a, b) => Buffer.compare(a.key, b.key));
    return removed.map((r) => (JSON.parse(r.body) as JsonObject)._id as JsonValue);
  }

  reapTombstones(reap: TombstoneReap): ReapedTombstone[] {
    // COLLATE "C": stamps are hexadecimal text that must compare byte by byte, whatever the database's collation.
    const rows = this.one(
      `DELETE FROM documents WHERE deleted AND (meta::jsonb -> 'd' ->> 0) COLLATE "C" <= $1 COLLATE "C" AND ($2::bigint IS NULL OR txn_id <= $2::bigint) ` +
        'RETURNING collection, id, body, txn_id',
      [reap.deletedUpTo, reap.uptoTxnId ?? null],
    ).rows.map((r) => ({ collection: r[0] as string, key: bufferOf(r[1] as Uint8Array), body: r[2] as string, txnId: Number(r[3]) }));
    for (const r of rows) this.written.add(r.collection);
    rows.sort((a, b) => (a.collection < b.collection ? -1 : a.collection > b.collection ? 1 : Buffer.compare(a.key, b.key)));
    return rows.map((r) => ({ collection: r.collection, id: (JSON.parse(r.body) as JsonObject)._id as JsonValue, txnId: r.txnId }));
  }

  /** The clock row is written once, right before COMMIT (commitEnd): nothing in the transaction reads it back. */
  setClock(state: ClockState): void {
    this.#clock = state;
    this.#clockChanged = true;
  }

  createIndex(index: IndexDefinition): boolean {
    if (this.one('SELECT 1 FROM secondary_indexes WHERE collection = $1 AND name = $2', [index.collection, index.name]).rows.length > 0) return false;
    const pgName = pgIndexName(index.collection, index.name);
    let sql: string;
    try {
      sql = createIndexSql(pgName, index);
    } catch (error) {
      if (!(error instanceof Untranslatable)) throw error;
      throw new UnsupportedQueryError(`this index cannot be made on PostgreSQL: ${error.message}`, { collection: index.collection, name: index.name });
    }
    this.run([
      { sql },
      {
        sql: 'INSERT INTO secondary_indexes (collection, name, keys, pg_name) VALUES ($1, $2, $3, $4)',
        params: [index.collection, index.name, JSON.stringify(index.keys), pgName],
      },
      // Statistics of the new expressions, so that the planner knows how selective a condition on them is.
      { sql: 'ANALYZE documents' },
    ]);
    this.context.catalogChanged();
    return true;
  }

  dropIndex(collection: string, name: string): boolean {
    const row = this.one('DELETE FROM secondary_indexes WHERE collection = $1 AND name = $2 RETURNING pg_name', [collection, name]).rows[0];
    if (row === undefined) return false;
    this.one(`DROP INDEX ${pgIdentifier(row[0] as string)}`);
    this.context.catalogChanged();
    return true;
  }

  setSetting(key: string, value: string): void {
    this.one('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
  }

  savepoint(): Savepoint {
    const name = `s${++this.#savepoints}`;
    this.run([{ sql: `SAVEPOINT ${name}` }]);
    const clock = this.#clock;
    const clockChanged = this.#clockChanged;
    let done = false;
    return {
      release: () => {
        if (done) return;
        done = true;
        this.run([{ sql: `RELEASE SAVEPOINT ${name}` }]);
      },
      rollback: () => {
        if (done) return;
        done = true;
        // What waits in the batch was written after the savepoint: it goes, then is undone.
        this.run([{ sql: `ROLLBACK TO SAVEPOINT ${name}` }, { sql: `RELEASE SAVEPOINT ${name}` }]);
        this.#clock = clock;
        this.#clockChanged = clockChanged;
      },
    };
  }
}

export class PgStorage implements StorageEngine {
  readonly kind = 'postgres' as const;
  readonly schema: string;
  readonly server: string;
  readonly #bridge: PgBridge;
  readonly #timers: Timers;
  readonly #logger: Logger | undefined;
  readonly #pollIntervalMs: number;
  readonly #writeSession: number;
  readonly #pollSession: number;
  readonly #listeners = new Set<(commit: ExternalCommit) => void>();
  readonly #pages = new ChangePageCache();
  /** The indexed paths of each collection, and when they were read: another node's CREATE INDEX is seen within a poll interval. */
  #catalog: { readonly at: number; readonly paths: ReadonlyMap<string, ReadonlySet<string>> } | undefined;
  readonly #context: ReaderContext;

  #readerContext(logger: Logger | undefined): ReaderContext {
    return {
      logger,
      indexed: (collection, one) => {
        const now = performance.now();
        if (this.#catalog === undefined || now - this.#catalog.at > this.#pollIntervalMs) {
          const byCollection = new Map<string, IndexDefinition[]>();
          for (const row of one(CATALOG_SQL).rows as CatalogRow[]) {
            const definition = definitionOf(row);
            byCollection.set(definition.collection, [...(byCollection.get(definition.collection) ?? []), definition]);
          }
          this.#catalog = { at: now, paths: new Map([...byCollection].map(([c, d]) => [c, indexedPaths(d)])) };
        }
        return this.#catalog.paths.get(collection) ?? new Set();
      },
      catalogChanged: () => {
        this.#catalog = undefined;
      },
    };
  }
  readonly #maxWriters: number;
  readonly #maxOpenMs: number;
  /** The last txn_id this storage knows committed: its own, told, or polled. */
  #known: number;
  /** The last txn_id of this node's group whose COMMIT is on its way (0: none): its own NOTIFY may come back first. */
  #committingUpTo = 0;
  #group: CommitGroup | undefined;
  #groups = 0;
  #groupedWrites = 0;
  #writing = false;
  #closed = false;
  #pollTimer: TimerHandle | undefined;
  #polling: Promise<void> | undefined;

  private constructor(bridge: PgBridge, options: PgStorageOptions, schema: string) {
    this.#bridge = bridge;
    this.schema = schema;
    this.server = describeServer(options.url);
    this.#timers = options.timers ?? systemTimers;
    this.#logger = options.logger;
    this.#context = this.#readerContext(options.logger);
    this.#pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.#maxWriters = Math.max(1, Math.floor(options.groupCommit?.maxWriters ?? DEFAULT_GROUP_MAX_WRITERS));
    this.#maxOpenMs = Math.max(0, options.groupCommit?.maxOpenMs ?? DEFAULT_GROUP_MAX_OPEN_MS);
    this.#writeSession = bridge.newSession();
    this.#pollSession = bridge.newSession();
    this.#known = 0;
  }

  /**
   * Connects, applies the migrations this database lacks (one node at a time), and starts
   * hearing of other nodes' commits.
   * @throws StoreError `store/unavailable` (cannot connect), `store/schema-too-new`, `store/io`.
   */
  static open(options: PgStorageOptions): PgStorage {
    const schema = options.schema ?? DEFAULT_SCHEMA;
    if (!SCHEMA_NAME.test(schema)) {
      throw new StoreError(
        'store/io',
        `the PostgreSQL schema name ${JSON.stringify(schema)} must be lower-case letters, digits and underscores, starting with a letter or underscore`,
      );
    }
    const node = options.nodeName ?? `syncmesh-${process.pid}`;
    const bridge = new PgBridge({ url: options.url, schema, applicationName: node, callTimeoutMs: options.callTimeoutMs });
    try {
      const storage = new PgStorage(bridge, options, schema);
      const session = bridge.newSession();
      let from: number;
      try {
        from = migratePg((statements) => bridge.runSync(session, statements), schema, node);
      } finally {
        bridge.end(session);
      }
      options.logger?.debug(LOG_EVENTS.postgresMigrated, { schema, schema_version: PG_SCHEMA_VERSION, migrated_from: from });
      storage.#known = storage.read((r) => r.clock().lastTxnId);
      options.logger?.info(LOG_EVENTS.postgresConnected, { server: storage.server, schema, last_txn_id: storage.#known });
      storage.#startHearing();
      return storage;
    } catch (error) {
      bridge.close();
      throw error;
    }
  }

  beginRead(): ReadTransaction {
    this.#assertOpen();
    const session = this.#bridge.newSession();
    // The snapshot is taken now, by a first read, not at the first query the caller makes.
    this.#bridge.runSync(session, [{ sql: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' }, { sql: 'SELECT 1 FROM clock' }]);
    let ended = false;
    return {
      reader: new PgReader((statements) => this.#bridge.runSync(session, statements), this.#context, this.#pages),
      end: () => {
        if (ended) return;
        ended = true;
        this.#bridge.end(session, 'COMMIT');
      },
    };
  }

  read<T>(fn: (reader: StorageReader) => T): T {
    this.#assertOpen();
    // `fn` runs within this turn: nothing of this process commits before its first query, so
    // the snapshot may begin there (one round trip fewer).
    const session = this.#bridge.newSession();
    let begun = false;
    const reader = new PgReader(
      (statements) => {
        if (begun) return this.#bridge.runSync(session, statements);
        begun = true;
        return this.#bridge.runSync(session, [{ sql: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' }, ...statements]).slice(1);
      },
      this.#context,
      this.#pages,
    );
    try {
      return fn(reader);
    } finally {
      if (begun) this.#bridge.end(session, 'COMMIT');
    }
  }

  write<T>(fn: (writer: StorageWriter) => T): T {
    return writeThrough(this, fn);
  }

  /**
   * A write transaction on its own (`write()`, tests): it commits when `commit()` returns. An
   * idle group is sent to COMMIT first; its BEGIN waits behind that on the connection.
   */
  beginWrite(): WriteTransaction {
    this.#claimWrite();
    const group = this.#group;
    if (group?.state === 'open') this.#commitGroup(group);
    try {
      const [locked] = this.#bridge.runSync(this.#writeSession, [{ sql: LOCK_CLOCK }]);
      return this.#soloTransaction(locked as StatementResult);
    } catch (error) {
      this.#abandonWrite();
      throw error;
    }
  }

  /** Joins the open group when it takes writers, or begins a new one once the cluster write lock is free (waiting off this thread). */
  async acquireWrite(options: { readonly alone?: boolean } = {}): Promise<GroupedWriteTransaction> {
    this.#claimWrite();
    const open = this.#group;
    if (open?.state === 'open') {
      if (options.alone !== true && open.joined < this.#maxWriters && performance.now() - open.openedAt < this.#maxOpenMs) return this.#member(open);
      this.#commitGroup(open);
    }
    try {
      // The wait for other nodes' write transactions happens in the worker, off this thread.
      const [locked] = await this.#bridge.run(this.#writeSession, [{ sql: LOCK_CLOCK }]);
      this.#assertOpen();
      const row = (locked as StatementResult).rows[0] as [number, string];
      const group = new CommitGroup({ lastTxnId: Number(row[0]), lastHlc: row[1] });
      this.#group = group;
      return this.#member(group);
    } catch (error) {
      this.#abandonWrite();
      throw error;
    }
  }

  /** Counters since open: groups committed and the writes in them; SQL statements sent and round trips to the server (all sessions). */
  get commitCounters(): { readonly groups: number; readonly writes: number; readonly statements: number; readonly roundTrips: number } {
    return { groups: this.#groups, writes: this.#groupedWrites, statements: this.#bridge.statementsSent, roundTrips: this.#bridge.roundTrips };
  }

  #claimWrite(): void {
    this.#assertOpen();
    if (this.#writing) throw new Error('a storage write transaction is already open');
    this.#writing = true;
  }

  #abandonWrite(): void {
    this.#writing = false;
    if (!this.#closed) this.#bridge.end(this.#writeSession, 'ROLLBACK');
  }

  #soloTransaction(locked: StatementResult): WriteTransaction {
    const row = locked.rows[0] as [number, string];
    const first = Number(row[0]) + 1;
    const writer = new PgWriter(
      (statements) => this.#bridge.runSync(this.#writeSession, statements),
      { lastTxnId: Number(row[0]), lastHlc: row[1] },
      this.#context,
    );
    let open = true;
    const finish = (statements: () => Statement[]): void => {
      if (!open) return;
      open = false;
      try {
        this.#bridge.runSync(this.#writeSession, statements());
      } catch (error) {
        // A failed COMMIT leaves the transaction aborted: end it, so the next one starts clean.
        try {
          this.#bridge.runSync(this.#writeSession, [{ sql: 'ROLLBACK' }]);
        } catch {
          // The connection is gone, and the transaction with it.
        }
        throw error;
      } finally {
        this.#writing = false;
      }
    };
    return {
      writer,
      commit: () => {
        finish(() => {
          const statements = writer.commitStatements(this.schema, first);
          return statements.length > 1 ? [joinedStatements(statements) ?? statements].flat() : statements;
        });
        this.#known = Math.max(this.#known, writer.committedTxnId);
        this.#pages.clear();
      },
      rollback: () => {
        if (this.#closed) {
          open = false;
          this.#writing = false;
          return;
        }
        finish(() => [{ sql: 'ROLLBACK' }]);
      },
    };
  }

  /** One writer of `group`: its statements run in the group's transaction, under a savepoint unless it is the first. */
  #member(group: CommitGroup): GroupedWriteTransaction {
    group.active = true;
    const place = ++group.joined;
    const savepoint = place === 1 ? undefined : `g${place}`;
    const run = (statements: readonly Statement[]): StatementResult[] => {
      if (group.state !== 'open')
        throw new StoreError('store/unavailable', 'the connection of this write transaction to PostgreSQL was lost; nothing of it was committed');
      try {
        return this.#bridge.runSync(this.#writeSession, statements);
      } catch (error) {
        // Not a statement refused: the connection, and the group's transaction with it, is gone.
        if (!(error instanceof StoreError) || error.code !== 'store/io') this.#failGroup(group, error);
        throw error;
      }
    };
    const writer = new PgWriter(run, group.clock, this.#context, savepoint === undefined ? [] : [{ sql: `SAVEPOINT ${savepoint}` }]);
    let open = true;
    const undo = (): void => {
      if (group.state !== 'open') return;
      if (savepoint === undefined) {
        // The first writer is alone in the group: all of it goes.
        group.state = 'done';
        if (this.#group === group) this.#group = undefined;
        group.resolve();
        try {
          this.#bridge.runSync(this.#writeSession, [{ sql: 'ROLLBACK' }]);
        } catch {
          this.#bridge.end(this.#writeSession);
        }
        return;
      }
      if (!writer.began) return; // nothing of it reached the server
      try {
        this.#bridge.runSync(this.#writeSession, [{ sql: `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` }]);
      } catch (error) {
        this.#failGroup(group, error);
      }
    };
    return {
      writer,
      commit: () => {
        if (!open) return group.durable;
        open = false;
        try {
          writer.flushPending();
        } catch (error) {
          undo();
          this.#memberEnded(group);
          throw error;
        }
        group.members++;
        group.clock = writer.clock();
        if (writer.clockChanged) group.moved = true;
        for (const c of writer.written) group.collections.add(c);
        this.#memberEnded(group);
        return group.durable;
      },
      rollback: () => {
        if (!open) return;
        open = false;
        if (!this.#closed) undo();
        this.#memberEnded(group);
      },
    };
  }

  /** A writer of `group` ended: the group commits now at its bounds, else after this turn unless another writer joins. */
  #memberEnded(group: CommitGroup): void {
    this.#writing = false;
    group.active = false;
    if (group.state !== 'open') return;
    if (group.joined >= this.#maxWriters || performance.now() - group.openedAt >= this.#maxOpenMs) {
      this.#commitGroup(group);
      return;
    }
    if (group.scheduled) return;
    group.scheduled = true;
    setImmediate(() => {
      group.scheduled = false;
      if (group.state === 'open' && !group.active && !this.#closed) this.#commitGroup(group);
    });
  }

  /** Sends the group's end (clock row, NOTIFY, COMMIT) without waiting; its writers hear when it is done. */
  #commitGroup(group: CommitGroup): void {
    group.state = 'committing';
    const last = group.clock.lastTxnId;
    if (group.moved) this.#committingUpTo = last;
    // What the group wrote, read back before its COMMIT: the sessions' pages after it, cut without a read.
    const seed = group.moved ? { collections: group.collections, after: group.firstTxnId - 1, upto: last } : undefined;
    const statements = commitEnd(this.schema, group.moved ? { first: group.firstTxnId, clock: group.clock, collections: group.collections } : undefined, seed);
    this.#bridge.run(this.#writeSession, statements, { rollbackOnError: true }).then(
      ([written]) => {
        group.state = 'done';
        if (this.#group === group) this.#group = undefined;
        this.#committingUpTo = 0;
        const newest = last >= this.#known;
        this.#known = Math.max(this.#known, last);
        this.#pages.clear();
        // Not when another node's later commit is known already: the rows may have changed since.
        const rows = seed === undefined ? undefined : rowsOfJson(written?.rows[0]?.[1]);
        if (newest && rows !== undefined) this.#pages.know(group.collections, group.firstTxnId - 1, last, rows);
        this.#groups++;
        this.#groupedWrites += group.members;
        group.resolve();
      },
      (error: unknown) => {
        this.#committingUpTo = 0;
        this.#failGroup(group, error);
      },
    );
  }

  /** Nothing of the group is committed: every writer in it is told so. */
  #failGroup(group: CommitGroup, error: unknown): void {
    if (group.state === 'done') return;
    const wasOpen = group.state === 'open';
    group.state = 'done';
    if (this.#group === group) this.#group = undefined;
    const cause = error instanceof Error ? error.message : String(error);
    this.#logger?.warn(LOG_EVENTS.postgresGroupFailed, { writers: group.members, first_txn_id: group.firstTxnId, error: cause });
    group.reject(
      error instanceof StoreError && error.code !== 'store/io'
        ? error
        : new StoreError('store/unavailable', `the group commit this write joined failed, and nothing of it was committed: ${cause}`),
    );
    // An open transaction whose connection failed: drop the session, so the next group starts on a new one.
    if (wasOpen && !this.#closed) this.#bridge.end(this.#writeSession, 'ROLLBACK');
  }

  onExternalCommit(listener: (commit: ExternalCommit) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  pollExternalCommits(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#polling ??= this.#bridge
      .run(this.#pollSession, [{ sql: 'SELECT txn_id FROM clock WHERE one = 1' }])
      .then(([result]) => this.#found(result?.rows[0]?.[0] as number, undefined))
      .catch(() => {
        // Unreachable now: the next poll tries again; readiness reports it.
      })
      .finally(() => {
        this.#polling = undefined;
      });
    return this.#polling;
  }

  #startHearing(): void {
    this.#bridge.listen(COMMIT_CHANNEL, prefetchSql(this.schema), {
      notification: (_channel, payload, rows) => {
        let parsed: { s?: unknown; t?: unknown; f?: unknown; c?: unknown; r?: unknown };
        try {
          parsed = JSON.parse(payload) as typeof parsed;
        } catch {
          return;
        }
        if (parsed.s !== this.schema || typeof parsed.t !== 'number') return;
        const collections = Array.isArray(parsed.c) ? parsed.c.filter((c): c is string => typeof c === 'string') : undefined;
        // What the commit wrote, in its payload or read by the worker as it came (`f` names where it starts).
        const carried = rowsOfJson(parsed.r) ?? rows;
        const read = carried !== undefined && typeof parsed.f === 'number' ? carried : undefined;
        this.#found(parsed.t, collections, typeof parsed.f === 'number' ? parsed.f : parsed.t, read);
      },
      listening: () => {
        // Commits made while nobody listened are found by the next poll; look at once.
        void this.pollExternalCommits();
      },
      lost: (_channel, error) => this.#logger?.warn(LOG_EVENTS.postgresListenLost, { poll_ms: this.#pollIntervalMs, error }),
    });
    const tick = (): void => {
      this.#pollTimer = undefined;
      if (this.#closed) return;
      void this.pollExternalCommits().then(() => {
        if (!this.#closed) this.#pollTimer = this.#timers.setTimeout(tick, this.#pollIntervalMs);
      });
    };
    this.#pollTimer = this.#timers.setTimeout(tick, this.#pollIntervalMs);
  }

  /**
   * Tells the listeners of commits up to `txnId` (from `first`); what they wrote is known only when
   * they directly follow the last one known. This node's own group, whose COMMIT is on its way,
   * is not told as another's: its writers are told when the COMMIT answers.
   */
  #found(txnId: number, collections: readonly string[] | undefined, first = txnId, read?: readonly unknown[][]): void {
    if (this.#closed || !(txnId > this.#known) || txnId <= this.#committingUpTo) return;
    this.#pages.clear();
    // Before the listeners hear of it: the sessions they wake find their pages cut from it.
    if (read !== undefined && collections !== undefined) this.#pages.know(collections, first - 1, txnId, read);
    const gap = first !== this.#known + 1;
    this.#known = txnId;
    const commit: ExternalCommit = { txnId, collections: gap ? undefined : collections };
    for (const listener of this.#listeners) listener(commit);
  }

  /** PostgreSQL's own WAL is the server's, not this schema's: all of it is the database. */
  diskUsage(): DiskUsage {
    return { databaseBytes: this.sizeOnDisk(), walBytes: 0 };
  }

  sizeOnDisk(): number {
    this.#assertOpen();
    return this.read((r) => {
      const { rows } = (r as PgReader).query(
        "SELECT coalesce(sum(pg_total_relation_size(format('%I.%I', schemaname, tablename))), 0)::bigint FROM pg_tables WHERE schemaname = $1",
        [this.schema],
      );
      return rows[0]?.[0] as number;
    });
  }

  /** PostgreSQL's autovacuum makes freed space reusable; nothing is given back by hand. */
  reclaimSpace(): void {
    this.#assertOpen();
  }

  freeBytes(): number {
    return 0;
  }

  close(): void {
    if (this.#closed) return;
    const group = this.#group;
    if (group?.state === 'open' && !group.active) this.#closeGroup(group);
    // A writer still open in it: the group cannot commit, and its writers must not wait forever.
    if (group?.state === 'open')
      this.#failGroup(group, new StoreError('store/closed', 'the store closed while this write was in an open group; nothing of it was committed'));
    this.#closed = true;
    if (this.#pollTimer !== undefined) this.#timers.clearTimeout(this.#pollTimer);
    this.#listeners.clear();
    this.#bridge.close();
  }

  /** Commits an idle group at close, blocking: its writers were not told yet, but nothing they did is thrown away. */
  #closeGroup(group: CommitGroup): void {
    group.state = 'committing';
    try {
      this.#bridge.runSync(
        this.#writeSession,
        commitEnd(this.schema, group.moved ? { first: group.firstTxnId, clock: group.clock, collections: group.collections } : undefined),
      );
      group.state = 'done';
      group.resolve();
    } catch (error) {
      this.#failGroup(group, error);
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreError('store/closed', 'the store is closed; open a new one');
  }
}
