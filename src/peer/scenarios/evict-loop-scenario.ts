/**
 * The evict/re-sync loop as a scenario (issue 8; spec 1.5, 3.1, 3.2): on a small peer syncing
 * with a Big Peer, write N documents spread over K+1 days, then evict the oldest days K times the
 * wrong way (EVICT with the find-all subscription still registered: the documents come straight
 * back) and K times the right way (the local strategy's spec 3.2 cycle: cancel, EVICT, register
 * the complementary subscription: nothing comes back), measuring each cycle. The CLI
 * (`syncmesh scenario evict-loop`) and the inspector's Eviction panel run it; docs/evict-loop.md
 * tells how to read it.
 */
import { formatBytes as formatSize } from '../../shared/format-bytes.ts';
import { SyncError } from '../errors.ts';
import type { Sync } from '../sync/sync.ts';
import type { SyncSubscription } from '../subscriptions/subscription-set.ts';
import type { EvictionRun, EvictionStrategyConfig, LocalStrategyConfig } from '../eviction/types.ts';

export interface EvictLoopOptions {
  /** A small peer syncing with a Big Peer (`startSync()` done, a session open). */
  readonly sync: Sync;
  /** The collection the scenario writes and evicts (default `evict_loop_demo`); give it one of its own. */
  readonly collection?: string;
  /** N, the documents written: 1 to 100,000 (RangeError otherwise). */
  readonly docs: number;
  /** K, the cycles each way: 1 to 20 (RangeError otherwise). */
  readonly cycles: number;
  /** Stops the scenario between steps and during its waits: it restores the peer, then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Called after each cycle, as it ends. */
  readonly onCycle?: (row: EvictLoopCycle) => void;
  /** The process's memory in bytes (default `process.memoryUsage().rss`). */
  readonly memory?: () => number;
  /**
   * After each EVICT, the cycle waits until replication has been quiet for this long (no document
   * of the collection arriving) before it counts; the wrong way ends sooner once every evicted
   * document is back. Default 2,000 ms; 0 to 60,000.
   */
  readonly settleMs?: number;
  /** No wait of a cycle lasts longer, however busy replication of the collection stays (default 120,000 ms; 1,000 to 600,000). */
  readonly maxWaitMs?: number;
}

/** One cycle, as measured once its wait ended. */
export interface EvictLoopCycle {
  readonly way: 'wrong' | 'right';
  /** 1..K within its way. */
  readonly cycle: number;
  /** Documents the cycle's EVICT removed. */
  readonly evicted: number;
  /** Documents that came back by replication (the loop detector's `onResync` events for the collection). */
  readonly resynced: number;
  /** The store's size on disk after the cycle. */
  readonly storeBytes: number;
  readonly memoryBytes: number;
  /** Replication bytes received for the scenario's collection during the cycle (`sync.receivedFor`): other collections' traffic is not counted. */
  readonly bytesReceived: number;
  readonly durationMs: number;
}

export interface EvictLoopTotals {
  readonly evicted: number;
  readonly resynced: number;
  readonly bytesReceived: number;
}

export interface EvictLoopReport {
  readonly collection: string;
  readonly docs: number;
  /** The K wrong cycles, then the K right ones. */
  readonly cycles: readonly EvictLoopCycle[];
  readonly wrong: EvictLoopTotals;
  readonly right: EvictLoopTotals;
  /** The wrong way re-synced documents: the loop was reproduced. */
  readonly loopDetected: boolean;
  /** The right way re-synced none. */
  readonly rightWayClean: boolean;
  /** One line starting `verdict: `. */
  readonly verdict: string;
  /** A few sentences on the fix, for the inspector. */
  readonly fix: string;
}

export const EVICT_LOOP_COLLECTION = 'evict_loop_demo';
export const EVICT_LOOP_MAX_DOCS = 100_000;
export const EVICT_LOOP_MAX_CYCLES = 20;
export const EVICT_LOOP_SETTLE_MS = 2_000;

const DAY_MS = 86_400_000;
/** Documents per INSERT (each one write transaction). */
const BATCH = 500;
/** Polling interval of the waits. */
const POLL_MS = 20;
/** Once every evicted document is back, the wrong way's cycle waits this long without replication writing to the collection. */
const BACK_QUIET_MS = 150;
/** No wait of a cycle lasts longer, however busy replication of the collection stays (the default of `maxWaitMs`). */
export const EVICT_LOOP_MAX_WAIT_MS = 120_000;
/** How long configuring or restoring the strategy waits for a run of another collection to end (`eviction/busy`). */
const CONFIGURE_WAIT_MS = 30_000;
/** How long the Big Peer may take to acknowledge the documents written: this, plus 1 ms per document. */
const BIG_PEER_WAIT_MS = 30_000;

const FIX =
  'EVICT removes documents from this peer only; a subscription that still matches them asks the Big Peer for them again, ' +
  'so they come straight back, over the network and onto the disk, at every eviction (spec 3.1, last row). ' +
  'Cancel the subscriptions that overlap the documents before EVICT, evict with a condition that is the opposite of the subscription ' +
  '(EVICT createdAt <= :ttl, subscribe createdAt > :ttl), and register the complementary subscription after it with the new TTL (spec 3.2). ' +
  "sync.eviction.configure({ strategies: [{ kind: 'local', collection, ttlHours }] }) runs exactly that cycle, at most once a day in a quiet window; " +
  "with a Big Peer, its TTL job and the 'big-peer' strategy (subscribe to evictionFlag == false, evict evictionFlag = true) are the recommended way.";

/** Scenarios running, by peer: one at a time on a Sync. */
const running = new WeakSet<Sync>();

/**
 * Runs the scenario on `options.sync`, and restores the peer after it (success, failure or
 * abort): no strategy for its collection but the one there was before (the rest of the eviction
 * configuration, its schedule included, is never touched), and no subscription the scenario (or
 * its strategy) registered. The documents stay in the collection, on the Big Peer and, those not
 * evicted, here. Rejects with `scenario/not-connected` without a Big Peer session (or when the
 * Big Peer does not take the documents in time), `scenario/busy` while another runs on the same
 * Sync, the eviction run's own code when the right way's run does not evict, and the signal's
 * reason when aborted.
 */
export async function runEvictLoopScenario(options: EvictLoopOptions): Promise<EvictLoopReport> {
  const { sync, docs, cycles } = options;
  const collection = options.collection ?? EVICT_LOOP_COLLECTION;
  const settleMs = options.settleMs ?? EVICT_LOOP_SETTLE_MS;
  if (!Number.isSafeInteger(docs) || docs < 1 || docs > EVICT_LOOP_MAX_DOCS)
    throw new RangeError(`docs must be a whole number from 1 to ${EVICT_LOOP_MAX_DOCS}, not ${docs}`);
  if (!Number.isSafeInteger(cycles) || cycles < 1 || cycles > EVICT_LOOP_MAX_CYCLES)
    throw new RangeError(`cycles must be a whole number from 1 to ${EVICT_LOOP_MAX_CYCLES}, not ${cycles}`);
  if (!Number.isFinite(settleMs) || settleMs < 0 || settleMs > 60_000) throw new RangeError(`settleMs must be from 0 to 60000, not ${settleMs}`);
  const maxWaitMs = options.maxWaitMs ?? EVICT_LOOP_MAX_WAIT_MS;
  if (!Number.isFinite(maxWaitMs) || maxWaitMs < 1_000 || maxWaitMs > 600_000) throw new RangeError(`maxWaitMs must be from 1000 to 600000, not ${maxWaitMs}`);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(collection))
    throw new RangeError(`collection must be a plain name (letters, digits, _), not ${JSON.stringify(collection)}`);
  options.signal?.throwIfAborted();
  if (running.has(sync)) throw new SyncError('scenario/busy', 'an evict-loop scenario is already running on this peer');
  if (!sync.sessions.some((s) => s.remote.role === 'big-peer')) {
    throw new SyncError('scenario/not-connected', 'the evict-loop scenario needs a live session with a Big Peer: start sync and wait until it is connected');
  }
  running.add(sync);
  const run = new ScenarioRun(options, collection, settleMs, maxWaitMs);
  try {
    return await run.run();
  } finally {
    await run.restore();
    running.delete(sync);
  }
}

/** One line per cycle: way, cycle, evicted, re-synced, store size, memory, received, time. */
export function formatCycleLine(row: EvictLoopCycle): string {
  return [
    `${row.way.padEnd(5)} cycle ${String(row.cycle).padStart(2)}`,
    `evicted ${String(row.evicted).padStart(6)}`,
    `re-synced ${String(row.resynced).padStart(6)}`,
    `store ${formatBytes(row.storeBytes).padStart(8)}`,
    `memory ${formatBytes(row.memoryBytes).padStart(8)}`,
    `received ${formatBytes(row.bytesReceived).padStart(8)}`,
    `${(row.durationMs / 1000).toFixed(2)} s`,
  ].join('  ');
}

/** `1536` → `1.5 KB`: binary multiples, always one decimal (the CLI's aligned columns). */
export function formatBytes(bytes: number): string {
  return formatSize(bytes, 'always');
}

/** The state of one run: what it registered, what replication brought during the current cycle. */
class ScenarioRun {
  readonly #options: EvictLoopOptions;
  readonly #sync: Sync;
  readonly #collection: string;
  readonly #settleMs: number;
  readonly #maxWaitMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #subscriptionsBefore: ReadonlySet<number>;
  readonly #unlisten: (() => void)[] = [];
  /** Once the scenario configured its strategy: the collection's strategy before it (null: none). */
  #strategyBefore: EvictionStrategyConfig | null | undefined;
  #wrongSubscription: SyncSubscription | undefined;
  /** Re-synced documents of the collection since the cycle began. */
  #resynced = 0;
  /** When replication last wrote to the collection or received bytes (real clock). */
  #lastArrival = 0;

  constructor(options: EvictLoopOptions, collection: string, settleMs: number, maxWaitMs: number) {
    this.#options = options;
    this.#sync = options.sync;
    this.#collection = collection;
    this.#settleMs = settleMs;
    this.#maxWaitMs = maxWaitMs;
    this.#signal = options.signal;
    this.#subscriptionsBefore = new Set(this.#sync.store.subscriptions.map((s) => s.id));
  }

  async run(): Promise<EvictLoopReport> {
    const sync = this.#sync;
    const store = sync.store;
    this.#unlisten.push(
      store.onResync((event) => {
        if (event.collection === this.#collection) this.#resynced += event.count;
      }),
      store.onCommit((txn) => {
        if (txn.originator === 'Replication' && txn.collections.includes(this.#collection)) this.#lastArrival = Date.now();
      }),
    );
    const { docs, cycles } = this.#options;
    // Day 0 starts K+1 days ago; cycle i cuts at the end of day i-1, evicting the oldest i days.
    const start = sync.timers.now() - (cycles + 1) * DAY_MS;
    const ttl = (i: number): string => new Date(start + i * DAY_MS).toISOString();

    // The application's subscription: the mistake the spec warns of (find-all, never cancelled).
    this.#wrongSubscription = store.registerSubscription(`SELECT * FROM ${this.#collection}`);
    await this.#write(start, (cycles + 1) * DAY_MS);
    await this.#untilBigPeerHolds(store.lastTxnId);
    // Documents of an earlier run that the find-all subscription brings first.
    await this.#quiet(Math.min(this.#settleMs, 500));

    const rows: EvictLoopCycle[] = [];
    for (let i = 1; i <= cycles; i++) {
      rows.push(
        await this.#cycle('wrong', i, async () => {
          const before = await this.#count();
          const result = await store.execute(`EVICT FROM ${this.#collection} WHERE createdAt <= :ttl`, { ttl: ttl(i) });
          return { evicted: result.mutatedDocumentIds.length, waitFor: before };
        }),
      );
    }

    await this.#configure();
    for (let i = 1; i <= cycles; i++) {
      rows.push(
        await this.#cycle('right', i, async () => {
          const run = await sync.eviction.runNow(this.#collection, { force: true, ttl: ttl(i) });
          if (run.outcome !== 'evicted') throw runError(run);
          return { evicted: run.evicted, waitFor: undefined };
        }),
      );
    }
    return report(this.#collection, docs, rows, this.#settleMs);
  }

  /**
   * Puts back the collection's strategy as it was (the configuration as it is now otherwise: a
   * change made meanwhile stays) and cancels what the scenario and its strategy registered.
   * Never throws.
   */
  async restore(): Promise<void> {
    for (const unlisten of this.#unlisten.splice(0)) unlisten();
    if (this.#sync.isClosed) return;
    const before = this.#strategyBefore;
    if (before !== undefined) {
      await this.#reconfigure(
        (strategies) => [...strategies.filter((s) => s.collection !== this.#collection), ...(before === null ? [] : [before])],
        false,
      ).catch(() => {
        // A run of another collection outlasted the wait, or the Sync closed: nothing better to do.
      });
    }
    this.#wrongSubscription?.cancel();
    for (const s of this.#sync.store.subscriptions) {
      if (!this.#subscriptionsBefore.has(s.id) && s.collection === this.#collection && !s.isCancelled) s.cancel();
    }
  }

  /** Writes the N documents, createdAt spread evenly over `span` from `start`, in batches. */
  async #write(start: number, span: number): Promise<void> {
    const { docs } = this.#options;
    for (let first = 0; first < docs; first += BATCH) {
      this.#signal?.throwIfAborted();
      const args: Record<string, unknown> = {};
      const rows: string[] = [];
      for (let j = first; j < Math.min(docs, first + BATCH); j++) {
        const createdAt = new Date(start + Math.floor(((j + 0.5) * span) / docs)).toISOString();
        args[`d${j}`] = { _id: `evict-loop-${j}`, createdAt, evictionFlag: false, payload: payload(j) };
        rows.push(`(:d${j})`);
      }
      await this.#sync.store.execute(`INSERT INTO ${this.#collection} DOCUMENTS ${rows.join(', ')} ON ID CONFLICT DO UPDATE`, args);
    }
  }

  /** Waits until the Big Peer acknowledged every change up to `txnId`: never evict what only this peer holds. */
  async #untilBigPeerHolds(txnId: number): Promise<void> {
    const limit = BIG_PEER_WAIT_MS + this.#options.docs;
    const deadline = Date.now() + limit;
    for (;;) {
      const holds = this.#sync.eviction.bigPeerHolds();
      if (holds !== undefined && holds >= txnId) return;
      if (Date.now() >= deadline) {
        throw new SyncError(
          'scenario/not-connected',
          `the Big Peer did not acknowledge the scenario's ${this.#options.docs} documents within ${Math.round(limit / 1000)} s ` +
            `(it holds this peer's changes up to txn ${holds ?? 'none'}, the last write is txn ${txnId}); nothing was evicted`,
        );
      }
      await this.#sleep(POLL_MS * 2);
    }
  }

  /** Runs one cycle's eviction, then waits (see `settleMs`) and measures. */
  async #cycle(way: 'wrong' | 'right', cycle: number, evict: () => Promise<{ evicted: number; waitFor: number | undefined }>): Promise<EvictLoopCycle> {
    this.#signal?.throwIfAborted();
    const t0 = performance.now();
    const received0 = this.#received();
    this.#resynced = 0;
    const { evicted, waitFor } = await evict();
    await this.#quiet(this.#settleMs, waitFor);
    const row: EvictLoopCycle = {
      way,
      cycle,
      evicted,
      resynced: this.#resynced,
      storeBytes: this.#sync.store.sizeOnDisk(),
      memoryBytes: (this.#options.memory ?? (() => process.memoryUsage().rss))(),
      bytesReceived: this.#received() - received0,
      durationMs: Math.round(performance.now() - t0),
    };
    this.#options.onCycle?.(row);
    return row;
  }

  /**
   * Waits until replication has been quiet for `quietMs` (nothing written to the collection,
   * no bytes received); or, given
   * `count`, until the collection holds `count` documents again and replication has been quiet
   * for BACK_QUIET_MS (the rest of the update it came back with); at most MAX_CYCLE_WAIT_MS.
   */
  async #quiet(quietMs: number, count?: number): Promise<void> {
    const begin = Date.now();
    let back = false;
    let received = this.#received();
    for (;;) {
      this.#signal?.throwIfAborted();
      const now = Date.now();
      // Bytes of the collection still arriving count as activity too: an update's next chunk may
      // take a while to merge. Other collections' replication is none of the scenario's business.
      const bytes = this.#received();
      if (bytes !== received) this.#lastArrival = now;
      received = bytes;
      const silent = now - Math.max(begin, this.#lastArrival);
      if (count !== undefined && !back) back = (await this.#count()) >= count;
      if ((back && silent >= Math.min(quietMs, BACK_QUIET_MS)) || silent >= quietMs || now - begin >= this.#maxWaitMs) return;
      await this.#sleep(POLL_MS);
    }
  }

  async #count(): Promise<number> {
    const { items } = await this.#sync.store.execute(`SELECT COUNT(*) AS n FROM ${this.#collection}`);
    return Number(items[0]?.['n'] ?? 0);
  }

  /** Replication bytes received for the collection so far. */
  #received(): number {
    return this.#sync.receivedFor(this.#collection).bytes;
  }

  /**
   * The local strategy for the right way, added for the scenario's collection only: the rest of
   * the configuration, the schedule and the other strategies' next runs included, stays as it
   * is. The strategy itself is left off the schedule (`scheduled: false`): only the scenario's
   * forced runs, with its own TTLs, run it.
   */
  async #configure(): Promise<void> {
    const local: LocalStrategyConfig = { kind: 'local', collection: this.#collection, ttlHours: 24, scheduled: false };
    let before: EvictionStrategyConfig | null = null;
    await this.#reconfigure((strategies) => {
      before = strategies.find((s) => s.collection === this.#collection) ?? null;
      return [...strategies.filter((s) => s.collection !== this.#collection), local];
    }, true);
    this.#strategyBefore = before;
  }

  /**
   * Configures the strategies `change` makes of the current ones, the window, the schedule and
   * the quiet time kept; waits (at most CONFIGURE_WAIT_MS) while a run of another collection is
   * under way (`eviction/busy`).
   */
  async #reconfigure(change: (strategies: readonly EvictionStrategyConfig[]) => EvictionStrategyConfig[], abortable: boolean): Promise<void> {
    const deadline = Date.now() + CONFIGURE_WAIT_MS;
    for (;;) {
      if (abortable) this.#signal?.throwIfAborted();
      const now = this.#sync.eviction.snapshot();
      try {
        this.#sync.eviction.configure({
          strategies: change(now.collections.map((c) => c.config)),
          window: now.window,
          scheduled: now.scheduled,
          quietAfterBlockedMs: now.quietAfterBlockedMs,
        });
        return;
      } catch (error) {
        if (!(error instanceof SyncError && error.code === 'eviction/busy') || Date.now() >= deadline) throw error;
      }
      await (abortable ? this.#sleep(POLL_MS * 5) : new Promise((resolve) => setTimeout(resolve, POLL_MS * 5)));
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/** About 200 bytes of text per document. */
function payload(j: number): string {
  return `document ${j} of the evict-loop scenario; `.repeat(6).slice(0, 200);
}

function runError(run: EvictionRun): SyncError {
  const code = run.code ?? 'eviction/failed';
  return new SyncError(code, `the right way's eviction run of ${run.collection} was ${run.outcome}: ${run.reason ?? 'no reason given'}`, { details: run });
}

function totals(rows: readonly EvictLoopCycle[]): EvictLoopTotals {
  return rows.reduce((t, r) => ({ evicted: t.evicted + r.evicted, resynced: t.resynced + r.resynced, bytesReceived: t.bytesReceived + r.bytesReceived }), {
    evicted: 0,
    resynced: 0,
    bytesReceived: 0,
  });
}

function report(collection: string, docs: number, cycles: readonly EvictLoopCycle[], settleMs: number): EvictLoopReport {
  const wrong = totals(cycles.filter((c) => c.way === 'wrong'));
  const right = totals(cycles.filter((c) => c.way === 'right'));
  const loopDetected = wrong.resynced > 0;
  const rightWayClean = right.resynced === 0;
  const wrongText = `the wrong way re-synced ${wrong.resynced} of ${wrong.evicted} evicted documents (${formatBytes(wrong.bytesReceived)} received)`;
  const rightText = `the right way re-synced ${right.resynced} of ${right.evicted} (${formatBytes(right.bytesReceived)} received)`;
  const advice = 'cancel the overlapping subscription before EVICT and register the complementary one after (spec 3.2)';
  const verdict =
    loopDetected && rightWayClean
      ? `verdict: evict/re-sync loop reproduced: ${wrongText}; ${rightText}: ${advice}`
      : !loopDetected
        ? `verdict: loop NOT reproduced: ${wrongText} within ${settleMs} ms of quiet after each EVICT; ${rightText}; is replication with the Big Peer running?`
        : `verdict: the right way did NOT stay clean: ${rightText}; ${wrongText}; another subscription of ${collection} overlaps what it evicts`;
  return { collection, docs, cycles, wrong, right, loopDetected, rightWayClean, verdict, fix: FIX };
}
