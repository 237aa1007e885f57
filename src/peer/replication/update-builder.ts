/**
 * Making a sending update (spec 2.8, 3.5): the documents of this store a remote peer's
 * subscriptions ask for and it may read, changed after what the remote holds (`since`, per
 * subscription query) up to a snapshot `upto`, serialized into chunk frames of bounded size.
 * It pages through the store a page at a time, yielding between pages, so that a large initial
 * sync neither blocks the peer nor holds its documents as objects; and within a page whenever it
 * has run for `SLICE_MS`, so that costly subscription conditions do not hold the event loop
 * either. With a `matchBudgetMs`, the time spent matching the remote's conditions in one update
 * is bounded: past it the update fails with `SubscriptionTooExpensive` (its session closes).
 */
import type { JsonValue } from '../../shared/json.ts';
import { EVERYTHING_KEY, MAX_CHUNK_DOCS, MAX_SESSION_FRAME_BYTES, type WireDocument } from '../../shared/protocol/messages.ts';
import type { StorageReader, StoredDocument } from '../storage/types.ts';
import { Budget, BudgetExceeded } from '../budget.ts';
import { SyncError } from '../errors.ts';
import { allowsDocument, coversCollection, safeMatches, windowQuery, type CompiledQuery, type CompiledRules, type CompiledSubscriptions } from './matching.ts';

/** Documents per chunk and bytes per chunk the builder aims at. */
export const CHUNK_DOCS = 500;
export const CHUNK_BYTES = 512 * 1024;
const PAGE = 500;
/** The longest the builder runs between two yields to the event loop (one document's match may take longer). */
export const SLICE_MS = 20;

/** Matching the remote's subscriptions in one update took longer than its budget: its session is closed. */
export class SubscriptionTooExpensive extends SyncError {
  readonly collection: string;
  readonly budgetMs: number;
  /** Documents matched before the budget was spent. */
  readonly documents: number;

  constructor(collection: string, budgetMs: number, documents: number) {
    super('query/timeout', `subscription too expensive: matching its conditions on ${collection} took more than ${budgetMs} ms`);
    this.collection = collection;
    this.budgetMs = budgetMs;
    this.documents = documents;
  }
}

export interface UpdateInput {
  readonly read: <T>(fn: (reader: StorageReader) => T) => T;
  readonly subscriptions: CompiledSubscriptions;
  /** What the remote may read. */
  readonly readRules: CompiledRules;
  /** The remote holds everything of each query key up to this txn_id (0: nothing). */
  readonly since: (key: string) => number;
  readonly upto: number;
  /** Collections the remote holds documents of (it said so with its subscriptions). */
  readonly heldByRemote: ReadonlySet<string>;
  /** The window (ids as JSON) of each LIMIT/OFFSET query the remote was last sent. */
  readonly previousWindow: (key: string) => ReadonlySet<string> | undefined;
  /** Documents to send whatever they match (asked for with `want`), by `docKey`. */
  readonly wanted: ReadonlyMap<string, readonly [string, JsonValue]>;
  /** True for a document whose state came from the remote itself and did not change since. */
  readonly isEcho: (collection: string, doc: StoredDocument) => boolean;
  /** Only these collections changed since the last update (undefined: look at all). */
  readonly scope: ReadonlySet<string> | undefined;
  /** Lets other work run between pages (and slices of a page). */
  readonly yieldNow: () => Promise<void>;
  /** The time matching the remote's subscription conditions may take in this update; undefined: no bound. */
  readonly matchBudgetMs?: number;
  readonly chunkDocs?: number;
  readonly chunkBytes?: number;
}

/** How many documents of an update or chunk the DEBUG lines name; the rest are counted. */
export const SAMPLE_IDS = 5;

/** Documents named as the DEBUG lines show them: `orders:"o1", orders:"o2" (+3 more)`. */
export function describeIds(refs: readonly (readonly [string, JsonValue])[], total: number = refs.length): string {
  const shown = refs.slice(0, SAMPLE_IDS).map(([collection, id]) => `${collection}:${JSON.stringify(id)}`);
  const more = total - shown.length;
  return more > 0 ? `${shown.join(', ')} (+${more} more)` : shown.join(', ');
}

export interface BuiltChunk {
  /** The `docs` array as JSON text. */
  readonly docsJson: string;
  readonly docs: number;
  readonly notices: (readonly [string, JsonValue])[];
}

export interface BuiltUpdate {
  readonly chunks: BuiltChunk[];
  readonly numDocs: number;
  /** The first documents of the update (`SAMPLE_IDS` at most), for the DEBUG line that names them. */
  readonly sample: readonly (readonly [string, JsonValue])[];
  /** Progress per query key once every chunk is merged. */
  readonly progress: Record<string, number>;
  /** Documents too large for one frame: never sent, reported. */
  readonly tooLarge: (readonly [string, JsonValue])[];
  /** Collections the remote subscribes to but may not read. */
  readonly unreadable: string[];
  /** The window of each LIMIT/OFFSET query in this update. */
  readonly windows: Map<string, Set<string>>;
}

/** What every frame of an update says besides its chunk. */
export interface UpdateHeader {
  readonly number: number;
  readonly sinceIndex: number;
  readonly upto: number;
  /** The remote's subscription version the update was made for. */
  readonly version: number;
  /** Sent with the last chunk. */
  readonly progress: Record<string, number>;
}

/** The text frame (an `update` message) of chunk `index` (from 0) of an update. */
export function updateFrame(header: UpdateHeader, chunks: readonly BuiltChunk[], index: number): string {
  const chunk = chunks[index] as BuiltChunk;
  const head = `{"type":"update","update":${header.number},"chunk":${index + 1},"since_index":${header.sinceIndex},"upto":${header.upto},"subscription_version":${header.version}`;
  const notices = chunk.notices.length > 0 ? `,"notices":${JSON.stringify(chunk.notices)}` : '';
  const progress = index === chunks.length - 1 ? `,"progress":${JSON.stringify(header.progress)}` : '';
  return `${head},"docs":${chunk.docsJson}${notices}${progress}}`;
}

/** The key of a document across collections. */
export function docKey(collection: string, id: JsonValue): string {
  return JSON.stringify([collection, id]);
}

function wire(collection: string, doc: StoredDocument): WireDocument {
  return { collection, id: doc.id, value: doc.value, meta: doc.meta };
}

class ChunkWriter {
  readonly chunks: BuiltChunk[] = [];
  #parts: string[] = [];
  #bytes = 0;
  #notices: (readonly [string, JsonValue])[] = [];
  readonly #maxDocs: number;
  readonly #maxBytes: number;
  numDocs = 0;

  constructor(maxDocs: number, maxBytes: number) {
    this.#maxDocs = Math.min(maxDocs, MAX_CHUNK_DOCS);
    this.#maxBytes = maxBytes;
  }

  /** Adds a document; false when it is too large to ever be sent. */
  add(json: string): boolean {
    const bytes = Buffer.byteLength(json);
    if (bytes > MAX_SESSION_FRAME_BYTES - 64 * 1024) return false;
    if (this.#parts.length > 0 && (this.#bytes + bytes > this.#maxBytes || this.#parts.length >= this.#maxDocs)) this.flush();
    this.#parts.push(json);
    this.#bytes += bytes;
    this.numDocs++;
    return true;
  }

  notice(ref: readonly [string, JsonValue]): void {
    if (this.#notices.length >= MAX_CHUNK_DOCS) this.flush();
    this.#notices.push(ref);
  }

  flush(): void {
    if (this.#parts.length === 0 && this.#notices.length === 0) return;
    this.chunks.push({ docsJson: `[${this.#parts.join(',')}]`, docs: this.#parts.length, notices: this.#notices });
    this.#parts = [];
    this.#bytes = 0;
    this.#notices = [];
  }
}

/** Builds the update; an update with nothing to send has no chunks. */
export async function buildUpdate(input: UpdateInput): Promise<BuiltUpdate> {
  const out = new ChunkWriter(input.chunkDocs ?? CHUNK_DOCS, input.chunkBytes ?? CHUNK_BYTES);
  const tooLarge: (readonly [string, JsonValue])[] = [];
  const unreadable: string[] = [];
  const windowsOut = new Map<string, Set<string>>();
  const sent = new Set<string>();
  const sample: (readonly [string, JsonValue])[] = [];
  const emit = (collection: string, doc: StoredDocument): void => {
    const key = docKey(collection, doc.id);
    if (sent.has(key)) return;
    sent.add(key);
    if (!out.add(JSON.stringify(wire(collection, doc)))) tooLarge.push([collection, doc.id]);
    else if (sample.length < SAMPLE_IDS) sample.push([collection, doc.id]);
  };

  // Documents the remote asked for by name come first, whatever they match.
  if (input.wanted.size > 0) {
    input.read((reader) => {
      for (const [collection, id] of input.wanted.values()) {
        const doc = reader.get(collection, id);
        if (doc !== undefined && allowsDocument(input.readRules, collection, doc.value)) emit(collection, doc);
      }
    });
  }

  // Only the time spent in the remote's conditions counts against its budget: sending what
  // they select costs the same whatever they are.
  let matchingMs = 0;
  let matched = 0;
  const budgetMs = input.matchBudgetMs;
  const match = (collection: string, q: CompiledQuery, value: NonNullable<StoredDocument['value']>): boolean => {
    if (q.where === undefined) return true;
    const started = performance.now();
    const result = safeMatches(q.where, value);
    matchingMs += performance.now() - started;
    matched++;
    if (budgetMs !== undefined && matchingMs > budgetMs) throw new SubscriptionTooExpensive(collection, budgetMs, matched);
    return result;
  };
  /** A window (LIMIT/OFFSET) is chosen by the storage in one go: what is left of the budget bounds it. */
  const windowBudget = (): Budget | undefined => (budgetMs === undefined ? undefined : new Budget(Math.max(0, budgetMs - matchingMs)));
  let sliceStarted = performance.now();
  const subs = input.subscriptions;
  const scope = input.scope;
  const collections = subs.everything
    ? scope !== undefined
      ? [...scope]
      : input.read((r) => r.collections().map((c) => c.name))
    : [...subs.byCollection.keys()].filter((c) => scope === undefined || scope.has(c));
  for (const collection of collections) {
    const queries: readonly CompiledQuery[] = subs.everything
      ? [{ key: EVERYTHING_KEY, collection, query: { expr: 'true', order_by: [] }, where: undefined, orderBy: [], windowed: false }]
      : (subs.byCollection.get(collection) ?? []);
    if (!coversCollection(input.readRules, collection)) {
      if (!subs.everything) unreadable.push(collection);
      continue;
    }
    const since = queries.map((q) => input.since(q.key));
    // A windowed query (LIMIT/OFFSET) asks for the documents in its window now; one that
    // entered the window without changing (another left it) is sent too.
    const windows = queries.map((q) => {
      if (!q.windowed) return undefined;
      const budget = windowBudget();
      const started = performance.now();
      let docs: StoredDocument[];
      try {
        docs = input.read((r) => r.findDocuments(budget === undefined ? windowQuery(q) : { ...windowQuery(q), budget }));
      } catch (error) {
        if (error instanceof BudgetExceeded) throw new SubscriptionTooExpensive(collection, budgetMs as number, matched);
        throw error;
      }
      if (q.where !== undefined) matchingMs += performance.now() - started;
      const ids = new Set(docs.map((d) => JSON.stringify(d.id)));
      windowsOut.set(q.key, ids);
      const previous = input.previousWindow(q.key);
      for (const doc of docs) {
        if (previous?.has(JSON.stringify(doc.id)) !== true && allowsDocument(input.readRules, collection, doc.value)) emit(collection, doc);
      }
      return ids;
    });
    const after = Math.min(...since);
    if (after >= input.upto) continue;
    const held = input.heldByRemote.has(collection);
    let cursor: Parameters<StorageReader['changedSince']>[0]['cursor'];
    for (;;) {
      const page = input.read((r) => r.changedSince({ collection, afterTxnId: after, uptoTxnId: input.upto, cursor, limit: PAGE }));
      for (const doc of page.documents) {
        if (input.isEcho(collection, doc)) continue;
        let covered = false;
        let incremental = false;
        let wanted = false;
        for (let i = 0; i < queries.length && !wanted; i++) {
          const from = since[i] as number;
          if (from >= doc.txnId) continue;
          covered = true;
          if (from > 0 || held) incremental = true;
          const q = queries[i] as CompiledQuery;
          const window = windows[i];
          wanted = doc.value === null || (window !== undefined ? window.has(JSON.stringify(doc.id)) : match(collection, q, doc.value));
        }
        if (!covered) continue;
        if (wanted && allowsDocument(input.readRules, collection, doc.value)) emit(collection, doc);
        // A notice only where the remote may hold the document: it synced this query with this
        // peer before, or it holds documents of the collection (from an earlier subscription).
        else if (incremental && !sent.has(docKey(collection, doc.id))) out.notice([collection, doc.id]);
        if (performance.now() - sliceStarted >= SLICE_MS) {
          await input.yieldNow();
          sliceStarted = performance.now();
        }
      }
      cursor = page.next;
      if (cursor === undefined) break;
      await input.yieldNow();
      sliceStarted = performance.now();
    }
  }
  out.flush();
  const progress: Record<string, number> = {};
  for (const key of subs.keys) progress[key] = Math.max(input.since(key), input.upto);
  return { chunks: out.chunks, numDocs: out.numDocs, sample, progress, tooLarge, unreadable, windows: windowsOut };
}
