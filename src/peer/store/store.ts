/**
 * The store of a peer: `sync.store`. Every statement runs as one atomic transaction; a mutation
 * commits with the store's next `txn_id` (its `commitId`), also when it matched nothing.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { ConflictPolicy } from '../dql/ast.ts';
import { HybridClock } from '../crdt/hlc.ts';
import type { Stamp } from '../crdt/document-meta.ts';
import { StoreError, UnsupportedQueryError } from '../errors.ts';
import type { CollectionInfo, StorageEngine, StorageReader } from '../storage/types.ts';
import { toParams } from './args.ts';
import { Collection } from './collection.ts';
import { createIdGenerator, type IdGenerator } from './ids.ts';
import { insertDocuments, runMutation, type WriteContext } from './mutations.ts';
import { checkBound, prepare } from './prepare.ts';
import { runSelect } from './select.ts';

/** What `execute` answers: the items a SELECT found, and what a mutation changed and committed. */
export interface QueryResult {
  readonly items: JsonObject[];
  readonly mutatedDocumentIds: JsonValue[];
  /** The `txn_id` a mutation committed; null for a SELECT. */
  readonly commitId: number | null;
}

/** Collections every peer has from the start. */
export const BUILT_IN_COLLECTIONS: readonly string[] = ['__presence'];

export function isInternalCollection(name: string): boolean {
  return name.startsWith('__');
}

/** User writes to internal collections are refused (`query/unsupported`). */
export function assertWritable(collection: string): void {
  if (isInternalCollection(collection)) {
    throw new UnsupportedQueryError(`collection ${collection} is internal: it can be read, not written`, { collection });
  }
}

export interface StoreOptions {
  readonly storage: StorageEngine;
  /** This peer's key: the writer named in merge metadata. */
  readonly peerKey: string;
  /** Wall-clock milliseconds; injected so that tests control time. */
  readonly now: () => number;
  readonly newId?: IdGenerator;
}

export class Store {
  readonly #storage: StorageEngine;
  readonly #peerKey: string;
  readonly #clock: HybridClock;
  readonly #newId: IdGenerator;
  #lastTxnId: number;
  #closed = false;

  constructor(options: StoreOptions) {
    this.#storage = options.storage;
    this.#peerKey = options.peerKey;
    const state = options.storage.read((r) => r.clock());
    this.#lastTxnId = state.lastTxnId;
    this.#clock = new HybridClock(options.now, state.lastHlc);
    this.#newId = options.newId ?? createIdGenerator(options.now);
  }

  /**
   * Runs one DQL statement with its named arguments. A SELECT returns `items`; INSERT, UPDATE,
   * DELETE and EVICT return `mutatedDocumentIds` and `commitId`. Errors are `SyncError`s with
   * stable codes; a failing mutation changes nothing.
   */
  async execute(statement: string, args?: Record<string, unknown>): Promise<QueryResult> {
    return this.executeNow(statement, args);
  }

  /** `execute` without the promise, for callers already inside the store's turn. */
  executeNow(statement: string, args?: Record<string, unknown>): QueryResult {
    this.#assertOpen();
    const prepared = prepare(statement);
    const params = toParams(args);
    checkBound(prepared, params);
    if (prepared.ast.kind === 'select') {
      const items = this.#storage.read((r) => runSelect(r, prepared, params));
      return { items, mutatedDocumentIds: [], commitId: null };
    }
    assertWritable(prepared.ast.collection);
    const { result, txnId } = this.#write((ctx) => runMutation(ctx, prepared, params));
    return { items: [], mutatedDocumentIds: result, commitId: txnId };
  }

  /** The collection of that name; `sync.store[name]` is the same. */
  collection(name: string): Collection {
    return new Collection(this, name);
  }

  /** Collections with their live document and tombstone counts, the built-in ones included. */
  collections(): CollectionInfo[] {
    this.#assertOpen();
    const found = this.#storage.read((r) => r.collections());
    for (const name of BUILT_IN_COLLECTIONS) {
      if (!found.some((c) => c.name === name)) found.push({ name, documents: 0, tombstones: 0 });
    }
    return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The last `txn_id` committed. */
  get lastTxnId(): number {
    return this.#lastTxnId;
  }

  /** Bytes the store occupies on disk. */
  sizeOnDisk(): number {
    return this.#storage.sizeOnDisk();
  }

  /** @internal Runs `fn` on a snapshot of committed data. */
  readNow<T>(fn: (reader: StorageReader) => T): T {
    this.#assertOpen();
    return this.#storage.read(fn);
  }

  /** @internal Inserts documents under a conflict policy in its own transaction (used by `upsert`). */
  insertNow(collection: string, docs: readonly JsonObject[], policy: ConflictPolicy): { ids: JsonValue[]; txnId: number } {
    this.#assertOpen();
    assertWritable(collection);
    const { result, txnId } = this.#write((ctx) => insertDocuments(ctx, collection, docs, policy));
    return { ids: result, txnId };
  }

  /** @internal Runs `fn` in one write transaction with a fresh stamp and the next txn_id. */
  writeNow<T>(fn: (ctx: WriteContext) => T): { result: T; txnId: number } {
    this.#assertOpen();
    return this.#write(fn);
  }

  #write<T>(fn: (ctx: WriteContext) => T): { result: T; txnId: number } {
    const txnId = this.#lastTxnId + 1;
    const stamp: Stamp = [this.#clock.tick(), this.#peerKey];
    const result = this.#storage.write((writer) => {
      const r = fn({ writer, txnId, stamp, newId: this.#newId });
      writer.setClock({ lastTxnId: txnId, lastHlc: stamp[0] });
      return r;
    });
    this.#lastTxnId = txnId;
    return { result, txnId };
  }

  /** Closes the storage; later calls fail with `store/closed`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#storage.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError();
  }
}

class StoreClosedError extends StoreError {
  constructor() {
    super('store/closed', 'the store is closed; open a new one');
  }
}

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
