/**
 * The in-memory twin of the SQLite storage: same interface, same acceptance suite, queries run
 * by the reference evaluator. It keeps SQLite's isolation: committed state is copied on write,
 * so a reader holds an unchanging snapshot, and an open write transaction collects its changes
 * apart until commit. Values are kept as JSON text so that callers never share objects with it.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { DocumentMeta } from '../crdt/document-meta.ts';
import { sortKey } from '../dql/sort-key.ts';
import { StoreError } from '../errors.ts';
import { runQuery } from './js-query.ts';
import { writeThrough } from './write-through.ts';
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

interface Entry {
  readonly key: Buffer;
  readonly id: string; // JSON of _id
  readonly body: string | null;
  readonly meta: string;
  readonly txnId: number;
}

interface State {
  readonly collections: ReadonlyMap<string, ReadonlyMap<string, Entry>>;
  readonly settings: ReadonlyMap<string, string>;
  readonly clock: ClockState;
}

function toStored(e: Entry): StoredDocument {
  return {
    id: JSON.parse(e.id) as JsonValue,
    value: e.body === null ? null : (JSON.parse(e.body) as JsonObject),
    meta: JSON.parse(e.meta) as DocumentMeta,
    txnId: e.txnId,
  };
}

function toEntry(doc: StoredDocument): Entry {
  return {
    key: sortKey(doc.id),
    id: JSON.stringify(doc.id),
    body: doc.value === null ? null : JSON.stringify(doc.value),
    meta: JSON.stringify(doc.meta),
    txnId: doc.txnId,
  };
}

/** Reads a state, through an optional overlay of uncommitted changes (`null` = removed). */
class MemoryReader implements StorageReader {
  protected readonly base: State;
  protected readonly changes = new Map<string, Map<string, Entry | null>>();
  protected settingChanges = new Map<string, string>();
  protected clockChange: ClockState | undefined;

  constructor(base: State) {
    this.base = base;
  }

  protected entries(collection: string): Entry[] {
    const merged = new Map(this.base.collections.get(collection) ?? []);
    for (const [hex, e] of this.changes.get(collection) ?? []) {
      if (e === null) merged.delete(hex);
      else merged.set(hex, e);
    }
    return [...merged.values()];
  }

  protected entry(collection: string, hex: string): Entry | undefined {
    const changed = this.changes.get(collection)?.get(hex);
    if (changed !== undefined) return changed ?? undefined;
    return this.base.collections.get(collection)?.get(hex);
  }

  protected find(query: DocumentQuery): Entry[] {
    const live = this.entries(query.collection).filter((e) => e.body !== null);
    return runQuery(
      live,
      (e) => JSON.parse(e.body as string) as JsonObject,
      (e) => e.key,
      query,
    );
  }

  findValues(query: DocumentQuery): JsonObject[] {
    return this.find(query).map((e) => JSON.parse(e.body as string) as JsonObject);
  }

  count(query: DocumentQuery): number {
    return this.find({ ...query, orderBy: [], limit: undefined, offset: 0 }).length;
  }

  findDocuments(query: DocumentQuery): StoredDocument[] {
    return this.find(query).map(toStored);
  }

  get(collection: string, id: JsonValue): StoredDocument | undefined {
    const e = this.entry(collection, sortKey(id).toString('hex'));
    return e === undefined ? undefined : toStored(e);
  }

  changedSince(query: ChangeQuery): ChangePage {
    if (!Number.isInteger(query.limit) || query.limit < 1) throw new RangeError(`changedSince needs a limit >= 1, not ${query.limit}`);
    const { cursor } = query;
    if (cursor !== undefined && typeof cursor.key !== 'string') throw new TypeError('this change cursor was not made by the in-memory storage');
    // Within a txn_id, documents go in the hex order of their _id key: stable across rewrites.
    const after = (txnId: number, hex: string): boolean =>
      txnId > query.afterTxnId && (cursor === undefined || txnId > cursor.txnId || (txnId === cursor.txnId && hex > (cursor.key as string)));
    const found = this.entries(query.collection)
      .map((e) => ({ e, hex: e.key.toString('hex') }))
      .filter(({ e, hex }) => e.txnId <= query.uptoTxnId && after(e.txnId, hex))
      .sort((a, b) => a.e.txnId - b.e.txnId || (a.hex < b.hex ? -1 : a.hex > b.hex ? 1 : 0));
    const page = found.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      documents: page.map(({ e }) => toStored(e)),
      next: found.length > query.limit && last !== undefined ? { txnId: last.e.txnId, key: last.hex } : undefined,
    };
  }

  collections(): CollectionInfo[] {
    const names = new Set([...this.base.collections.keys(), ...this.changes.keys()]);
    const out: CollectionInfo[] = [];
    for (const name of [...names].sort()) {
      const entries = this.entries(name);
      const documents = entries.filter((e) => e.body !== null).length;
      if (entries.length > 0) out.push({ name, documents, tombstones: entries.length - documents });
    }
    return out;
  }

  clock(): ClockState {
    return this.clockChange ?? this.base.clock;
  }

  setting(key: string): string | undefined {
    return this.settingChanges.get(key) ?? this.base.settings.get(key);
  }
}

class MemoryWriter extends MemoryReader implements StorageWriter {
  #set(collection: string, hex: string, entry: Entry | null): void {
    let map = this.changes.get(collection);
    if (map === undefined) this.changes.set(collection, (map = new Map()));
    map.set(hex, entry);
  }

  insertIfAbsent(collection: string, doc: StoredDocument): boolean {
    const entry = toEntry(doc);
    if (this.entry(collection, entry.key.toString('hex')) !== undefined) return false;
    this.#set(collection, entry.key.toString('hex'), entry);
    return true;
  }

  insertManyIfAbsent(collection: string, docs: readonly StoredDocument[]): boolean[] {
    return docs.map((doc) => this.insertIfAbsent(collection, doc));
  }

  put(collection: string, doc: StoredDocument): void {
    const entry = toEntry(doc);
    this.#set(collection, entry.key.toString('hex'), entry);
  }

  evict(query: DocumentQuery): JsonValue[] {
    const found = this.find(query).sort((a, b) => Buffer.compare(a.key, b.key));
    for (const e of found) this.#set(query.collection, e.key.toString('hex'), null);
    return found.map((e) => JSON.parse(e.id) as JsonValue);
  }

  reapTombstones(reap: TombstoneReap): ReapedTombstone[] {
    const names = [...new Set([...this.base.collections.keys(), ...this.changes.keys()])].sort();
    const out: ReapedTombstone[] = [];
    for (const collection of names) {
      const found = this.entries(collection)
        .filter((e) => e.body === null && (reap.uptoTxnId === undefined || e.txnId <= reap.uptoTxnId))
        .filter((e) => {
          const d = (JSON.parse(e.meta) as DocumentMeta).d;
          return d !== undefined && d[0] <= reap.deletedUpTo;
        })
        .sort((a, b) => Buffer.compare(a.key, b.key));
      for (const e of found) {
        this.#set(collection, e.key.toString('hex'), null);
        out.push({ collection, id: JSON.parse(e.id) as JsonValue, txnId: e.txnId });
      }
    }
    return out;
  }

  setClock(state: ClockState): void {
    this.clockChange = state;
  }

  setSetting(key: string, value: string): void {
    this.settingChanges.set(key, value);
  }

  savepoint(): Savepoint {
    const changes = new Map([...this.changes].map(([name, map]) => [name, new Map(map)] as const));
    const settings = new Map(this.settingChanges);
    const clock = this.clockChange;
    let done = false;
    return {
      release: () => {
        done = true;
      },
      rollback: () => {
        if (done) return;
        done = true;
        this.changes.clear();
        for (const [name, map] of changes) this.changes.set(name, map);
        this.settingChanges = settings;
        this.clockChange = clock;
      },
    };
  }

  /** The state with this transaction's changes applied (collections copied on write). */
  applied(): State {
    const collections = new Map(this.base.collections);
    for (const [name, changes] of this.changes) {
      const map = new Map(collections.get(name) ?? []);
      for (const [hex, e] of changes) {
        if (e === null) map.delete(hex);
        else map.set(hex, e);
      }
      if (map.size === 0) collections.delete(name);
      else collections.set(name, map);
    }
    const settings = new Map(this.base.settings);
    for (const [k, v] of this.settingChanges) settings.set(k, v);
    return { collections, settings, clock: this.clockChange ?? this.base.clock };
  }
}

export class MemoryStorage implements StorageEngine {
  readonly kind = 'memory' as const;
  #state: State = { collections: new Map(), settings: new Map(), clock: { lastTxnId: 0, lastHlc: '' } };
  #writing = false;
  #closed = false;

  beginRead(): ReadTransaction {
    this.#assertOpen();
    return { reader: new MemoryReader(this.#state), end: () => {} };
  }

  beginWrite(): WriteTransaction {
    this.#assertOpen();
    if (this.#writing) throw new Error('a storage write transaction is already open');
    this.#writing = true;
    const writer = new MemoryWriter(this.#state);
    let open = true;
    return {
      writer,
      commit: () => {
        if (!open) return;
        open = false;
        this.#state = writer.applied();
        this.#writing = false;
      },
      rollback: () => {
        if (!open) return;
        open = false;
        this.#writing = false;
      },
    };
  }

  read<T>(fn: (reader: StorageReader) => T): T {
    return fn(this.beginRead().reader);
  }

  write<T>(fn: (writer: StorageWriter) => T): T {
    return writeThrough(this, fn);
  }

  sizeOnDisk(): number {
    return 0;
  }

  diskUsage(): DiskUsage {
    return { databaseBytes: 0, walBytes: 0 };
  }

  reclaimSpace(): void {
    // Nothing on disk.
  }

  freeBytes(): number {
    return 0;
  }

  close(): void {
    this.#closed = true;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreError('store/closed', 'the store is closed; open a new one');
  }
}
