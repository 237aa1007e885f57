/**
 * The storage interface of a peer: what the store needs of a database, and nothing more. Two
 * implementations pass one acceptance suite: SQLite (better-sqlite3, the real one) and an
 * in-memory twin that evaluates queries in JavaScript with the reference evaluator.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { Expr, OrderTerm } from '../dql/ast.ts';
import type { Params } from '../dql/evaluate.ts';
import type { DocumentMeta } from '../crdt/document-meta.ts';
import type { Budget } from '../budget.ts';
import type { IndexDefinition, PlanOperation, StoragePlan } from './index-definition.ts';

/** A document as stored: its value (`null` for a tombstone), merge metadata, last commit. */
export interface StoredDocument {
  readonly id: JsonValue;
  readonly value: JsonObject | null;
  readonly meta: DocumentMeta;
  readonly txnId: number;
}

/** Which live documents, in which order: WHERE, ORDER BY (then `_id`), LIMIT, OFFSET. */
export interface DocumentQuery {
  readonly collection: string;
  readonly where: Expr | undefined;
  readonly params: Params;
  readonly orderBy: readonly OrderTerm[];
  readonly limit: number | undefined;
  readonly offset: number;
  /**
   * The time the query may take: where the storage evaluates it row by row (in JavaScript, or
   * in SQLite through a function called per row) it checks the budget between rows and throws
   * `BudgetExceeded` once it is spent. Absent: no bound.
   */
  readonly budget?: Budget;
}

export interface CollectionInfo {
  readonly name: string;
  readonly documents: number;
  readonly tombstones: number;
}

/** The store's counters, persisted with every commit. */
export interface ClockState {
  readonly lastTxnId: number;
  readonly lastHlc: string;
}

/**
 * Where a page of `changedSince` stopped; opaque to callers, pass it back for the next page.
 * A cursor is meaningful only to the storage that made it (SQLite's key is a rowid, the
 * in-memory twin's a string).
 */
export interface ChangeCursor {
  /** The txn_id of the last document of the page. */
  readonly txnId: number;
  /** That document's position among the documents of its txn_id. */
  readonly key: string | number;
}

/** Which changed documents of a collection `changedSince` gives back, and how many at a time. */
export interface ChangeQuery {
  readonly collection: string;
  /** Only documents whose last commit is after this txn_id ... */
  readonly afterTxnId: number;
  /** ... and at or before this one (the snapshot an update is made from). */
  readonly uptoTxnId: number;
  /** Continue after this cursor (from the previous page), or from the start. */
  readonly cursor?: ChangeCursor;
  /** At most this many documents (>= 1). */
  readonly limit: number;
}

/** One page of `changedSince`. */
export interface ChangePage {
  /** In txn_id order, then a stable per-document key. */
  readonly documents: StoredDocument[];
  /** Pass as `cursor` for the next page; undefined when no more documents match. */
  readonly next: ChangeCursor | undefined;
}

/** Which tombstones `reapTombstones` removes (docs/storage.md, "Tombstones and the reaper"). */
export interface TombstoneReap {
  /** Tombstones whose deletion stamp (meta `d`, a hybrid-clock time) is at or before this one … */
  readonly deletedUpTo: string;
  /** … and whose last commit is at or before this txn_id (undefined: any commit). */
  readonly uptoTxnId?: number;
}

/** A tombstone `reapTombstones` removed. */
export interface ReapedTombstone {
  readonly collection: string;
  readonly id: JsonValue;
  /** Its last commit (the reap horizon is the highest of these). */
  readonly txnId: number;
}

export interface StorageReader {
  /** Values of the live documents matching the query, in order. */
  findValues(query: DocumentQuery): JsonObject[];
  /** The same documents with their metadata. */
  findDocuments(query: DocumentQuery): StoredDocument[];
  /** How many live documents match the query's condition (its order, limit and offset ignored). */
  count(query: DocumentQuery): number;
  /** One document by `_id`, tombstones included. */
  get(collection: string, id: JsonValue): StoredDocument | undefined;
  /**
   * Documents of a collection, tombstones included, whose txn_id is in (afterTxnId, uptoTxnId],
   * ordered by txn_id and then a stable per-document key; `next` is set when more may follow.
   * Evicted documents are gone and never returned. A document rewritten by a later txn moves
   * to its new txn_id, so with `uptoTxnId` no later than the first page's snapshot, pages read
   * from later snapshots give each document at most once: one rewritten meanwhile moves past
   * `uptoTxnId` and is left to the next update (from `afterTxnId = uptoTxnId`).
   * Throws a RangeError when `limit` is not an integer >= 1.
   */
  changedSince(query: ChangeQuery): ChangePage;
  /** Collections that hold at least one row, by name. */
  collections(): CollectionInfo[];
  clock(): ClockState;
  setting(key: string): string | undefined;
  /** The secondary indexes (of one collection, or all), by collection then name; absent where the storage has none (in memory). */
  indexes?(collection?: string): IndexDefinition[];
  /** How the storage would run the query as the operation; absent: JavaScript scans the collection. */
  explain?(query: DocumentQuery, operation: PlanOperation): StoragePlan;
}

export interface StorageWriter extends StorageReader {
  /** Writes the document unless one with its `_id` (live or tombstone) exists; tells which. */
  insertIfAbsent(collection: string, doc: StoredDocument): boolean;
  /**
   * `insertIfAbsent` of each document, in order (their `_id`s are distinct); tells which were
   * written. An engine with a round trip per statement writes them in one.
   */
  insertManyIfAbsent(collection: string, docs: readonly StoredDocument[]): boolean[];
  /**
   * Writes the document, replacing any with its `_id`. `replaces`, when given, is that document
   * as this storage returned it (a find or `get` of this collection): an engine may use it to
   * find the row without a search, and must write correctly whatever happened to the row since.
   * Engines that keep no such position ignore it.
   */
  put(collection: string, doc: StoredDocument, replaces?: StoredDocument): void;
  /** Removes the matching live documents and their metadata entirely; returns their `_id`s. */
  evict(query: DocumentQuery): JsonValue[];
  /**
   * Removes the tombstones `reap` selects, in every collection, entirely (as `evict` removes live
   * documents); live documents are never touched. Returns them in collection, then `_id` order.
   */
  reapTombstones(reap: TombstoneReap): ReapedTombstone[];
  setClock(state: ClockState): void;
  setSetting(key: string, value: string): void;
  /** Marks a point inside the transaction that its changes since can be undone to. */
  savepoint(): Savepoint;
  /** Builds a secondary index over the collection's documents; false (and nothing built) when one of its name exists. */
  createIndex?(index: IndexDefinition): boolean;
  /** Removes a secondary index; false when there is none of that name. */
  dropIndex?(collection: string, name: string): boolean;
}

/** A point inside a write transaction: `rollback()` undoes what came after it, `release()` keeps it. */
export interface Savepoint {
  release(): void;
  rollback(): void;
}

/** An open write transaction: its writer sees its own changes; nobody else does until commit. */
export interface WriteTransaction {
  readonly writer: StorageWriter;
  commit(): void;
  rollback(): void;
}

/**
 * A write transaction that may commit together with the next ones (`SharedWriters.acquireWrite`,
 * PostgreSQL's group commit). `commit()` ends it at once: what fails then undoes it alone and
 * throws, and the next write transaction may open. A Promise it returns resolves once the
 * transaction is durable, and rejects when the group it joined failed: then nothing of it was
 * committed. Until it resolves, nobody may be told of the commit (writer, observers, replication).
 * A plain `WriteTransaction` (its `commit()` returns nothing) is durable when `commit()` returns.
 */
export interface GroupedWriteTransaction {
  readonly writer: StorageWriter;
  commit(): void | Promise<void>;
  rollback(): void;
}

/** An open read transaction: a snapshot of committed data that stays the same until `end()`. */
export interface ReadTransaction {
  readonly reader: StorageReader;
  end(): void;
}

/**
 * A commit that another process made to a database this storage shares: several Big Peer nodes
 * on one PostgreSQL database. `collections` is what it wrote, or undefined when not known (a
 * commit found by polling rather than told by a notification): then any collection may have
 * changed.
 */
export interface ExternalCommit {
  readonly txnId: number;
  readonly collections: readonly string[] | undefined;
}

/** A store's bytes on disk, in parts (`StorageEngine.diskUsage`). */
export interface DiskUsage {
  readonly databaseBytes: number;
  readonly walBytes: number;
}

export interface StorageEngine {
  /** A name for logs and the store's path when it has no file: `sqlite`, `memory`, or an app's engine's own (the Big Peer's `postgres`). */
  readonly kind: string;
  /** Runs `fn` on a consistent snapshot of committed data. */
  read<T>(fn: (reader: StorageReader) => T): T;
  /** Runs `fn` in one atomic write transaction: all of it commits, or (if it throws) none of it. */
  write<T>(fn: (writer: StorageWriter) => T): T;
  /** Opens a snapshot that may stay open across awaits; several may be open at once. */
  beginRead(): ReadTransaction;
  /** Opens the one write transaction; it may stay open across awaits. A second is refused. */
  beginWrite(): WriteTransaction;
  /** Bytes the store occupies on disk (0 in memory). */
  sizeOnDisk(): number;
  /**
   * `sizeOnDisk()` in two parts: the database file, and the write-ahead log with its index
   * (SQLite's `-wal` and `-shm`; 0 where there is none). A checkpoint moves bytes from the second
   * to the first and shrinks the second: charted apart, it does not look like documents freed.
   */
  diskUsage(): DiskUsage;
  /**
   * Gives space freed by evictions back where it can: SQLite writes the WAL back and truncates
   * it, and a store created with incremental auto-vacuum returns its free pages to the file
   * system. Runs between write transactions (the caller holds the write slot).
   */
  reclaimSpace(): void;
  /** Bytes of free pages kept in the file for reuse (0 in memory). */
  freeBytes(): number;
  close(): void;
}

/**
 * What an engine adds when several processes write one database (the Big Peer's nodes on one
 * PostgreSQL database). The store uses each member where the engine has it; an engine only this
 * process writes (SQLite, in memory) has none of them.
 */
export interface SharedWriters {
  /**
   * Opens the one write transaction once this process may write, waiting without blocking the
   * event loop: the database lets one process write at a time, so that txn_ids commit in their
   * order. The writer's `clock()` is then the database's latest, which other processes may have
   * moved on. Without it, the store opens `beginWrite()` at once. The transaction may join a
   * group whose earlier members are not yet durable: its `clock()` is then the group's.
   * `alone`: the caller's code may await anything (an interactive transaction), even an earlier
   * write's answer, which its group's COMMIT would wait for: it begins a group, never joins one.
   */
  acquireWrite?(options?: { readonly alone?: boolean }): GroupedWriteTransaction | Promise<GroupedWriteTransaction>;
  /**
   * Tells of commits other processes made (see ExternalCommit), in txn_id order, each once at
   * most; a listener may be told of a txn_id it already knows.
   */
  onExternalCommit?(listener: (commit: ExternalCommit) => void): () => void;
  /** Looks for commits of other processes now, and resolves after telling of any it found (read-your-writes). */
  pollExternalCommits?(): Promise<void>;
}
