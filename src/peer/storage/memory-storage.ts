/**
 * The in-memory twin of the SQLite storage: same interface, same acceptance suite, queries run
 * by the reference evaluator. Values are kept as JSON text so that callers never share objects
 * with the store, exactly as with SQLite. A write that throws is undone.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { DocumentMeta } from '../crdt/document-meta.ts';
import { sortKey } from '../dql/sort-key.ts';
import { runQuery } from './js-query.ts';
import type { ClockState, CollectionInfo, DocumentQuery, StorageEngine, StorageReader, StorageWriter, StoredDocument } from './types.ts';

interface Entry {
  readonly key: Buffer;
  readonly id: string; // JSON of _id
  readonly body: string | null;
  readonly meta: string;
  readonly txnId: number;
}

function toStored(e: Entry): StoredDocument {
  return {
    id: JSON.parse(e.id) as JsonValue,
    value: e.body === null ? null : (JSON.parse(e.body) as JsonObject),
    meta: JSON.parse(e.meta) as DocumentMeta,
    txnId: e.txnId,
  };
}

export class MemoryStorage implements StorageEngine {
  readonly kind = 'memory' as const;
  readonly #collections = new Map<string, Map<string, Entry>>();
  readonly #settings = new Map<string, string>();
  #clock: ClockState = { lastTxnId: 0, lastHlc: '' };
  #undo: (() => void)[] | undefined;
  #closed = false;

  #live(collection: string): Entry[] {
    const entries = [...(this.#collections.get(collection)?.values() ?? [])].filter((e) => e.body !== null);
    return entries;
  }

  #find(query: DocumentQuery): Entry[] {
    return runQuery(this.#live(query.collection), (e) => JSON.parse(e.body as string) as JsonObject, (e) => e.key, query);
  }

  #set(collection: string, entry: Entry | undefined, hex: string): void {
    let map = this.#collections.get(collection);
    if (map === undefined) {
      map = new Map();
      this.#collections.set(collection, map);
    }
    const before = map.get(hex);
    const target = map;
    this.#undo?.push(() => (before === undefined ? target.delete(hex) : target.set(hex, before)));
    if (entry === undefined) map.delete(hex);
    else map.set(hex, entry);
  }

  readonly #reader: StorageReader = {
    findValues: (q) => this.#find(q).map((e) => JSON.parse(e.body as string) as JsonObject),
    findDocuments: (q) => this.#find(q).map(toStored),
    get: (collection, id) => {
      const e = this.#collections.get(collection)?.get(sortKey(id).toString('hex'));
      return e === undefined ? undefined : toStored(e);
    },
    collections: () => {
      const out: CollectionInfo[] = [];
      for (const [name, map] of [...this.#collections].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        let documents = 0;
        for (const e of map.values()) if (e.body !== null) documents++;
        if (map.size > 0) out.push({ name, documents, tombstones: map.size - documents });
      }
      return out;
    },
    clock: () => this.#clock,
    setting: (key) => this.#settings.get(key),
  };

  readonly #writer: StorageWriter = {
    ...this.#reader,
    insertIfAbsent: (collection, doc) => {
      const key = sortKey(doc.id);
      if (this.#collections.get(collection)?.has(key.toString('hex')) === true) return false;
      this.#writer.put(collection, doc);
      return true;
    },
    put: (collection, doc) => {
      const key = sortKey(doc.id);
      const entry: Entry = {
        key,
        id: JSON.stringify(doc.id),
        body: doc.value === null ? null : JSON.stringify(doc.value),
        meta: JSON.stringify(doc.meta),
        txnId: doc.txnId,
      };
      this.#set(collection, entry, key.toString('hex'));
    },
    evict: (query) => {
      const found = this.#find(query).sort((a, b) => Buffer.compare(a.key, b.key));
      for (const e of found) this.#set(query.collection, undefined, e.key.toString('hex'));
      return found.map((e) => JSON.parse(e.id) as JsonValue);
    },
    setClock: (state) => {
      const before = this.#clock;
      this.#undo?.push(() => (this.#clock = before));
      this.#clock = state;
    },
    setSetting: (key, value) => {
      const before = this.#settings.get(key);
      this.#undo?.push(() => (before === undefined ? this.#settings.delete(key) : this.#settings.set(key, before)));
      this.#settings.set(key, value);
    },
  };

  read<T>(fn: (reader: StorageReader) => T): T {
    this.#assertOpen();
    return fn(this.#reader);
  }

  write<T>(fn: (writer: StorageWriter) => T): T {
    this.#assertOpen();
    if (this.#undo !== undefined) throw new Error('a storage write transaction is already open');
    const undo: (() => void)[] = [];
    this.#undo = undo;
    try {
      return fn(this.#writer);
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i--) (undo[i] as () => void)();
      throw error;
    } finally {
      this.#undo = undefined;
    }
  }

  sizeOnDisk(): number {
    return 0;
  }

  close(): void {
    this.#closed = true;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('the in-memory storage is closed');
  }
}
