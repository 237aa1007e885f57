/**
 * The Eviction panel's chart: one sampler per inspector (not per session), so that every window
 * sees the same history. Every SAMPLE_EVERY_MS it takes the live documents of the application's
 * collections, the store's size on disk and the process's memory, kept in a ring of
 * SAMPLE_CAPACITY points (15 minutes), each pushed as `eviction:sample`. The store's size comes in
 * two parts, the database file and the WAL (`store.diskUsage()`), so that a checkpoint, which
 * empties the WAL into the file, is not charted as an eviction freeing megabytes. Each eviction (an EVICT
 * committed, enriched by the strategy's run when it was one; a run that evicted nothing) and each
 * re-sync (`store.onResync`) is kept as a mark and pushed as `eviction:mark`.
 *
 * Choices:
 * - A peer that never evicts pays nothing: sampling starts when a strategy is configured (at
 *   once), at the first EVICT, re-sync or strategy run, or when the panel first asks
 *   (`start()`, from `eviction:get`), and then goes on until the inspector closes. The first
 *   point is taken at once, so that a chart started by an EVICT has the point before it.
 * - The document count is read again only after a commit (a GROUP BY over every document);
 *   between commits the last count stands. Size and memory are read every time.
 * - An EVICT commit is marked at once as a `statement`; when a strategy's run then reports the
 *   same `txnId`, the mark becomes that run's (`strategy`, its outcome) and is pushed again:
 *   receivers replace a mark by its key (`markKey`, shared/inspector/eviction.ts).
 */
import type { EvictionMark, EvictionRunInfo, EvictionRunMark, EvictionSample } from '../../../shared/inspector/eviction.ts';
import { RingBuffer } from '../../log/ring-buffer.ts';
import { isInternalCollection } from '../../store/store.ts';
import type { TimerHandle } from '../../time.ts';
import type { InspectorContext } from '../context.ts';

export const SAMPLE_EVERY_MS = 1000;
/** 15 minutes of points. */
export const SAMPLE_CAPACITY = 900;
/** Marks kept (the oldest dropped first). */
export const MARK_CAPACITY = 1000;

export interface MemoryReading {
  readonly rss: number;
  readonly heapUsed: number;
}

export interface EvictionSamplerOptions {
  readonly everyMs?: number;
  readonly capacity?: number;
  /** The process's memory (default `process.memoryUsage()`); injected in tests. */
  readonly memory?: () => MemoryReading;
}

/** What the sampler needs of the strategies: their runs, and whether any is configured. */
export interface EvictionRunSource {
  onRun(listener: (run: EvictionRunInfo) => void): () => void;
  configured(): boolean;
}

const defaultMemory = (): MemoryReading => {
  const usage = process.memoryUsage();
  return { rss: usage.rss, heapUsed: usage.heapUsed };
};

export class EvictionSampler {
  readonly #ctx: InspectorContext;
  readonly #everyMs: number;
  readonly #memory: () => MemoryReading;
  readonly #samples: RingBuffer<EvictionSample>;
  /** Oldest first, at most MARK_CAPACITY. */
  #marks: EvictionMark[] = [];
  readonly #off: (() => void)[];
  #timer: TimerHandle | undefined;
  #started = false;
  #closed = false;
  /** The last document count, until a commit makes it stale. */
  #documents: number | undefined;

  constructor(ctx: InspectorContext, runs: EvictionRunSource | undefined, options: EvictionSamplerOptions = {}) {
    this.#ctx = ctx;
    this.#everyMs = options.everyMs ?? SAMPLE_EVERY_MS;
    this.#memory = options.memory ?? defaultMemory;
    this.#samples = new RingBuffer(options.capacity ?? SAMPLE_CAPACITY);
    const store = ctx.sync.store;
    this.#off = [
      store.onCommit((txn) => {
        this.#documents = undefined;
        const evicted = new Map<string, number>();
        for (const change of txn.changes) if (change.kind === 'evict') evicted.set(change.collection, (evicted.get(change.collection) ?? 0) + 1);
        if (evicted.size === 0) return;
        this.start();
        for (const [collection, count] of evicted) {
          this.#mark({ kind: 'eviction', at: ctx.now(), collection, evicted: count, source: 'statement', outcome: 'evicted', forced: false, txnId: txn.txnId });
        }
      }),
      store.onResync((event) => {
        this.start();
        this.#mark({
          kind: 'resync',
          at: event.at,
          collection: event.collection,
          count: event.count,
          evictedAt: event.evictedAt,
          subscriptions: event.subscriptions,
        });
      }),
    ];
    if (runs !== undefined) {
      this.#off.push(runs.onRun((run) => this.#run(run)));
      if (runs.configured()) this.start();
    }
  }

  get everyMs(): number {
    return this.#everyMs;
  }

  get capacity(): number {
    return this.#samples.capacity;
  }

  /** Whether points are being taken. */
  get started(): boolean {
    return this.#started;
  }

  /** Starts sampling (the first point now) unless it runs already. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    this.#tick();
  }

  /** Oldest first. */
  samples(): EvictionSample[] {
    return this.#samples.toArray();
  }

  /** The marks within the samples' time (all of them before the first sample), oldest first. */
  marks(): EvictionMark[] {
    const first = this.samples()[0];
    if (first === undefined) return [...this.#marks];
    const from = first.at - this.#everyMs;
    return this.#marks.filter((m) => m.at >= from);
  }

  /** Stops sampling and listening; safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const off of this.#off.splice(0)) off();
    if (this.#timer !== undefined) this.#ctx.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.#closed) return;
    const sample = this.#take();
    if (sample === undefined) {
      // The store is closed: nothing more to chart.
      return;
    }
    this.#samples.push(sample);
    this.#ctx.emit('eviction:sample', sample);
    this.#timer = this.#ctx.timers.setTimeout(() => this.#tick(), this.#everyMs);
  }

  #take(): EvictionSample | undefined {
    const store = this.#ctx.sync.store;
    try {
      this.#documents ??= store
        .collections()
        .filter((c) => !isInternalCollection(c.name))
        .reduce((n, c) => n + c.documents, 0);
      const memory = this.#memory();
      const disk = store.diskUsage();
      return {
        at: this.#ctx.now(),
        documents: this.#documents,
        storeBytes: disk.databaseBytes + disk.walBytes,
        databaseBytes: disk.databaseBytes,
        walBytes: disk.walBytes,
        rssBytes: memory.rss,
        heapUsedBytes: memory.heapUsed,
      };
    } catch {
      return undefined;
    }
  }

  #run(run: EvictionRunInfo): void {
    this.start();
    const existing =
      run.txnId === undefined ? -1 : this.#marks.findIndex((m) => m.kind === 'eviction' && m.txnId === run.txnId && m.collection === run.collection);
    const previous = existing >= 0 ? this.#marks[existing] : undefined;
    const mark: EvictionRunMark = {
      kind: 'eviction',
      at: previous?.at ?? run.at,
      collection: run.collection,
      evicted: run.evicted,
      source: 'strategy',
      outcome: run.outcome,
      forced: run.forced,
      ...(run.code === undefined ? {} : { code: run.code }),
      ...(run.txnId === undefined ? {} : { txnId: run.txnId }),
    };
    if (existing >= 0) {
      this.#marks[existing] = mark;
      this.#ctx.emit('eviction:mark', mark);
    } else {
      this.#mark(mark);
    }
  }

  #mark(mark: EvictionMark): void {
    this.#marks.push(mark);
    if (this.#marks.length > MARK_CAPACITY) this.#marks.splice(0, this.#marks.length - MARK_CAPACITY);
    this.#ctx.emit('eviction:mark', mark);
  }
}
