/**
 * The store of a peer: `sync.store`. Reads run on a snapshot of committed data and never wait.
 * Every write runs in the store's one write slot (first come, first served) as one atomic
 * transaction that commits with the store's next `txn_id` and an originator: `User` for every
 * public API, `Internal` and `Replication` only for the peer's own jobs, which reach the store
 * through `internalWrites` rather than by saying who they are.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import type { Originator } from '../../shared/transactions.ts';
import type { ConflictPolicy } from '../dql/ast.ts';
import { HybridClock } from '../crdt/hlc.ts';
import type { Stamp } from '../crdt/document-meta.ts';
import { StoreError, UnsupportedQueryError } from '../errors.ts';
import type { Logger } from '../log/log-hub.ts';
import { ObserverRegistry, type ObserverHandler, type SignalNextHandler, type StoreObserver } from '../observers/observer-registry.ts';
import type {
  CollectionInfo,
  DiskUsage,
  ExternalCommit,
  SharedWriters,
  StorageEngine,
  StorageReader,
  StorageWriter,
  GroupedWriteTransaction,
} from '../storage/types.ts';
import { RecordingWriter, type DocumentChange } from '../storage/recording-writer.ts';
import type { Timers } from '../time.ts';
import { prepareWithArgs } from '../query/prepare.ts';
import { ROLLBACK, TransactionHandle, type Transaction, type TransactionOptions } from './transaction.ts';
import { WriteSlot, type BlockedWait, type Lease, type SlotHolder, type WaitingWrite } from './write-slot.ts';
import { Collection } from './collection.ts';
import { assertSystemCollection, assertWritable } from './internal-collections.ts';
import { INTERNAL_COLLECTIONS } from '../../shared/internal-collections.ts';
import { createIdGenerator, type IdGenerator } from '../query/ids.ts';
import { insertDocuments, runMutation, type WriteContext } from '../query/mutations.ts';
import type { QueryResult } from '../query/query-result.ts';
import { documentQueryOf, runSelect } from '../query/select.ts';
import { commandOf, createIndex, dropIndex, explain, isSystemCollection, keysText, selectSystemIndexes } from '../query/commands.ts';
import type { Command } from '../dql/ast.ts';
import { toParams } from '../query/args.ts';
import { prepare, type PreparedStatement } from '../query/prepare.ts';
import { SubscriptionSet, type SyncSubscription } from '../subscriptions/subscription-set.ts';
import { EvictionWatch, checkEviction, type EvictionCheck, type ResyncEvent } from './eviction-watch.ts';
import type { SubscriptionSetShape } from '../../shared/subscriptions.ts';
import type { Params } from '../dql/evaluate.ts';
import type { Budget } from '../budget.ts';
import type { MutationTargets } from '../query/targets.ts';
import { errorMessage } from '../../shared/error-message.ts';

export type { QueryResult } from '../query/query-result.ts';

/** How `execute` runs a statement. */
export interface ExecuteOptions {
  /**
   * The time it may take (the Big Peer's statement timeout). It is checked between rows and
   * documents, and once more before a mutation commits: spent, `execute` rejects with
   * `BudgetExceeded` (`query/timeout`) and a mutation is rolled back. A mutation waiting for
   * the write slot when it is spent never runs. SQLite checks it at every row it looks at.
   */
  readonly budget?: Budget;
  /**
   * For an UPDATE, DELETE or EVICT: the `_id`s its condition selected in an earlier snapshot of
   * committed data (found off the event loop, by a query thread). Inside the transaction only
   * the documents written since that snapshot are checked again (query/targets.ts).
   */
  readonly targets?: MutationTargets;
}

/** Collections every peer has from the start: the internal ones, which the peer owns. */
export const BUILT_IN_COLLECTIONS: readonly string[] = INTERNAL_COLLECTIONS;

export { assertWritable, isInternalCollection } from './internal-collections.ts';

/** A write transaction as the timeline shows it. */
export interface CommittedTransaction {
  readonly txnId: number;
  readonly originator: Originator;
  readonly hint: string | undefined;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly collections: readonly string[];
  /** The documents written, with their new values. */
  readonly changes: readonly DocumentChange[];
}

/** A write inside the slot: the context mutations need. */
export type OpenWrite = WriteContext;

/**
 * The peer's own settings (the auth client's cached certificate): read from committed data;
 * written in the write slot, so never inside an open transaction, but outside any `txn_id`: a
 * setting is not a document, is not replicated, and wakes no observer.
 */
export interface InternalSettings {
  get(key: string): string | undefined;
  set(entries: Readonly<Record<string, string>>): Promise<void>;
}

/** Writes on behalf of the peer itself, with the originator of the job that writes. */
export interface InternalWrites {
  write<T>(originator: Exclude<Originator, 'User'>, hint: string | undefined, fn: (write: OpenWrite) => T): Promise<{ result: T; txnId: number }>;
  /** Moves the store's hybrid clock past a stamp received from a peer, so later local writes win over it. */
  observeClock(hlc: string): void;
  /** Runs one DQL mutation as its own transaction under the job's originator (internal collections allowed). */
  execute(originator: Exclude<Originator, 'User'>, hint: string | undefined, statement: string, args?: Record<string, unknown>): Promise<QueryResult>;
  /**
   * The same, unless `skip`, run first inside the transaction, says to skip it: then the mutation
   * does not run and it resolves to undefined. What `skip` writes (a setting: a job's mark that
   * it ran) commits with the mutation, so that processes sharing the store run a job once.
   */
  executeUnless(
    originator: Exclude<Originator, 'User'>,
    hint: string | undefined,
    statement: string,
    args: Record<string, unknown> | undefined,
    skip: (writer: StorageWriter) => boolean,
  ): Promise<QueryResult | undefined>;
}

export interface StoreOptions {
  readonly storage: StorageEngine & SharedWriters;
  /** This peer's key: the writer named in merge metadata. */
  readonly peerKey: string;
  readonly timers: Timers;
  readonly logger: Logger;
  readonly newId?: IdGenerator;
  /** Runs a function after the current turn; observers re-run there (default: setImmediate). */
  readonly schedule?: (fn: () => void) => void;
}

interface StoreEvents {
  committed: ((txn: CommittedTransaction) => void)[];
  external: ((commit: ExternalCommit) => void)[];
  waited: ((wait: BlockedWait) => void)[];
}

export class Store {
  readonly #storage: StorageEngine & SharedWriters;
  readonly #peerKey: string;
  readonly #clock: HybridClock;
  readonly #newId: IdGenerator;
  readonly #timers: Timers;
  readonly #log: Logger;
  readonly #slot: WriteSlot;
  readonly #observers: ObserverRegistry;
  readonly #subscriptions: SubscriptionSet;
  /** Warns of EVICTs the subscriptions overlap, and of evicted documents that come back. */
  readonly #eviction: EvictionWatch;
  /** The write transaction the current code runs inside, while it is open. */
  readonly #insideWrite = new AsyncLocalStorage<{ readonly store: Store; open: boolean }>();
  readonly #events: StoreEvents = { committed: [], external: [], waited: [] };
  readonly #stopExternal: (() => void) | undefined;
  #lastTxnId: number;
  /**
   * The last txn_id handed to the storage's commit and not yet durable (a PostgreSQL commit
   * group): the next write of the group sees it as the clock's, and it is not another process's.
   */
  #pendingTxnId = 0;
  #readers = 0;
  #closed = false;

  /** Writes with the `Internal` or `Replication` originator: for the peer's composition root only. */
  readonly internalWrites: InternalWrites;
  /** The peer's settings: for the peer's composition root only. */
  readonly internalSettings: InternalSettings;

  constructor(options: StoreOptions) {
    this.#storage = options.storage;
    this.#peerKey = options.peerKey;
    this.#timers = options.timers;
    this.#log = options.logger;
    const state = options.storage.read((r) => r.clock());
    this.#lastTxnId = state.lastTxnId;
    this.#clock = new HybridClock(() => options.timers.now(), state.lastHlc);
    this.#newId = options.newId ?? createIdGenerator(() => options.timers.now());
    this.#slot = new WriteSlot({
      timers: options.timers,
      logger: options.logger.child('txn'),
      nextTxnId: () => Math.max(this.#lastTxnId, this.#pendingTxnId) + 1,
      onWaited: (wait) => {
        for (const listener of this.#events.waited) {
          try {
            listener(wait);
          } catch (error) {
            this.#log.warn(LOG_EVENTS.listenerFailed, { listener: 'onBlockedWait', error: errorMessage(error) });
          }
        }
      },
    });
    this.#observers = new ObserverRegistry({
      read: (fn) => this.#read(fn),
      lastTxnId: () => this.#lastTxnId,
      logger: options.logger.child('observers'),
      schedule: options.schedule,
    });
    this.internalWrites = {
      write: (originator, hint, fn) => this.#write(originator, hint, fn),
      observeClock: (hlc) => this.#clock.observe(hlc),
      execute: async (originator, hint, statement, args) => {
        const done = await this.internalWrites.executeUnless(originator, hint, statement, args, () => false);
        return done as QueryResult;
      },
      executeUnless: async (originator, hint, statement, args, skip) => {
        this.#assertOpen();
        const { prepared, params } = prepareWithArgs(statement, args);
        if (prepared.ast.kind === 'select') throw new UnsupportedQueryError('internalWrites.execute takes a mutation');
        const { result, txnId } = await this.#write(originator, hint, (w) => (skip(w.writer) ? undefined : runMutation(w, prepared, params)));
        return result === undefined ? undefined : { items: [], mutatedDocumentIds: result, commitId: txnId };
      },
    };
    this.internalSettings = {
      get: (key) => {
        this.#assertOpen();
        return this.#read((r) => r.setting(key));
      },
      set: async (entries) => {
        this.#assertOpen();
        const lease = await this.#slot.acquire({ originator: 'Internal', hint: 'settings' });
        try {
          this.#assertOpen();
          const opening = this.#openStorageWrite();
          const tx = opening instanceof Promise ? await opening : opening;
          try {
            for (const [key, value] of Object.entries(entries)) tx.writer.setSetting(key, value);
            await this.#commitStorage(tx, lease);
          } catch (error) {
            tx.rollback();
            throw error;
          }
        } finally {
          lease.release();
        }
      },
    };
    this.#subscriptions = new SubscriptionSet(options.logger.child('subscriptions'));
    this.#eviction = new EvictionWatch({ logger: options.logger.child('eviction'), timers: options.timers, subscriptions: () => this.#subscriptions.list() });
    // Every peer is subscribed to presence from the start: the set begins with it, unannounced.
    this.#subscriptions.register(prepare(`SELECT * FROM ${BUILT_IN_COLLECTIONS[0]}`), {}, true, false);
    this.#stopExternal = options.storage.onExternalCommit?.((commit) => this.#externalCommitted(commit));
  }

  /**
   * Registers a sync subscription: the documents this peer asks other peers for
   * (`SELECT * FROM <collection> [WHERE …] [ORDER BY …] [LIMIT …]`). Replication serves it.
   */
  registerSubscription(statement: string, args?: Record<string, unknown>): SyncSubscription {
    this.#assertOpen();
    const { prepared, params } = prepareWithArgs(statement, args);
    return this.subscribePrepared(prepared, params);
  }

  #subscriptionGuard: (collection: string) => void = () => {};

  /** @internal Checks each new subscription's collection (the Sync refuses unreadable ones). */
  setSubscriptionGuard(guard: (collection: string) => void): void {
    this.#subscriptionGuard = guard;
  }

  /** The live sync subscriptions, the peer's own (`__presence`) included. */
  get subscriptions(): SyncSubscription[] {
    return this.#subscriptions.list();
  }

  /** The subscription set in the spec's shape (`everything`, `queries` by collection). */
  subscriptionSet(): SubscriptionSetShape {
    return this.#subscriptions.toShape();
  }

  /** @internal Registers a subscription of a statement already prepared (the collection API's `subscribe`). */
  subscribePrepared(prepared: PreparedStatement, params: Params): SyncSubscription {
    this.#assertOpen();
    if (isSystemCollection(prepared.ast.collection)) assertSystemCollection(prepared.ast.collection, 'a subscription');
    this.#subscriptionGuard(prepared.ast.collection);
    return this.#subscriptions.register(prepared, params);
  }

  /** Called whenever the subscription set changes. Returns an unsubscribe function. */
  onSubscriptionsChange(listener: () => void): () => void {
    return this.#subscriptions.onChange(listener);
  }

  /**
   * Runs one DQL statement with its named arguments. A SELECT returns `items` at once from
   * committed data; INSERT, UPDATE, DELETE and EVICT wait for the write slot, run as one
   * transaction, and return `mutatedDocumentIds` and `commitId`. A failing mutation changes nothing.
   */
  async execute(statement: string, args?: Record<string, unknown>, options: ExecuteOptions = {}): Promise<QueryResult> {
    this.#assertOpen();
    const command = commandOf(statement);
    if (command !== undefined) return this.#runCommand(command, statement, args);
    const { prepared, params } = prepareWithArgs(statement, args);
    const { budget, targets } = options;
    if (prepared.ast.kind === 'select') {
      if (isSystemCollection(prepared.ast.collection)) {
        assertSystemCollection(prepared.ast.collection);
        return { items: this.#read((r) => selectSystemIndexes(r, prepared, params)), mutatedDocumentIds: [], commitId: null };
      }
      return { items: this.#read((r) => runSelect(r, prepared, params, undefined, budget)), mutatedDocumentIds: [], commitId: null };
    }
    assertWritable(prepared.ast.collection);
    const { result, txnId } = await this.#write(
      'User',
      undefined,
      (w) => {
        return runMutation(budget === undefined && targets === undefined ? w : { ...w, budget, targets }, prepared, params);
      },
      budget,
    );
    return { items: [], mutatedDocumentIds: result, commitId: txnId };
  }

  /**
   * CREATE INDEX and DROP INDEX hold the write slot and change the storage in one transaction of
   * their own, with no txn_id: no document changes, nothing replicates. EXPLAIN reads.
   */
  async #runCommand(command: Command, text: string, args: Record<string, unknown> | undefined): Promise<QueryResult> {
    const params = toParams(args);
    const kind = this.#storage.kind;
    if (command.kind === 'explain') return { items: [this.#read((r) => explain(r, command, text, params, kind))], mutatedDocumentIds: [], commitId: null };
    if (command.kind !== 'create-index' && command.kind !== 'drop-index') throw new UnsupportedQueryError(`${command.kind.toUpperCase()} is not a command`);
    if (this.#insideWrite.getStore()?.open === true) {
      throw new UnsupportedQueryError(`${command.kind === 'create-index' ? 'CREATE' : 'DROP'} INDEX runs on its own, not inside a write transaction`);
    }
    const { name, collection } = command;
    const verb = command.kind === 'create-index' ? 'CREATE' : 'DROP';
    const lease = await this.#slot.acquire({ originator: 'User', hint: `${verb} INDEX ${name} ON ${collection}` });
    try {
      this.#assertOpen();
      const opening = this.#openStorageWrite();
      const tx = opening instanceof Promise ? await opening : opening;
      const log = this.#log.child('store');
      try {
        let done: boolean;
        if (command.kind === 'create-index') {
          const documents = tx.writer.collections().find((c) => c.name === collection)?.documents ?? 0;
          const started = this.#timers.now();
          const fields = { name, collection, keys: keysText(command.keys), documents };
          if (tx.writer.indexes?.(collection).some((i) => i.name === name) !== true) log.info(LOG_EVENTS.indexBuilding, fields);
          done = createIndex(tx.writer, command, kind);
          await this.#commitStorage(tx, lease);
          if (done) log.info(LOG_EVENTS.indexBuilt, { name, collection, documents, elapsed: `${(this.#timers.now() - started).toFixed(3)}ms` });
        } else {
          done = dropIndex(tx.writer, name, collection, command.ifExists, kind);
          await this.#commitStorage(tx, lease);
          if (done) log.info(LOG_EVENTS.indexDropped, { name, collection });
        }
        return {
          items: [{ index: name, collection, [command.kind === 'create-index' ? 'created' : 'dropped']: done }],
          mutatedDocumentIds: [],
          commitId: null,
        };
      } catch (error) {
        tx.rollback();
        throw error;
      }
    } finally {
      lease.release();
    }
  }

  /**
   * Runs `fn` as one transaction. A write transaction commits when `fn` returns, and rolls back
   * when it throws (rethrowing) or returns `'rollback'`. Resolves to what `fn` returned.
   */
  async transaction<T>(fn: (tx: Transaction) => Promise<T> | T, options: TransactionOptions = {}): Promise<T> {
    this.#assertOpen();
    if (options.isReadOnly === true) {
      const read = this.#storage.beginRead();
      this.#readers++;
      const tx = new TransactionHandle({
        hint: options.hint,
        reader: read.reader,
        write: undefined,
        assertWritable,
        assertOpen: () => this.#assertOpen(),
        budget: options.budget,
      });
      try {
        return await fn(tx);
      } finally {
        tx.finish();
        this.#readers--;
        read.end();
      }
    }
    let outcome: T | undefined;
    try {
      await this.#write(
        'User',
        options.hint,
        async (w) => {
          // Spent while it waited for the write slot: it does not start.
          options.budget?.check();
          const tx = new TransactionHandle({
            hint: options.hint,
            reader: w.writer,
            write: w,
            assertWritable,
            assertOpen: () => this.#assertOpen(),
            budget: options.budget,
          });
          try {
            outcome = await fn(tx);
            // The last check, right before the commit: an answer already given as a timeout never commits.
            if (outcome !== ROLLBACK) options.budget?.check();
          } finally {
            tx.finish();
          }
          return outcome === ROLLBACK ? RolledBack : undefined;
        },
        undefined,
        true,
      );
    } catch (error) {
      if (error === RolledBack) return outcome as T;
      throw error;
    }
    return outcome as T;
  }

  /** A live query: `handler` gets the result now, then after each commit that changes it. */
  registerObserver(statement: string, handler: ObserverHandler, args?: Record<string, unknown>): StoreObserver {
    return this.#register(statement, (event) => handler(event), args, false);
  }

  /** Like `registerObserver`, but `handler` is called again only after it calls `signalNext()`. */
  registerObserverWithSignalNext(statement: string, handler: SignalNextHandler, args?: Record<string, unknown>): StoreObserver {
    return this.#register(statement, handler, args, true);
  }

  /** The live observers. */
  get observers(): StoreObserver[] {
    return this.#observers.list();
  }

  #register(statement: string, handler: SignalNextHandler, args: Record<string, unknown> | undefined, signal: boolean): StoreObserver {
    this.#assertOpen();
    const { prepared, params } = prepareWithArgs(statement, args);
    return this.observePrepared(prepared, params, handler, signal);
  }

  /** @internal Registers an observer of a statement already prepared (the collection API's `observeLocal`). */
  observePrepared(prepared: PreparedStatement, params: Params, handler: SignalNextHandler, signal: boolean): StoreObserver {
    this.#assertOpen();
    if (prepared.ast.kind !== 'select') {
      throw new UnsupportedQueryError(`an observer takes a SELECT, not ${prepared.ast.kind.toUpperCase()}`, { statement: prepared.text });
    }
    if (isSystemCollection(prepared.ast.collection)) assertSystemCollection(prepared.ast.collection, 'an observer');
    return this.#observers.register(prepared, params, handler, signal);
  }

  /** The collection of that name; `sync.store[name]` is the same. */
  collection(name: string): Collection {
    return new Collection(this, name);
  }

  /** Collections with their live document and tombstone counts, the built-in ones included. */
  collections(): CollectionInfo[] {
    const found = this.#read((r) => r.collections());
    for (const name of BUILT_IN_COLLECTIONS) {
      if (!found.some((c) => c.name === name)) found.push({ name, documents: 0, tombstones: 0 });
    }
    return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** This peer's key: the writer named in merge metadata. */
  get peerKey(): string {
    return this.#peerKey;
  }

  /** The last `txn_id` committed. */
  get lastTxnId(): number {
    return this.#lastTxnId;
  }

  /** The writer holding the write slot, if any, and those waiting for it (`waiters`, in order). */
  get writeSlot(): { holder: SlotHolder | undefined; waiting: number; waiters: readonly WaitingWrite[]; openReadTransactions: number } {
    const waiters = this.#slot.waiters;
    return { holder: this.#slot.holder, waiting: waiters.length, waiters, openReadTransactions: this.#readers };
  }

  /** Called after every commit (for the inspector's timeline). Returns an unsubscribe function. */
  onCommit(listener: (txn: CommittedTransaction) => void): () => void {
    return this.#listen(this.#events.committed, listener);
  }

  /**
   * Called for each commit another process made to the database this store shares (several Big
   * Peer nodes on one PostgreSQL database), once this store knows of it; `collections` is
   * undefined when any may have changed. Never called for a store only this process writes.
   */
  onExternalCommit(listener: (commit: ExternalCommit) => void): () => void {
    return this.#listen(this.#events.external, listener);
  }

  /**
   * Looks now for commits other processes made (read-your-writes across Big Peer nodes): once it
   * resolves, `lastTxnId` is at least the database's last commit as it was when called.
   */
  async catchUp(): Promise<void> {
    this.#assertOpen();
    await this.#storage.pollExternalCommits?.();
  }

  #externalCommitted(commit: ExternalCommit): void {
    if (this.#closed || commit.txnId <= this.#lastTxnId) return;
    this.#lastTxnId = commit.txnId;
    this.#log.child('txn').debug(LOG_EVENTS.externalCommitSeen, { txn_id: commit.txnId, collections: commit.collections?.join(',') ?? '*' });
    this.#observers.changedCollections(commit.collections);
    for (const listener of this.#events.external) {
      try {
        listener(commit);
      } catch (error) {
        this.#log.warn(LOG_EVENTS.listenerFailed, { listener: 'onExternalCommit', error: errorMessage(error) });
      }
    }
  }

  /**
   * Opens the storage's write transaction, waiting (without blocking) where other processes
   * write the same database, and catches up with what they committed meanwhile.
   */
  #openStorageWrite(alone = false): GroupedWriteTransaction | Promise<GroupedWriteTransaction> {
    const opening = this.#storage.acquireWrite?.({ alone }) ?? this.#storage.beginWrite();
    return opening instanceof Promise ? opening.then((tx) => this.#caughtUp(tx)) : this.#caughtUp(opening);
  }

  /**
   * Commits `tx`. Where the storage commits writes in groups (its `commit()` returns a Promise),
   * the slot is freed as soon as the write is in the group, so the next writer may join it, and
   * this resolves once the group is durable.
   */
  async #commitStorage(tx: GroupedWriteTransaction, lease: Lease): Promise<void> {
    const durable = tx.commit();
    if (!(durable instanceof Promise)) return;
    lease.release();
    await durable;
  }

  #caughtUp(tx: GroupedWriteTransaction): GroupedWriteTransaction {
    try {
      const shared = tx.writer.clock();
      // Where other processes write too, the stamps of this write must follow theirs (they may
      // have committed since, told or not): later writes win merges. Here, where only this one
      // writes, the stamp is this clock's own last one, and observing it changes nothing.
      if (shared.lastHlc !== '') this.#clock.observe(shared.lastHlc);
      // A clock past this store's own writes in a group not yet durable is another process's commit.
      if (shared.lastTxnId > Math.max(this.#lastTxnId, this.#pendingTxnId)) this.#externalCommitted({ txnId: shared.lastTxnId, collections: undefined });
      return tx;
    } catch (error) {
      // The transaction is not handed out: it must not stay open, holding the write lock.
      tx.rollback();
      throw error;
    }
  }

  /** Called for every writer that had to wait for the slot, once it gets it. */
  onBlockedWait(listener: (wait: BlockedWait) => void): () => void {
    return this.#listen(this.#events.waited, listener);
  }

  #listen<F>(list: F[], listener: F): () => void {
    list.push(listener);
    return () => {
      const i = list.indexOf(listener);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /** Bytes the store occupies on disk. */
  sizeOnDisk(): number {
    this.#assertOpen();
    return this.#storage.sizeOnDisk();
  }

  /** `sizeOnDisk()` in two parts: the database file, and the write-ahead log (SQLite's `-wal` and `-shm`). */
  diskUsage(): DiskUsage {
    this.#assertOpen();
    return this.#storage.diskUsage();
  }

  /** Bytes of free pages the store file keeps for reuse (freed by evictions, not yet reused). */
  freeBytes(): number {
    this.#assertOpen();
    return this.#storage.freeBytes();
  }

  /**
   * Gives space freed by evictions back (storage/types.ts `reclaimSpace`), between write
   * transactions: it waits for the write slot, as an `Internal` job.
   */
  async reclaimSpace(): Promise<void> {
    this.#assertOpen();
    const lease = await this.#slot.acquire({ originator: 'Internal', hint: 'reclaim space' });
    try {
      this.#assertOpen();
      this.#storage.reclaimSpace();
    } finally {
      lease.release();
    }
  }

  /** @internal Runs `fn` on a snapshot of committed data. */
  readNow<T>(fn: (reader: StorageReader) => T): T {
    this.#assertOpen();
    return this.#read(fn);
  }

  /** @internal Inserts documents under a conflict policy as one User transaction (used by `upsert`). */
  async insert(collection: string, docs: readonly JsonObject[], policy: ConflictPolicy): Promise<{ ids: JsonValue[]; txnId: number }> {
    this.#assertOpen();
    assertWritable(collection);
    const { result, txnId } = await this.#write('User', undefined, (w) => {
      return insertDocuments(w, collection, docs, policy);
    });
    return { ids: result, txnId };
  }

  /** @internal Runs `fn` as one User write transaction (used by the collection API). */
  async writeAsUser<T>(hint: string | undefined, fn: (write: OpenWrite) => T): Promise<{ result: T; txnId: number }> {
    this.#assertOpen();
    return this.#write('User', hint, fn);
  }

  #read<T>(fn: (reader: StorageReader) => T): T {
    this.#readers++;
    try {
      return this.#storage.read(fn);
    } finally {
      this.#readers--;
    }
  }

  // The one way to write: wait for the slot, run `fn` in a storage transaction, commit with the
  // slot's txn id, log the commit, wake observers. A throw (or RolledBack) rolls everything back.
  async #write<T>(
    originator: Originator,
    hint: string | undefined,
    fn: (write: OpenWrite) => T | Promise<T>,
    budget?: Budget,
    interactive = false,
  ): Promise<{ result: T; txnId: number }> {
    const outer = this.#insideWrite.getStore();
    if (outer?.store === this && outer.open) {
      throw new UnsupportedQueryError(
        'this write would wait for the write transaction it runs inside; inside store.transaction, use the transaction’s execute',
      );
    }
    const lease = await this.#slot.acquire({ originator, hint });
    const startedAt = this.#timers.now();
    let storageTxn: GroupedWriteTransaction | undefined;
    let txnId = lease.txnId;
    let committed: CommittedTransaction | undefined;
    try {
      this.#assertOpen();
      // An interactive transaction may await an earlier write's answer: it never joins that write's group.
      const opening = this.#openStorageWrite(interactive);
      storageTxn = opening instanceof Promise ? await opening : opening;
      this.#assertOpen(); // closed while it waited for other processes' writes
      // The database's next txn_id: the slot's guess, unless another process committed meanwhile.
      txnId = storageTxn.writer.clock().lastTxnId + 1;
      const stamp: Stamp = [this.#clock.tick(), this.#peerKey];
      const recorder = new RecordingWriter(storageTxn.writer);
      const write: OpenWrite = { writer: recorder, txnId, stamp, newId: this.#newId, beforeEvict: (query) => this.#eviction.beforeEvict(recorder, query) };
      const scope = { store: this as Store, open: true };
      let result: T | typeof RolledBack;
      try {
        result = await this.#insideWrite.run(scope, () => fn(write));
      } finally {
        scope.open = false;
      }
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a private sentinel: caught in transaction(), never seen outside
      if (result === RolledBack) throw RolledBack;
      this.#assertOpen(); // closed while the transaction ran: nothing is committed
      budget?.check(); // spent: nothing is committed, whatever the statement did
      storageTxn.writer.setClock({ lastTxnId: txnId, lastHlc: this.#clock.last });
      const durable = storageTxn.commit();
      if (durable instanceof Promise) {
        // In the storage's commit group: the next writer may join it; this one is told, and the
        // observers and sessions are, only once the group is durable.
        this.#pendingTxnId = Math.max(this.#pendingTxnId, txnId);
        lease.release();
        try {
          await durable;
        } catch (error) {
          // Nothing of the group committed: the next write takes these txn_ids again.
          this.#pendingTxnId = this.#lastTxnId;
          this.#log.child('txn').debug(LOG_EVENTS.writeTxnRolledBack, { txn_id: txnId, originator, reason: errorMessage(error) });
          storageTxn = undefined;
          throw error;
        }
      }
      this.#lastTxnId = Math.max(this.#lastTxnId, txnId);
      const changes = recorder.changes;
      committed = {
        txnId,
        originator,
        hint,
        startedAt,
        durationMs: this.#timers.now() - startedAt,
        collections: [...new Set(changes.map((c) => c.collection))],
        changes,
      };
      return { result, txnId };
    } catch (error) {
      if (storageTxn !== undefined) {
        storageTxn.rollback();
        this.#log.child('txn').debug(LOG_EVENTS.writeTxnRolledBack, {
          txn_id: txnId,
          originator,
          reason: error === RolledBack ? 'rollback requested' : errorMessage(error),
        });
      }
      throw error;
    } finally {
      lease.release();
      // After the slot is free: what follows a commit can never turn it into a failure.
      if (committed !== undefined) this.#afterCommit(committed);
    }
  }

  #afterCommit(txn: CommittedTransaction): void {
    const log = this.#log.child('txn');
    log.debug(LOG_EVENTS.writeTxnCommitted, { txn_id: txn.txnId, originator: txn.originator });
    log.debug(LOG_EVENTS.databaseChangeNotified, { transaction: txn.txnId });
    this.#observers.changed(txn.changes);
    for (const listener of this.#events.committed) {
      try {
        listener(txn);
      } catch (error) {
        log.warn(LOG_EVENTS.listenerFailed, { listener: 'onCommit', error: errorMessage(error) });
      }
    }
    this.#eviction.committed(txn.originator, txn.changes);
  }

  /**
   * What an EVICT would do now, without doing it: how many documents it removes and, for each
   * subscription that matches some of them, how many would come back by replication (spec 3.2).
   */
  checkEviction(statement: string, args?: Record<string, unknown>): EvictionCheck {
    this.#assertOpen();
    const { prepared, params } = prepareWithArgs(statement, args);
    const ast = prepared.ast;
    if (ast.kind !== 'evict') throw new UnsupportedQueryError(`checkEviction takes an EVICT, not ${ast.kind.toUpperCase()}`, { statement: prepared.text });
    return this.#read((reader) => checkEviction(reader, documentQueryOf(ast, params), this.#subscriptions.list()));
  }

  /** Called when documents this peer evicted come back by replication (the loop). Returns an unsubscribe function. */
  onResync(listener: (event: ResyncEvent) => void): () => void {
    return this.#eviction.onResync(listener);
  }

  /** Cancels the observers and closes the storage; later calls fail with `store/closed`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopExternal?.();
    this.#observers.close();
    this.#subscriptions.close();
    this.#storage.close();
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreError('store/closed', 'the store is closed; open a new one');
  }
}

/** Thrown inside the write pipeline to roll back without an error. */
const RolledBack: unique symbol = Symbol('rolled back');

/** `sync.store`: the store, whose unknown properties are collections (`sync.store.orders`). */
export type StoreWithCollections = Store & { readonly [collection: string]: Collection };

const NOT_COLLECTIONS = new Set(['then', 'toJSON', 'constructor', 'inspect']);

export function withCollectionProperties(store: Store): StoreWithCollections {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      if (typeof prop === 'symbol' || prop in target || NOT_COLLECTIONS.has(prop)) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        let fn = bound.get(prop);
        if (fn === undefined) bound.set(prop, (fn = (value as (...a: unknown[]) => unknown).bind(target)));
        return fn;
      }
      return target.collection(prop);
    },
  }) as StoreWithCollections;
}
