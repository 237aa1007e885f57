/**
 * A storage writer that remembers what it wrote: for each document put or evicted, its
 * collection, `_id`, new value (null when gone or a tombstone) and which of the two it was. The
 * store hands these to the observers so that they re-run only when a change can touch their
 * result.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type {
  ChangePage,
  ChangeQuery,
  ClockState,
  CollectionInfo,
  DocumentQuery,
  ReapedTombstone,
  Savepoint,
  StorageWriter,
  StoredDocument,
  TombstoneReap,
} from './types.ts';

export interface DocumentChange {
  readonly collection: string;
  readonly id: JsonValue;
  /**
   * `put` for a document written (a tombstone included), `evict` for one removed entirely. A
   * tombstone and an eviction both have `after` null; only `kind` tells them apart.
   */
  readonly kind: 'put' | 'evict';
  /** The value after the write; null for a tombstone or an evicted document. */
  readonly after: JsonObject | null;
}

export class RecordingWriter implements StorageWriter {
  readonly #inner: StorageWriter;
  #changes: DocumentChange[] = [];

  constructor(inner: StorageWriter) {
    this.#inner = inner;
  }

  /** What was written, in order (undone writes dropped at a savepoint rollback). */
  get changes(): readonly DocumentChange[] {
    return this.#changes;
  }

  findValues(query: DocumentQuery): JsonObject[] {
    return this.#inner.findValues(query);
  }

  findDocuments(query: DocumentQuery): StoredDocument[] {
    return this.#inner.findDocuments(query);
  }

  count(query: DocumentQuery): number {
    return this.#inner.count(query);
  }

  get(collection: string, id: JsonValue): StoredDocument | undefined {
    return this.#inner.get(collection, id);
  }

  changedSince(query: ChangeQuery): ChangePage {
    return this.#inner.changedSince(query);
  }

  collections(): CollectionInfo[] {
    return this.#inner.collections();
  }

  clock(): ClockState {
    return this.#inner.clock();
  }

  setting(key: string): string | undefined {
    return this.#inner.setting(key);
  }

  insertIfAbsent(collection: string, doc: StoredDocument): boolean {
    const inserted = this.#inner.insertIfAbsent(collection, doc);
    if (inserted) this.#changes.push({ collection, id: doc.id, kind: 'put', after: doc.value });
    return inserted;
  }

  insertManyIfAbsent(collection: string, docs: readonly StoredDocument[]): boolean[] {
    const inserted = this.#inner.insertManyIfAbsent(collection, docs);
    docs.forEach((doc, i) => {
      if (inserted[i] === true) this.#changes.push({ collection, id: doc.id, kind: 'put', after: doc.value });
    });
    return inserted;
  }

  put(collection: string, doc: StoredDocument, replaces?: StoredDocument): void {
    this.#inner.put(collection, doc, replaces);
    this.#changes.push({ collection, id: doc.id, kind: 'put', after: doc.value });
  }

  evict(query: DocumentQuery): JsonValue[] {
    const ids = this.#inner.evict(query);
    for (const id of ids) this.#changes.push({ collection: query.collection, id, kind: 'evict', after: null });
    return ids;
  }

  /**
   * Not recorded: a tombstone is in no query's result, so no observer can see it go; and an
   * `evict` change would make replication forget what this peer holds of its remotes.
   */
  reapTombstones(reap: TombstoneReap): ReapedTombstone[] {
    return this.#inner.reapTombstones(reap);
  }

  setClock(state: ClockState): void {
    this.#inner.setClock(state);
  }

  setSetting(key: string, value: string): void {
    this.#inner.setSetting(key, value);
  }

  savepoint(): Savepoint {
    const inner = this.#inner.savepoint();
    const mark = this.#changes.length;
    return {
      release: () => inner.release(),
      rollback: () => {
        inner.rollback();
        this.#changes = this.#changes.slice(0, mark);
      },
    };
  }
}
