/**
 * Live queries on the local store (`registerObserver`). An observer fires once with the current
 * result, then after commits that change its result, with what changed. Re-running happens off
 * the commit path, after the committing code's turn, and only for observers of a collection
 * the commit touched; several commits in a row are seen as one change. An observer registered
 * with signal-next is called again only after it calls `signalNext()`.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import type { Params } from '../dql/evaluate.ts';
import type { Logger } from '../log/log-hub.ts';
import type { StorageReader } from '../storage/types.ts';
import type { PreparedStatement } from '../query/prepare.ts';
import { rowsFollowDocuments, runSelect } from '../query/select.ts';
import { matches } from '../dql/evaluate.ts';
import { sortKey } from '../dql/sort-key.ts';
import type { DocumentChange } from '../storage/recording-writer.ts';
import { diff, snapshot, type ResultSnapshot } from './result-diff.ts';
import { errorMessage } from '../../shared/error-message.ts';

/** What an observer receives. */
export interface ObserverEvent {
  readonly items: JsonObject[];
  /** `_id`s of rows that entered, left or changed in the result since the last call. */
  readonly inserted: JsonValue[];
  readonly deleted: JsonValue[];
  readonly updated: JsonValue[];
  /** True for the first call, with the result as it was at registration. */
  readonly isInitial: boolean;
  /** The last commit the result reflects (0 before any). */
  readonly txnId: number;
}

export type ObserverHandler = (event: ObserverEvent) => void;
export type SignalNextHandler = (event: ObserverEvent, signalNext: () => void) => void;

/** A live observer: `cancel()` it when it is no longer needed. */
export interface StoreObserver {
  readonly id: number;
  readonly statement: string;
  readonly args: Params;
  readonly collection: string;
  readonly isCancelled: boolean;
  cancel(): void;
}

interface Entry extends StoreObserver {
  readonly prepared: PreparedStatement;
  readonly handler: SignalNextHandler;
  readonly waitsForSignal: boolean;
  last: ResultSnapshot | undefined;
  /** Keys of the documents the last result came from, when its rows follow documents. */
  sources: Set<string> | undefined;
  dirty: boolean;
  awaitingSignal: boolean;
  cancelled: boolean;
}

export interface ObserverRegistryOptions {
  readonly read: <T>(fn: (reader: StorageReader) => T) => T;
  readonly lastTxnId: () => number;
  readonly logger: Logger;
  /** Runs a function after the current turn (default: setImmediate). */
  readonly schedule?: (fn: () => void) => void;
}

export class ObserverRegistry {
  readonly #options: ObserverRegistryOptions;
  readonly #schedule: (fn: () => void) => void;
  readonly #entries = new Map<number, Entry>();
  readonly #byCollection = new Map<string, Set<Entry>>();
  #nextId = 1;
  #flushScheduled = false;
  #closed = false;

  constructor(options: ObserverRegistryOptions) {
    this.#options = options;
    this.#schedule = options.schedule ?? ((fn) => setImmediate(fn));
  }

  /** The live observers. */
  list(): StoreObserver[] {
    return [...this.#entries.values()];
  }

  register(prepared: PreparedStatement, params: Params, handler: SignalNextHandler, waitsForSignal: boolean): StoreObserver {
    const collection = prepared.ast.collection;
    const entry: Entry = {
      id: this.#nextId++,
      statement: prepared.text,
      args: params,
      collection,
      prepared,
      handler,
      waitsForSignal,
      last: undefined,
      sources: undefined,
      dirty: true,
      awaitingSignal: false,
      cancelled: false,
      get isCancelled() {
        return this.cancelled;
      },
      cancel: () => {
        this.#cancel(entry);
      },
    };
    this.#entries.set(entry.id, entry);
    let set = this.#byCollection.get(collection);
    if (set === undefined) this.#byCollection.set(collection, (set = new Set()));
    set.add(entry);
    this.#options.logger.debug(LOG_EVENTS.observerRegistered, { id: entry.id, statement: prepared.text });
    this.#requestFlush();
    return entry;
  }

  /**
   * Called after a commit with what it wrote. An observer re-runs only when a change can touch
   * its result: a written document that matches its condition now, or that its last result
   * came from; observers whose rows do not follow documents (aggregates, DISTINCT, OFFSET)
   * re-run on any change to their collection.
   */
  changed(changes: readonly DocumentChange[]): void {
    let any = false;
    for (const change of changes) {
      const entries = this.#byCollection.get(change.collection);
      if (entries === undefined) continue;
      let key: string | undefined;
      for (const entry of entries) {
        if (entry.dirty) continue;
        if (entry.sources !== undefined) {
          key ??= sortKey(change.id).toString('latin1');
          const touches =
            entry.sources.has(key) ||
            (change.after !== null && matches(entry.prepared.ast.kind === 'select' ? entry.prepared.ast.where : undefined, change.after, entry.args));
          if (!touches) continue;
        }
        entry.dirty = true;
        any = true;
      }
    }
    if (any) this.#requestFlush();
  }

  /**
   * Called when another process committed to the shared database: what it wrote is not known
   * here, so every observer of those collections (of any, when undefined) re-runs.
   */
  changedCollections(collections: readonly string[] | undefined): void {
    let any = false;
    for (const [collection, entries] of this.#byCollection) {
      if (collections !== undefined && !collections.includes(collection)) continue;
      for (const entry of entries) {
        if (entry.dirty) continue;
        entry.dirty = true;
        any = true;
      }
    }
    if (any) this.#requestFlush();
  }

  /** Cancels every observer (the store is closing). */
  close(): void {
    this.#closed = true;
    for (const entry of [...this.#entries.values()]) this.#cancel(entry);
  }

  #cancel(entry: Entry): void {
    if (entry.cancelled) return;
    entry.cancelled = true;
    this.#entries.delete(entry.id);
    this.#byCollection.get(entry.collection)?.delete(entry);
    this.#options.logger.debug(LOG_EVENTS.observerCancelled, { id: entry.id });
  }

  #requestFlush(): void {
    if (this.#flushScheduled || this.#closed) return;
    this.#flushScheduled = true;
    this.#schedule(() => {
      this.#flushScheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    if (this.#closed) return;
    const due = [...this.#entries.values()].filter((e) => e.dirty && !e.awaitingSignal);
    if (due.length === 0) return;
    const txnId = this.#options.lastTxnId();
    // One snapshot for the whole flush: every observer sees the same committed state.
    const results = this.#options.read((reader) =>
      due.map((e) => {
        const sources = rowsFollowDocuments(e.prepared, e.args) ? new Set<string>() : undefined;
        return { items: runSelect(reader, e.prepared, e.args, sources), sources };
      }),
    );
    due.forEach((entry, i) => {
      if (entry.cancelled) return;
      entry.dirty = false;
      const result = results[i] as { items: JsonObject[]; sources: Set<string> | undefined };
      entry.sources = result.sources;
      const next = snapshot(result.items);
      const isInitial = entry.last === undefined;
      if (!isInitial && entry.last?.json === next.json) return;
      const changes = diff(entry.last, next);
      entry.last = next;
      this.#deliver(entry, { items: next.items, ...changes, isInitial, txnId });
    });
  }

  #deliver(entry: Entry, event: ObserverEvent): void {
    let signalled = false;
    if (entry.waitsForSignal) entry.awaitingSignal = true;
    const signalNext = (): void => {
      if (signalled || !entry.waitsForSignal) return;
      signalled = true;
      entry.awaitingSignal = false;
      if (entry.dirty) this.#requestFlush();
    };
    try {
      entry.handler(event, signalNext);
    } catch (error) {
      this.#options.logger.warn(LOG_EVENTS.observerFailed, { id: entry.id, error: errorMessage(error) });
    }
  }
}
