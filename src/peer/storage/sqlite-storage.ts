/**
 * The SQLite storage of a peer: one database file in the persistence directory (WAL,
 * synchronous=NORMAL), a write connection for the one write transaction and a read connection
 * whose statements see only committed data. Queries run inside SQLite (see sql-translate.ts).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { DocumentMeta } from '../crdt/document-meta.ts';
import { sortKey } from '../dql/sort-key.ts';
import { StoreError } from '../errors.ts';
import type { Budget } from '../budget.ts';
import { DirectoryLock, type DatabaseConstructor } from './directory-lock.ts';
import { runQuery } from './js-query.ts';
import { writeThrough } from './write-through.ts';
import { DocumentDecoder, SqliteDocument, type DocumentRow } from './sqlite-documents.ts';
import { LIVE_COUNT_SQL, LiveCounts } from './sqlite-live-counts.ts';
import { assertSupportedNode } from './node-version.ts';
import { registerSqlFunctions } from './sql-functions.ts';
import { SqlTranslator, Untranslatable, jsonPath } from './sql-translate.ts';
import { indexForOrder, planFromDetails, readCatalog, sqliteIndexName, type CollectionIndexes, type IndexRow } from './sqlite-index-catalog.ts';
import { createIndexSql, plannerStatistics, sqlIdentifier, sqlString } from './sqlite-index-sql.ts';
import type { IndexDefinition, PlanOperation, StoragePlan } from './index-definition.ts';
import { UnsupportedQueryError } from '../errors.ts';
import { SCHEMA_VERSION, migrate } from './sqlite-schema.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import type { Logger } from '../log/log-hub.ts';
import type {
  ChangePage,
  ChangeQuery,
  ClockState,
  CollectionInfo,
  DiskUsage,
  DocumentQuery,
  ReadTransaction,
  ReapedTombstone,
  Savepoint,
  StorageEngine,
  StorageReader,
  StorageWriter,
  StoredDocument,
  TombstoneReap,
  WriteTransaction,
} from './types.ts';

export const DATABASE_FILE = 'store.sqlite';

/** A row read for JavaScript to filter: with its `_id` key, which orders it. */
interface Row extends DocumentRow {
  readonly id: Buffer;
}

/** A query as SQL: see `SqliteReader.translate`. */
interface QuerySql {
  /** ` INDEXED BY "…"` when the store picks the index itself, else empty. */
  readonly indexedBy: string;
  readonly col: string;
  readonly where: string;
  readonly order: string;
  readonly binds: Record<string, unknown>;
}

const CHANGE_COLUMNS = 'SELECT rowid, body, meta, deleted, txn_id FROM documents WHERE collection = @col';

/**
 * The SQL of `changedSince`: from the start of (after, upto], or after a cursor. Both walk the
 * documents_by_txn index in its order, (txn_id, rowid), and sort nothing; exported for the
 * query-plan test. After a cursor, the rest of its txn_id and the later txn_ids are two index
 * seeks merged: a row-value `(txn_id, rowid) > (?, ?)` would seek only on txn_id and step over
 * the cursor's txn_id from its start, page after page of a large transaction.
 */
export const CHANGED_SINCE_SQL = {
  fromStart: `${CHANGE_COLUMNS} AND txn_id > @after AND txn_id <= @upto ORDER BY txn_id, rowid LIMIT @lim`,
  afterCursor:
    `${CHANGE_COLUMNS} AND txn_id = @ct AND rowid > @ck AND txn_id <= @upto UNION ALL ` +
    `${CHANGE_COLUMNS} AND txn_id > @ct AND txn_id <= @upto ORDER BY txn_id, rowid LIMIT @lim`,
} as const;

function loadDatabase(): DatabaseConstructor {
  assertSupportedNode();
  return createRequire(import.meta.url)('better-sqlite3') as DatabaseConstructor;
}

/** What an EVICT reads of the documents it removes: the row to delete, the key that orders them, the `_id` it reports. */
const EVICT_COLUMNS = "rowid, id, body -> '$._id' AS doc_id";

/** Does an EVICT pick its documents by ORDER BY, LIMIT or OFFSET? */
function isBounded(query: DocumentQuery): boolean {
  return query.orderBy.length > 0 || query.limit !== undefined || query.offset > 0;
}

function bodyOf(doc: StoredDocument): string {
  return JSON.stringify(doc.value ?? { _id: doc.id });
}

/** Reads through one connection, with its prepared statements cached. */
class SqliteReader implements StorageReader {
  protected readonly db: BetterSqlite3.Database;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();
  readonly #decoder = new DocumentDecoder();
  readonly #toStored = (row: DocumentRow): SqliteDocument => this.#decoder.document(row);
  /** The budget of the query running now, checked by `dql_budget()` at every row SQLite looks at. */
  #budget: Budget | undefined;

  constructor(db: BetterSqlite3.Database) {
    this.db = db;
    // Not deterministic: SQLite must call it for every row, never once for the statement.
    db.function('dql_budget', { deterministic: false, varargs: false }, () => {
      this.#budget?.check();
      return 1;
    });
  }

  /** Runs `fn` (a statement of `query`) with the query's budget checked at each row. */
  protected budgeted<T>(query: DocumentQuery, fn: () => T): T {
    if (query.budget === undefined) return fn();
    query.budget.check();
    const outer = this.#budget;
    this.#budget = query.budget;
    try {
      return fn();
    } finally {
      this.#budget = outer;
    }
  }

  protected statement(sql: string, pluck = false): BetterSqlite3.Statement {
    const cacheKey = pluck ? `p:${sql}` : sql;
    let stmt = this.#statements.get(cacheKey);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      if (pluck) stmt.pluck(true);
      if (this.#statements.size >= 256) this.#statements.clear();
      this.#statements.set(cacheKey, stmt);
    }
    return stmt;
  }

  /** The secondary indexes of this connection's snapshot, by collection; read again after the schema changes. */
  protected catalog(): ReadonlyMap<string, CollectionIndexes> {
    const version = this.statement('PRAGMA schema_version', true).get() as number;
    if (version !== this.#catalogVersion) {
      this.#catalog = readCatalog(
        this.statement('SELECT collection, name, keys, sqlite_name FROM secondary_indexes ORDER BY collection, name').all() as IndexRow[],
      );
      this.#catalogVersion = version;
    }
    return this.#catalog;
  }

  #catalog: ReadonlyMap<string, CollectionIndexes> = new Map();
  #catalogVersion = -1;

  /**
   * The SQL of a query: `col` picks the collection's live documents, `where` follows it (the
   * budget check, index hints, the condition), `order` is the ORDER BY; or undefined when only
   * JavaScript can filter it. A collection with secondary indexes is named as a literal, which
   * SQLite needs to use its partial indexes.
   */
  protected translate(query: DocumentQuery): QuerySql | undefined {
    try {
      const t = new SqlTranslator(query.params);
      const indexes = this.catalog().get(query.collection);
      // The budget's check comes first: it runs at each row before the condition, however long that takes.
      const tick = query.budget === undefined ? '' : ' AND dql_budget()';
      let where: string;
      let indexedBy = '';
      if (indexes === undefined) where = query.where === undefined ? tick : `${tick} AND ${t.condition(query.where)}`;
      else {
        // Each conjunct's hint first, where SQLite looks for index terms; a hint as exact as its conjunct stands in for it.
        const conjuncts = t.conjuncts(query.where, indexes.paths);
        const hints = conjuncts.flatMap((c) => (c.hint === undefined ? [] : [` AND ${c.hint}`]));
        const exact = conjuncts.flatMap((c) => (c.exact ? [] : [` AND ${t.condition(c.expr)}`]));
        where = `${hints.join('')}${tick}${exact.join('')}`;
        // ORDER BY … LIMIT with no index term to seek: reading an index in order stops after LIMIT
        // rows, where SQLite would sort the collection.
        if (hints.length === 0 && query.limit !== undefined) {
          const order = query.orderBy.map((o) => ({ jp: t.indexablePath(o.expr), descending: o.direction === 'DESC' }));
          const name = indexForOrder(indexes, order);
          if (name !== undefined) indexedBy = ` INDEXED BY ${sqlIdentifier(name)}`;
        }
      }
      const order = t.orderBy(query.orderBy);
      const col = indexes === undefined ? 'collection = @col' : `collection = ${sqlString(query.collection)}`;
      const binds: Record<string, unknown> = { ...t.binds, lim: query.limit ?? -1, off: query.offset };
      if (indexes === undefined) binds.col = query.collection;
      return { indexedBy, col, where, order, binds };
    } catch (error) {
      if (error instanceof Untranslatable) return undefined;
      throw error;
    }
  }

  /** The bound values of a query's SQL without LIMIT and OFFSET. */
  protected unbounded(plan: QuerySql): Record<string, unknown> {
    return Object.fromEntries(Object.entries(plan.binds).filter(([k]) => k !== 'lim' && k !== 'off'));
  }

  /** The SQL a query runs as an operation (the documents' columns for `find`); an EVICT's finds what it then deletes by rowid. */
  protected sqlOf(plan: QuerySql, operation: PlanOperation, columns = 'id, body, meta, deleted, txn_id'): string {
    const live = `FROM documents WHERE ${plan.col} AND deleted = 0${plan.where}`;
    if (operation === 'count') return `SELECT count(*) ${live}`;
    if (operation === 'find')
      return `SELECT ${columns} FROM documents${plan.indexedBy} WHERE ${plan.col} AND deleted = 0${plan.where} ORDER BY ${plan.order} LIMIT @lim OFFSET @off`;
    return `SELECT ${EVICT_COLUMNS} ${live}`;
  }

  protected rowsInJs(query: DocumentQuery): Row[] {
    const rows = this.statement('SELECT rowid, id, body, meta, deleted, txn_id FROM documents WHERE collection = ? AND deleted = 0').all(
      query.collection,
    ) as Row[];
    return runQuery(
      rows,
      (r) => JSON.parse(r.body) as JsonObject,
      (r) => r.id,
      query,
    );
  }

  /**
   * The prepared statement for translated SQL, or undefined when SQLite refuses to prepare it
   * for a limit of its own (expression depth, terms, variables): then JavaScript filters.
   */
  protected preparedOrUndefined(sql: string, pluck = false): BetterSqlite3.Statement | undefined {
    try {
      return this.statement(sql, pluck);
    } catch (error) {
      if (/too large|too many|stack overflow|recursion|too deep/i.test((error as Error).message)) return undefined;
      throw error;
    }
  }

  findValues(query: DocumentQuery): JsonObject[] {
    const plan = this.translate(query);
    const sql = plan && this.sqlOf(plan, 'find', 'body');
    const stmt = sql === undefined ? undefined : this.preparedOrUndefined(sql, true);
    if (plan === undefined || stmt === undefined) return this.rowsInJs(query).map((r) => JSON.parse(r.body) as JsonObject);
    const bodies = this.budgeted(query, () => stmt.all(plan.binds) as string[]);
    const out = new Array<JsonObject>(bodies.length);
    for (let i = 0; i < bodies.length; i++) out[i] = JSON.parse(bodies[i] as string) as JsonObject;
    return out;
  }

  /** Live documents of the collection noted by this connection and not yet in `live_counts`: none, but on the writer. */
  protected pendingLive(collection: string): number {
    void collection;
    return 0;
  }

  count(query: DocumentQuery): number {
    if (query.where === undefined) {
      // Kept up to date by the writer: one row, however large the collection.
      query.budget?.check();
      const counted = this.statement(LIVE_COUNT_SQL, true).get(query.collection) as number | undefined;
      return (counted ?? 0) + this.pendingLive(query.collection);
    }
    const plan = this.translate(query);
    const sql = plan && this.sqlOf(plan, 'count');
    const stmt = sql === undefined ? undefined : this.preparedOrUndefined(sql, true);
    if (plan === undefined || stmt === undefined) return this.rowsInJs({ ...query, orderBy: [], limit: undefined, offset: 0 }).length;
    return this.budgeted(query, () => stmt.get(this.unbounded(plan)) as number);
  }

  findDocuments(query: DocumentQuery): StoredDocument[] {
    const plan = this.translate(query);
    const sql = plan && this.sqlOf(plan, 'find', 'rowid, body, meta, deleted, txn_id');
    const stmt = sql === undefined ? undefined : this.preparedOrUndefined(sql);
    if (plan === undefined || stmt === undefined) return this.rowsInJs(query).map(this.#toStored);
    return this.budgeted(query, () => stmt.all(plan.binds) as DocumentRow[]).map(this.#toStored);
  }

  indexes(collection?: string): IndexDefinition[] {
    const catalog = this.catalog();
    if (collection !== undefined) return [...(catalog.get(collection)?.definitions ?? [])];
    return [...catalog.values()].flatMap((c) => c.definitions);
  }

  explain(query: DocumentQuery, operation: PlanOperation): StoragePlan {
    // COUNT(*) of a whole collection reads the live count the writer keeps, not the documents.
    if (operation === 'count' && query.where === undefined) {
      return { access: 'count', index: null, sorted: false, sql: LIVE_COUNT_SQL, details: ['the collection’s live document count, kept with every commit'] };
    }
    const plan = this.translate({ ...query, budget: undefined });
    const sql = plan && (operation === 'evict' ? this.evictSql(plan, query) : this.sqlOf(plan, operation));
    const stmt = sql === undefined ? undefined : this.preparedOrUndefined(`EXPLAIN QUERY PLAN ${sql}`);
    if (plan === undefined || sql === undefined || stmt === undefined) {
      return {
        access: 'scan',
        index: null,
        sorted: query.orderBy.length > 0,
        sql: null,
        details: ['the condition has no SQL form: JavaScript filters every document'],
      };
    }
    const bounded = operation === 'find' || (operation === 'evict' && isBounded(query));
    const details = (stmt.all(bounded ? plan.binds : this.unbounded(plan)) as { detail: string }[]).map((r) => r.detail);
    return planFromDetails(sql, details, this.catalog().get(query.collection));
  }

  /**
   * The SQL that finds an EVICT's documents (their rowid, key and `_id`), which it then deletes
   * by rowid; one with ORDER BY, LIMIT or OFFSET finds them as a `find` does.
   */
  protected evictSql(plan: QuerySql, query: DocumentQuery): string {
    return isBounded(query) ? this.sqlOf(plan, 'find', EVICT_COLUMNS) : this.sqlOf(plan, 'evict');
  }

  get(collection: string, id: JsonValue): StoredDocument | undefined {
    const row = this.statement('SELECT rowid, body, meta, deleted, txn_id FROM documents WHERE collection = ? AND id = ?').get(collection, sortKey(id)) as
      DocumentRow | undefined;
    return row === undefined ? undefined : this.#toStored(row);
  }

  changedSince(query: ChangeQuery): ChangePage {
    if (!Number.isInteger(query.limit) || query.limit < 1) throw new RangeError(`changedSince needs a limit >= 1, not ${query.limit}`);
    const { cursor } = query;
    // A cursor at or before afterTxnId excludes nothing that (after, upto] does not.
    const fromCursor = cursor !== undefined && cursor.txnId > query.afterTxnId;
    if (fromCursor && typeof cursor.key !== 'number') throw new TypeError('this change cursor was not made by the SQLite storage');
    const binds = fromCursor
      ? { col: query.collection, ct: cursor.txnId, ck: cursor.key, upto: query.uptoTxnId, lim: query.limit + 1 }
      : { col: query.collection, after: query.afterTxnId, upto: query.uptoTxnId, lim: query.limit + 1 };
    const rows = this.statement(fromCursor ? CHANGED_SINCE_SQL.afterCursor : CHANGED_SINCE_SQL.fromStart).all(binds) as DocumentRow[];
    // One row more than the limit was asked for: it tells whether another page follows.
    const more = rows.length > query.limit;
    if (more) rows.length = query.limit;
    const last = rows[rows.length - 1];
    return { documents: rows.map(this.#toStored), next: more && last !== undefined ? { txnId: last.txn_id, key: last.rowid } : undefined };
  }

  collections(): CollectionInfo[] {
    const rows = this.statement(
      'SELECT collection AS name, SUM(deleted = 0) AS documents, SUM(deleted = 1) AS tombstones FROM documents GROUP BY collection ORDER BY collection',
    ).all() as CollectionInfo[];
    return rows;
  }

  clock(): ClockState {
    const row = this.statement('SELECT txn_id, hlc FROM clock WHERE one = 1').get() as { txn_id: number; hlc: string };
    return { lastTxnId: row.txn_id, lastHlc: row.hlc };
  }

  setting(key: string): string | undefined {
    return this.statement('SELECT value FROM settings WHERE key = ?', true).get(key) as string | undefined;
  }
}

class SqliteWriter extends SqliteReader implements StorageWriter {
  #lastMeta: DocumentMeta | undefined;
  #lastMetaJson = '';
  readonly #live = new LiveCounts();

  /** The live counts noted, folded into the clock row's (undefined when they change nothing). */
  #foldLive(): string | undefined {
    return this.#live.fold(() => this.statement('SELECT live FROM clock WHERE one = 1', true).get() as string);
  }

  #flushLive(): void {
    const live = this.#foldLive();
    if (live !== undefined) this.statement('UPDATE clock SET live = ? WHERE one = 1').run(live);
  }

  protected override pendingLive(collection: string): number {
    return this.#live.pending(collection);
  }

  // A statement's documents share one metadata object: serialise it once.
  #metaJson(meta: DocumentMeta): string {
    if (meta !== this.#lastMeta) {
      this.#lastMeta = meta;
      this.#lastMetaJson = JSON.stringify(meta);
    }
    return this.#lastMetaJson;
  }

  insertIfAbsent(collection: string, doc: StoredDocument): boolean {
    const info = this.statement('INSERT INTO documents (collection, id, body, meta, deleted, txn_id) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING').run(
      collection,
      sortKey(doc.id),
      bodyOf(doc),
      this.#metaJson(doc.meta),
      doc.value === null ? 1 : 0,
      doc.txnId,
    );
    if (info.changes === 1 && doc.value !== null) this.#live.add(collection, 1);
    return info.changes === 1;
  }

  insertManyIfAbsent(collection: string, docs: readonly StoredDocument[]): boolean[] {
    return docs.map((doc) => this.insertIfAbsent(collection, doc));
  }

  put(collection: string, doc: StoredDocument, replaces?: StoredDocument): void {
    const key = sortKey(doc.id);
    const body = bodyOf(doc);
    const meta = this.#metaJson(doc.meta);
    const deleted = doc.value === null ? 1 : 0;
    this.#live.add(collection, (deleted === 0 ? 1 : 0) - (this.#replace(collection, key, body, meta, deleted, doc.txnId, replaces) ? 1 : 0));
  }

  /** Writes the row of (collection, key); tells whether it replaced a live document. */
  #replace(collection: string, key: Buffer, body: string, meta: string, deleted: number, txnId: number, replaces: StoredDocument | undefined): boolean {
    // The row `replaces` was read from, if it still holds that document as it was: no seek by key.
    const rowid = replaces === undefined ? undefined : SqliteDocument.rowidOf(replaces);
    if (rowid !== undefined) {
      const was = replaces?.value === null ? 1 : 0;
      const info = this.statement(
        'UPDATE documents SET body = ?, meta = ?, deleted = ?, txn_id = ? WHERE rowid = ? AND collection = ? AND id = ? AND deleted = ?',
      ).run(body, meta, deleted, txnId, rowid, collection, key, was);
      if (info.changes === 1) return was === 0;
    }
    const row = this.statement('SELECT rowid, deleted FROM documents WHERE collection = ? AND id = ?').get(collection, key) as
      { rowid: number; deleted: number } | undefined;
    if (row === undefined) {
      this.statement('INSERT INTO documents (collection, id, body, meta, deleted, txn_id) VALUES (?, ?, ?, ?, ?, ?)').run(
        collection,
        key,
        body,
        meta,
        deleted,
        txnId,
      );
      return false;
    }
    this.statement('UPDATE documents SET body = ?, meta = ?, deleted = ?, txn_id = ? WHERE rowid = ?').run(body, meta, deleted, txnId, row.rowid);
    return row.deleted === 0;
  }

  evict(query: DocumentQuery): JsonValue[] {
    const plan = this.translate(query);
    const bounded = isBounded(query);
    // Found first, then deleted by rowid: a DELETE … RETURNING runs its RETURNING as a trigger
    // on every row, which cost a third more than the deleting itself (10,000 of 100,000).
    const sql = plan && this.evictSql(plan, query);
    const stmt = sql === undefined ? undefined : this.preparedOrUndefined(sql);
    let rows: { id: Buffer; doc_id: string }[];
    if (plan === undefined || stmt === undefined) {
      const remove = this.statement('DELETE FROM documents WHERE collection = ? AND id = ?');
      rows = this.rowsInJs(query).map((r) => {
        remove.run(query.collection, r.id);
        return { id: r.id, doc_id: JSON.stringify((JSON.parse(r.body) as JsonObject)._id) };
      });
    } else {
      const binds = bounded ? plan.binds : this.unbounded(plan);
      const found = this.budgeted(query, () => stmt.all(binds) as { rowid: number; id: Buffer; doc_id: string }[]);
      if (found.length > 0)
        this.statement('DELETE FROM documents WHERE rowid IN (SELECT value FROM json_each(?))').run(JSON.stringify(found.map((r) => r.rowid)));
      rows = found;
    }
    // Only live documents are evicted.
    this.#live.add(query.collection, -rows.length);
    rows.sort((a, b) => Buffer.compare(a.id, b.id));
    return rows.map((r) => JSON.parse(r.doc_id) as JsonValue);
  }

  createIndex(index: IndexDefinition): boolean {
    const exists = this.statement('SELECT 1 FROM secondary_indexes WHERE collection = ? AND name = ?', true).get(index.collection, index.name);
    if (exists !== undefined) return false;
    if (index.collection.includes('\0') || index.name.includes('\0'))
      throw new UnsupportedQueryError('an index or collection name holding a NUL character cannot be indexed');
    const keys = index.keys.map((k) => {
      try {
        return { jp: jsonPath(k.path), descending: k.direction === 'DESC' };
      } catch (error) {
        if (!(error instanceof Untranslatable)) throw error;
        throw new UnsupportedQueryError(`the path ${JSON.stringify(k.path)} cannot be indexed: ${error.message}`, { path: k.path });
      }
    });
    const sqliteName = sqliteIndexName(index.collection, index.name);
    this.db.exec(createIndexSql(sqliteName, index.collection, keys));
    this.statement('INSERT INTO secondary_indexes (collection, name, keys, sqlite_name) VALUES (?, ?, ?, ?)').run(
      index.collection,
      index.name,
      JSON.stringify(index.keys),
      sqliteName,
    );
    this.#writePlannerStatistics();
    return true;
  }

  /** Gives SQLite's planner the fixed statistics of `plannerStatistics` for the documents table, in this transaction. */
  #writePlannerStatistics(): void {
    const rows = this.statement('SELECT sqlite_name, keys FROM secondary_indexes').all() as { sqlite_name: string; keys: string }[];
    // SQLite makes sqlite_stat1 itself, at the first ANALYZE: of the one-row clock table, at no cost.
    if (this.db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'").get() === undefined) this.db.exec('ANALYZE clock');
    this.db.prepare("DELETE FROM sqlite_stat1 WHERE tbl = 'documents'").run();
    const insert = this.db.prepare("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('documents', ?, ?)");
    for (const [idx, stat] of plannerStatistics(rows.map((r) => ({ sqliteName: r.sqlite_name, keys: (JSON.parse(r.keys) as unknown[]).length })))) {
      insert.run(idx, stat);
    }
    // The planner reads sqlite_stat1 when it loads the schema: this connection now, the others at
    // their next statement (the CREATE or DROP INDEX changed the schema).
    this.db.exec('ANALYZE sqlite_schema');
  }

  dropIndex(collection: string, name: string): boolean {
    const sqliteName = this.statement('SELECT sqlite_name FROM secondary_indexes WHERE collection = ? AND name = ?', true).get(collection, name) as
      string | undefined;
    if (sqliteName === undefined) return false;
    this.db.exec(`DROP INDEX ${sqlIdentifier(sqliteName)}`);
    this.statement('DELETE FROM secondary_indexes WHERE collection = ? AND name = ?').run(collection, name);
    this.#writePlannerStatistics();
    return true;
  }

  reapTombstones(reap: TombstoneReap): ReapedTombstone[] {
    // The condition is the expression of the partial index `documents_tombstones` (migration 4).
    const rows = this.statement(
      "DELETE FROM documents WHERE deleted = 1 AND json_extract(meta, '$.d[0]') <= @cut AND (@upto IS NULL OR txn_id <= @upto) " +
        "RETURNING collection, id, body -> '$._id' AS doc_id, txn_id",
    ).all({ cut: reap.deletedUpTo, upto: reap.uptoTxnId ?? null }) as { collection: string; id: Buffer; doc_id: string; txn_id: number }[];
    rows.sort((a, b) => (a.collection < b.collection ? -1 : a.collection > b.collection ? 1 : Buffer.compare(a.id, b.id)));
    return rows.map((r) => ({ collection: r.collection, id: JSON.parse(r.doc_id) as JsonValue, txnId: r.txn_id }));
  }

  setClock(state: ClockState): void {
    // The live counts go with the clock: one statement, on a page every commit writes.
    const live = this.#foldLive();
    if (live === undefined) this.statement('UPDATE clock SET txn_id = ?, hlc = ? WHERE one = 1').run(state.lastTxnId, state.lastHlc);
    else this.statement('UPDATE clock SET txn_id = ?, hlc = ?, live = ? WHERE one = 1').run(state.lastTxnId, state.lastHlc, live);
  }

  setSetting(key: string, value: string): void {
    this.statement('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  #savepoints = 0;

  savepoint(): Savepoint {
    const name = `s${++this.#savepoints}`;
    // Counted changes so far go into the counts, where rolling back to the savepoint keeps them.
    this.#flushLive();
    this.db.exec(`SAVEPOINT ${name}`);
    let done = false;
    return {
      release: () => {
        if (done) return;
        done = true;
        this.db.exec(`RELEASE ${name}`);
      },
      rollback: () => {
        if (done) return;
        done = true;
        this.db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
        this.#live.discard();
      },
    };
  }

  begin(): void {
    this.statement('BEGIN IMMEDIATE').run();
  }

  commit(): void {
    try {
      this.#flushLive();
      this.statement('COMMIT').run();
    } catch (error) {
      this.#live.discard(); // the counts known may not be the row's any more
      throw error;
    }
  }

  rollback(): void {
    this.#live.discard();
    if (this.db.inTransaction) this.statement('ROLLBACK').run();
  }
}

class SnapshotReader extends SqliteReader {
  // A deferred transaction takes its WAL snapshot at its first read, so read at once: the
  // snapshot is then the data committed when the read transaction began.
  begin(): void {
    this.statement('BEGIN DEFERRED').run();
    this.statement('SELECT txn_id FROM clock WHERE one = 1', true).get();
  }

  end(): void {
    if (this.db.inTransaction) this.statement('COMMIT').run();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function openConnection(Database: DatabaseConstructor, file: string): BetterSqlite3.Database {
  // A busy database (held by another program) is waited for at most this long: the wait blocks.
  const db = new Database(file, { timeout: 1000 });
  // A new store returns the pages an EVICT frees to the file system (reclaimSpace runs an
  // incremental vacuum). It takes effect only in a file with no table yet, and before WAL mode
  // writes the file's first page; elsewhere SQLite ignores it, and stores made before keep
  // their free pages for reuse (docs/eviction.md).
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  registerSqlFunctions(db);
  return db;
}

const MAX_IDLE_READERS = 4;

export class SqliteStorage implements StorageEngine {
  readonly kind = 'sqlite' as const;
  readonly directory: string;
  readonly #Database: DatabaseConstructor;
  readonly #file: string;
  readonly #lock: DirectoryLock;
  readonly #writeDb: BetterSqlite3.Database;
  readonly #writer: SqliteWriter;
  /** Read connections not in use; more are opened while several read transactions overlap. */
  readonly #idleReaders: SnapshotReader[] = [];
  readonly #allReaders = new Set<SnapshotReader>();
  #writing = false;
  #closed = false;

  private constructor(Database: DatabaseConstructor, file: string, directory: string, lock: DirectoryLock, writeDb: BetterSqlite3.Database) {
    this.#Database = Database;
    this.#file = file;
    this.directory = directory;
    this.#lock = lock;
    this.#writeDb = writeDb;
    this.#writer = new SqliteWriter(writeDb);
  }

  /** Opens (creating if needed) the store in a persistence directory, holding it exclusively. */
  static open(directory: string, logger?: Logger): SqliteStorage {
    logger?.debug(LOG_EVENTS.storeOpening, { directory });
    const Database = loadDatabase();
    try {
      mkdirSync(directory, { recursive: true });
    } catch (error) {
      throw new StoreError('store/io', `cannot create the store directory ${directory}: ${(error as Error).message}`, { cause: error });
    }
    const lock = DirectoryLock.acquire(Database, directory);
    logger?.debug(LOG_EVENTS.storeLocked, { lock_file: join(directory, 'lock') });
    let writeDb: BetterSqlite3.Database | undefined;
    try {
      const file = join(directory, DATABASE_FILE);
      writeDb = openConnection(Database, file);
      const foundVersion = migrate(writeDb, file);
      logger?.debug(LOG_EVENTS.storeMigrated, { file, schema_version: SCHEMA_VERSION, migrated_from: foundVersion });
      const storage = new SqliteStorage(Database, file, directory, lock, writeDb);
      storage.beginRead().end(); // one read connection ready, and the file proven readable
      return storage;
    } catch (error) {
      writeDb?.close();
      lock.release();
      if (error instanceof StoreError) throw error;
      throw new StoreError('store/io', `cannot open the store in ${directory}: ${(error as Error).message}`, { cause: error });
    }
  }

  beginRead(): ReadTransaction {
    this.#assertOpen();
    let reader = this.#idleReaders.pop();
    if (reader === undefined) {
      reader = new SnapshotReader(openConnection(this.#Database, this.#file));
      this.#allReaders.add(reader);
    }
    const session = reader;
    session.begin();
    let ended = false;
    return {
      reader: session,
      end: () => {
        if (ended) return;
        ended = true;
        session.end();
        if (this.#closed || this.#idleReaders.length >= MAX_IDLE_READERS) {
          this.#allReaders.delete(session);
          session.close();
        } else {
          this.#idleReaders.push(session);
        }
      },
    };
  }

  beginWrite(): WriteTransaction {
    this.#assertOpen();
    if (this.#writing) throw new Error('a storage write transaction is already open');
    try {
      this.#writer.begin();
    } catch (error) {
      // Another program (a backup, the sqlite3 shell) holds the database file.
      if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY') === true) {
        throw new StoreError('store/busy', `the store database in ${this.directory} is held by another program; the write was not made`, { cause: error });
      }
      throw error;
    }
    this.#writing = true;
    let open = true;
    const finish = (action: () => void): void => {
      if (!open) return;
      open = false;
      try {
        action();
      } finally {
        this.#writing = false;
      }
    };
    return {
      writer: this.#writer,
      commit: () => finish(() => this.#writer.commit()),
      rollback: () => finish(() => this.#writer.rollback()),
    };
  }

  read<T>(fn: (reader: StorageReader) => T): T {
    const tx = this.beginRead();
    try {
      return fn(tx.reader);
    } finally {
      tx.end();
    }
  }

  write<T>(fn: (writer: StorageWriter) => T): T {
    return writeThrough(this, fn);
  }

  reclaimSpace(): void {
    this.#assertOpen();
    if (this.#writing) throw new Error('reclaimSpace runs between write transactions');
    // A store made with auto_vacuum = INCREMENTAL gives its free pages back to the file system;
    // then the WAL is written back and truncated (readers still open may keep part of it).
    if ((this.#writeDb.pragma('auto_vacuum', { simple: true }) as number) === 2) this.#writeDb.pragma('incremental_vacuum');
    this.#writeDb.pragma('wal_checkpoint(TRUNCATE)');
  }

  freeBytes(): number {
    this.#assertOpen();
    const pages = this.#writeDb.pragma('freelist_count', { simple: true }) as number;
    const size = this.#writeDb.pragma('page_size', { simple: true }) as number;
    return pages * size;
  }

  sizeOnDisk(): number {
    const { databaseBytes, walBytes } = this.diskUsage();
    return databaseBytes + walBytes;
  }

  diskUsage(): DiskUsage {
    const size = (suffix: string): number => {
      try {
        return statSync(join(this.directory, DATABASE_FILE + suffix)).size;
      } catch {
        return 0; // the file does not exist (yet)
      }
    };
    return { databaseBytes: size(''), walBytes: size('-wal') + size('-shm') };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const reader of this.#allReaders) reader.close();
    this.#allReaders.clear();
    this.#idleReaders.length = 0;
    if (this.#writeDb.open) this.#writeDb.close();
    this.#lock.release();
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreError('store/closed', 'the store is closed; open a new one');
  }
}

/**
 * A read-only connection to the database of a store that its own connection (in another thread,
 * as a rule) writes: reads off the store's event loop, for the Big Peer's query threads. WAL
 * lets it read committed data while the store writes; each `read` is one snapshot, taken when
 * it starts, so it sees every transaction committed before. It takes no directory lock: the
 * store holds that.
 */
export class SqliteReadOnly {
  readonly #reader: SnapshotReader;

  private constructor(reader: SnapshotReader) {
    this.#reader = reader;
  }

  /** Opens the database of the store in `directory`, which must exist. */
  static open(directory: string): SqliteReadOnly {
    const Database = loadDatabase();
    const file = join(directory, DATABASE_FILE);
    let db: BetterSqlite3.Database | undefined;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true, timeout: 1000 });
      registerSqlFunctions(db);
      return new SqliteReadOnly(new SnapshotReader(db));
    } catch (error) {
      db?.close();
      throw new StoreError('store/io', `cannot open the store in ${directory} to read: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Runs `fn` on a snapshot of committed data. */
  read<T>(fn: (reader: StorageReader) => T): T {
    this.#reader.begin();
    try {
      return fn(this.#reader);
    } finally {
      this.#reader.end();
    }
  }

  close(): void {
    this.#reader.close();
  }
}
