/**
 * `sync.eviction`: runs the configured TTL strategies (spec 1.5, 1.6, 3.2, 8), one per
 * collection, on a schedule or when asked.
 * - Big Peer management: keeps `SELECT * FROM c WHERE evictionFlag == false` registered and
 *   runs `EVICT FROM c WHERE evictionFlag = true`, leaving out every document whose latest
 *   change here the Big Peer has not acknowledged (`bigPeerHolds`): nothing is lost that had
 *   not reached it.
 * - Local management: the spec 3.2 cycle as one operation (eviction-plan.ts): cancel the
 *   subscriptions the EVICT may affect, EVICT, register each narrowed to the new TTL; a pair of
 *   EVICT and subscription that overlap is refused.
 * - Scheduling: at most once per day per collection (the last run is saved with the store), in
 *   a low-activity window, and not within `quietAfterBlockedMs` of a blocked write; `force`
 *   overrides the day and the quiet (logged as WARN), never an overlap.
 * Every run is logged (what it cancelled, evicted with the bytes freed, and registered) and
 * kept in a short history.
 */
import { LOG_EVENTS } from '../../shared/log.ts';
import type { Expr } from '../dql/ast.ts';
import { queryKey } from '../../shared/protocol/messages.ts';
import { toParams } from '../query/args.ts';
import { prepare } from '../query/prepare.ts';
import { toQuery } from '../subscriptions/subscription-set.ts';
import { SyncError } from '../errors.ts';
import type { Logger } from '../log/log-hub.ts';
import type { Store } from '../store/store.ts';
import type { StoredDocument } from '../storage/types.ts';
import type { SyncSubscription } from '../subscriptions/subscription-set.ts';
import type { TimerHandle, Timers } from '../time.ts';
import { bigPeerStatements, firstIds, localConditions, planEviction, quoteName, type BaseQuery, type EvictionPlan } from './eviction-plan.ts';
import {
  BLOCKED_WAIT_MS,
  DAY_MS,
  DEFAULT_QUIET_AFTER_BLOCKED_MS,
  DEFAULT_WINDOW,
  RETRY_AFTER_MS,
  nextInWindow,
  nextRunAt,
  parseWindow,
  tooSoon,
  type DailyWindow,
} from './schedule.ts';
import {
  RUNS_KEPT,
  type EvictionDryRun,
  type EvictionOptions,
  type EvictionOverlapCheck,
  type EvictionRefusalCode,
  type EvictionRun,
  type EvictionSnapshot,
  type EvictionStatus,
  type EvictionStrategyConfig,
  type LocalStrategyConfig,
} from './types.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { isInternalCollection } from '../../shared/internal-collections.ts';

/** The setting holding when a collection was last evicted (ms). */
const LAST_RUN_PREFIX = 'eviction/last-run/';
/** Timers wait at most this long, then look again (clocks jump; timers cannot wait 25 days). */
const MAX_TIMER_MS = 3_600_000;
/** A scheduled run that failed is tried again this long after (inside the window). */
const RETRY_FAILED_MS = 3_600_000;
/** Ids evicted per storage call when some flagged documents are kept. */
const EVICT_BATCH = 500;

export interface EvictionHost {
  readonly store: Store;
  readonly timers: Timers;
  readonly logger: Logger;
  /** Up to which txn_id of this store the Big Peer holds every change (undefined: unknown). */
  bigPeerHolds(): number | undefined;
  /**
   * What this peer holds of each remote's store (replication progress), so that a run keeps it
   * across its EVICT: otherwise remotes send again every document of the collection.
   */
  readonly progress?: ProgressPort;
}

export interface ProgressPort {
  /** The remotes this peer replicates with (live sessions and those seen since it started). */
  remotes(): string[];
  /** Per subscription query key, the remote's txn_id this peer holds everything up to. */
  load(remote: string): Record<string, number>;
  /** The setting that saves a remote's progress as of `savedAt` (written inside the EVICT's transaction). */
  setting(remote: string, progress: Record<string, number>, savedAt: number): [string, string];
}

export interface ManagerRunOptions {
  /** Run despite the once-a-day rule and a recent blocked write; the override is logged. */
  readonly force?: boolean;
  /** The local strategy's cut-off (ISO 8601) instead of now − ttlHours: QA and the evict-loop scenario. */
  readonly ttl?: string;
}

interface CollectionState {
  readonly config: EvictionStrategyConfig;
  /** Subscriptions the strategy registered, with the application query each narrows. */
  readonly owned: Map<number, { sub: SyncSubscription; base: BaseQuery | undefined }>;
  lastRunAt: number | undefined;
  lastRun: EvictionRun | undefined;
  nextRunAt: number | undefined;
  timer: TimerHandle | undefined;
  running: boolean;
}

function validate(config: EvictionStrategyConfig): void {
  const c = config as Partial<EvictionStrategyConfig> & { kind?: unknown };
  if (c.kind !== 'big-peer' && c.kind !== 'local')
    throw new SyncError('eviction/invalid', `an eviction strategy's kind is 'big-peer' or 'local', not ${JSON.stringify(c.kind)}`);
  if (typeof c.collection !== 'string' || c.collection === '') throw new SyncError('eviction/invalid', 'an eviction strategy needs a collection');
  if (isInternalCollection(c.collection))
    throw new SyncError('eviction/invalid', `${c.collection} is an internal collection; strategies evict application collections`);
  if (c.scheduled !== undefined && typeof c.scheduled !== 'boolean')
    throw new SyncError('eviction/invalid', `the scheduled of the strategy of ${c.collection} is true or false, not ${JSON.stringify(c.scheduled)}`);
  if (c.kind === 'local') {
    const l = c as Partial<LocalStrategyConfig>;
    if (!(typeof l.ttlHours === 'number' && Number.isFinite(l.ttlHours) && l.ttlHours > 0)) {
      throw new SyncError('eviction/invalid', `the local strategy of ${c.collection} needs ttlHours > 0, not ${JSON.stringify(l.ttlHours)}`);
    }
    if (l.field !== undefined && (typeof l.field !== 'string' || l.field === ''))
      throw new SyncError('eviction/invalid', `the local strategy of ${c.collection} has an empty field`);
    const { evictWhere, subscribeWhere } = localConditions(l as LocalStrategyConfig);
    for (const [name, statement] of [
      ['evictWhere', `EVICT FROM ${quoteName(c.collection)} WHERE ${evictWhere}`],
      ['subscribeWhere', `SELECT * FROM ${quoteName(c.collection)} WHERE ${subscribeWhere}`],
    ] as const) {
      try {
        prepare(statement);
      } catch (error) {
        throw new SyncError('eviction/invalid', `the ${name} of the local strategy of ${c.collection} is not a DQL condition: ${errorMessage(error)}`);
      }
    }
  }
}

const list = (statements: readonly string[]): string => (statements.length === 0 ? 'none' : statements.join(' | '));

export class EvictionManager {
  readonly #host: EvictionHost;
  readonly #log: Logger;
  #window: DailyWindow = parseWindow(DEFAULT_WINDOW);
  #scheduled = true;
  #quietMs = DEFAULT_QUIET_AFTER_BLOCKED_MS;
  #collections = new Map<string, CollectionState>();
  readonly #runs: EvictionRun[] = [];
  readonly #listeners = new Set<(run: EvictionRun) => void>();
  #lastBlockedAt: number | undefined;
  readonly #offBlocked: () => void;
  #closed = false;

  constructor(host: EvictionHost, options?: EvictionOptions) {
    this.#host = host;
    this.#log = host.logger;
    this.#offBlocked = host.store.onBlockedWait((wait) => {
      if (wait.waitedMs >= BLOCKED_WAIT_MS) this.#lastBlockedAt = host.timers.now();
    });
    if (options !== undefined) this.configure(options);
  }

  /**
   * Replaces the strategies and the schedule. The subscriptions the previous strategies
   * registered are cancelled; a Big Peer strategy registers its own at once. Throws
   * `eviction/invalid` (and changes nothing) for a malformed configuration.
   */
  configure(options: EvictionOptions): void {
    this.#assertOpen();
    const window = parseWindow(options.window ?? DEFAULT_WINDOW);
    const strategies = options.strategies ?? [];
    if (!Array.isArray(strategies)) throw new SyncError('eviction/invalid', 'eviction strategies are a list');
    strategies.forEach(validate);
    const seen = new Set<string>();
    for (const s of strategies) {
      if (seen.has(s.collection)) throw new SyncError('eviction/invalid', `${s.collection} has two eviction strategies; give each collection one`);
      seen.add(s.collection);
    }
    const quiet = options.quietAfterBlockedMs ?? DEFAULT_QUIET_AFTER_BLOCKED_MS;
    if (!(Number.isFinite(quiet) && quiet >= 0))
      throw new SyncError('eviction/invalid', `quietAfterBlockedMs is a number of ms >= 0, not ${JSON.stringify(quiet)}`);
    for (const state of this.#collections.values())
      if (state.running) throw new SyncError('eviction/busy', `a run of ${state.config.collection} is under way; configure after it ends`);
    // What a collection's strategy registered stays: a Big Peer strategy's own subscription
    // while the collection keeps that strategy, and a local strategy's narrowed subscriptions
    // always (they replaced the application's; without the strategy they stay as the
    // application's). Only a Big Peer strategy's subscription, no longer wanted, is cancelled.
    const kept = (config: EvictionStrategyConfig): CollectionState | undefined => {
      const previous = this.#collections.get(config.collection);
      return previous?.config.kind === config.kind ? previous : undefined;
    };
    // Register new Big Peer strategies' subscriptions first: a refused one changes nothing.
    const registered: SyncSubscription[] = [];
    try {
      for (const s of strategies) {
        const previous = kept(s);
        const alive = previous !== undefined && [...previous.owned.values()].some((o) => !o.sub.isCancelled);
        if (s.kind === 'big-peer' && !alive) registered.push(this.#host.store.registerSubscription(bigPeerStatements(s.collection).subscribe));
      }
    } catch (error) {
      for (const sub of registered) sub.cancel();
      throw error;
    }
    for (const state of this.#collections.values()) {
      if (state.timer !== undefined) this.#host.timers.clearTimeout(state.timer);
      state.timer = undefined;
      const stays = strategies.some((s) => kept(s) === state);
      if (!stays && state.config.kind === 'big-peer') for (const { sub } of state.owned.values()) sub.cancel();
    }
    this.#window = window;
    this.#scheduled = options.scheduled ?? true;
    this.#quietMs = quiet;
    const next = new Map<string, CollectionState>();
    for (const config of strategies) {
      const previous = kept(config);
      const owned = new Map<number, { sub: SyncSubscription; base: BaseQuery | undefined }>();
      for (const [id, o] of previous?.owned ?? []) if (!o.sub.isCancelled) owned.set(id, o);
      const own = registered.find((sub) => config.kind === 'big-peer' && sub.collection === config.collection);
      if (own !== undefined) owned.set(own.id, { sub: own, base: undefined });
      const saved = Number(this.#host.store.internalSettings.get(LAST_RUN_PREFIX + config.collection));
      next.set(config.collection, {
        config,
        owned,
        lastRunAt: Number.isFinite(saved) && saved > 0 ? saved : undefined,
        lastRun: this.#collections.get(config.collection)?.lastRun,
        nextRunAt: undefined,
        timer: undefined,
        running: false,
      });
    }
    this.#collections = next;
    this.#log.info(LOG_EVENTS.evictionConfigured, {
      strategies:
        strategies.length === 0 ? 'none' : strategies.map((s) => `${s.kind}:${s.collection}${s.kind === 'local' ? `:${s.ttlHours}h` : ''}`).join(', '),
      window: window.text,
      scheduled: this.#scheduled,
    });
    if (this.#scheduled) for (const state of this.#collections.values()) this.#schedule(state);
  }

  /** The strategies, their schedule and the recent runs. */
  snapshot(): EvictionSnapshot {
    const collections: EvictionStatus[] = [...this.#collections.values()].map((state) => {
      const subs = [...state.owned.values()].filter((o) => !o.sub.isCancelled).map((o) => o.sub.statement);
      return {
        config: state.config,
        subscription: subs.length === 0 ? undefined : subs.join(' | '),
        lastRunAt: state.lastRunAt,
        lastRun: state.lastRun,
        nextRunAt: state.nextRunAt,
      };
    });
    return { window: this.#window.text, scheduled: this.#scheduled, quietAfterBlockedMs: this.#quietMs, collections, runs: [...this.#runs] };
  }

  /** What the next run of `collection` would do now: evict, keep, cancel, and bring back. */
  dryRun(collection: string, options: ManagerRunOptions = {}): EvictionDryRun {
    this.#assertOpen();
    const state = this.#state(collection);
    const plan = this.#plan(state, options.ttl);
    const refusal = plan.refusal ?? this.#ruleRefusal(state, this.#host.timers.now(), options.force === true)?.refusal;
    return {
      collection,
      strategy: state.config.kind,
      ...(plan.ttl === undefined ? {} : { ttl: plan.ttl }),
      evictStatement: plan.evictStatement,
      subscribeStatement: plan.subscribeStatement,
      evict: { count: plan.evictIds.length, ids: firstIds(plan.evictIds) },
      kept: { count: plan.keptIds.length, ids: firstIds(plan.keptIds) },
      cancel: plan.cancel.map((s) => s.statement),
      comeBack: plan.comeBack,
      overlapping: plan.overlapping,
      ...(plan.suggestedSubscribeWhere === undefined ? {} : { suggestedSubscribeWhere: plan.suggestedSubscribeWhere }),
      ...(refusal === undefined ? {} : { refusal }),
    };
  }

  /**
   * Whether a run of `collection` would be refused for an overlap now (`eviction/overlap`), with
   * the fix: the dry run's reasoning, reading no document where the conditions decide it, so that
   * the inspector may ask at every refresh. Undefined when it would not.
   */
  overlap(collection: string): EvictionOverlapCheck | undefined {
    this.#assertOpen();
    const state = this.#state(collection);
    const plan = this.#plan(state, undefined, true);
    if (plan.refusal?.code !== 'eviction/overlap') return undefined;
    return {
      collection,
      strategy: state.config.kind,
      message: plan.refusal.message,
      overlapping: plan.overlapping,
      ...(plan.suggestedSubscribeWhere === undefined ? {} : { suggestedSubscribeWhere: plan.suggestedSubscribeWhere }),
    };
  }

  /**
   * Runs the strategy of `collection` now. A refusal (too soon, a blocked write, an overlap)
   * resolves as a run with outcome `refused` and its code, logged; only a malformed call
   * rejects (`eviction/not-configured`).
   */
  async runNow(collection: string, options: ManagerRunOptions = {}): Promise<EvictionRun> {
    this.#assertOpen();
    const state = this.#state(collection);
    const run = await this.#run(state, 'manual', options);
    if (run.outcome === 'evicted' && state.timer !== undefined) {
      // The day starts again from this run: the schedule moves with it.
      state.nextRunAt = undefined;
      this.#schedule(state);
    }
    return run;
  }

  /** Called after every run (evicted, refused, postponed or failed). Returns an unsubscribe function. */
  onRun(listener: (run: EvictionRun) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Up to which txn_id of this store the Big Peer holds every change (what the Big Peer strategy trusts). */
  bigPeerHolds(): number | undefined {
    return this.#host.bigPeerHolds();
  }

  /** Stops the schedule and cancels the strategies' subscriptions. Safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#offBlocked();
    for (const state of this.#collections.values()) {
      if (state.timer !== undefined) this.#host.timers.clearTimeout(state.timer);
      state.timer = undefined;
    }
    this.#listeners.clear();
  }

  #assertOpen(): void {
    if (this.#closed || this.#host.store.isClosed) throw new SyncError('sync/closed', 'this Sync is closed; eviction cannot run');
  }

  #state(collection: string): CollectionState {
    const state = this.#collections.get(collection);
    if (state === undefined) {
      const configured = [...this.#collections.keys()];
      throw new SyncError(
        'eviction/not-configured',
        `no eviction strategy is configured for ${collection}${configured.length === 0 ? '' : `; configured: ${configured.join(', ')}`}`,
      );
    }
    return state;
  }

  #plan(state: CollectionState, ttl: string | undefined, overlapOnly = false): EvictionPlan {
    const store = this.#host.store;
    const owned = new Map([...state.owned].filter(([, o]) => !o.sub.isCancelled).map(([id, o]) => [id, o.base]));
    const subscriptions = store.subscriptions.filter((s) => !s.isInternal && !s.isCancelled);
    const holds = state.config.kind === 'big-peer' ? this.#host.bigPeerHolds() : undefined;
    return store.readNow((reader) =>
      planEviction(reader, {
        config: state.config,
        now: this.#host.timers.now(),
        ...(ttl === undefined ? {} : { ttl }),
        subscriptions,
        owned,
        bigPeerHolds: holds,
        overlapOnly,
      }),
    );
  }

  /** The once-a-day and quiet-store rules: what refuses a run now, and what `force` would override. */
  #ruleRefusal(
    state: CollectionState,
    now: number,
    force: boolean,
  ): { refusal: { code: EvictionRefusalCode; message: string }; overridden: boolean } | undefined {
    const soon = tooSoon(now, state.lastRunAt);
    if (soon !== undefined) return { refusal: { code: 'eviction/too-soon', message: soon }, overridden: force };
    const blocked = this.#blocked(now);
    if (blocked !== undefined) return { refusal: { code: 'eviction/write-blocked', message: blocked }, overridden: force };
    return undefined;
  }

  /** Why the store is not quiet now, if it is not: a writer waiting, or a recent blocked write. */
  #blocked(now: number): string | undefined {
    const waiter = this.#host.store.writeSlot.waiters.find((w) => now - w.since >= BLOCKED_WAIT_MS);
    if (waiter !== undefined) return `a ${waiter.originator} write transaction has been blocked for ${Math.round((now - waiter.since) / 1000)} s now`;
    const at = this.#lastBlockedAt;
    if (at !== undefined && now - at < this.#quietMs) {
      return `a write transaction was blocked ${Math.round((now - at) / 1000)} s ago; eviction waits for ${Math.round(this.#quietMs / 60_000)} quiet minutes after one (until ${new Date(at + this.#quietMs).toISOString()})`;
    }
    return undefined;
  }

  #schedule(state: CollectionState): void {
    if (this.#closed || !this.#scheduled || state.config.scheduled === false || this.#collections.get(state.config.collection) !== state) return;
    if (state.timer !== undefined) this.#host.timers.clearTimeout(state.timer);
    const now = this.#host.timers.now();
    const due = state.nextRunAt !== undefined && state.nextRunAt > now ? state.nextRunAt : nextRunAt(this.#window, now, state.lastRunAt);
    if (state.nextRunAt !== due) {
      state.nextRunAt = due;
      this.#log.debug(LOG_EVENTS.evictionScheduled, {
        collection: state.config.collection,
        strategy: state.config.kind,
        next_run: new Date(due).toISOString(),
        window: this.#window.text,
      });
    }
    state.timer = this.#host.timers.setTimeout(
      () => {
        state.timer = undefined;
        if (this.#closed || this.#host.store.isClosed) return;
        if (this.#host.timers.now() < due) return this.#schedule(state); // woke early (a long wait is cut in hours)
        void this.#run(state, 'schedule', {})
          .then((run) => {
            // A refusal the schedule cannot wait out (an overlapping pair) is tried again the next
            // day, a failure in an hour: never again at once.
            if (run.outcome === 'refused') state.nextRunAt = nextInWindow(this.#window, run.at + DAY_MS);
            if (run.outcome === 'failed') state.nextRunAt = nextInWindow(this.#window, run.at + RETRY_FAILED_MS);
          })
          .finally(() => this.#schedule(state));
      },
      Math.min(Math.max(0, due - now), MAX_TIMER_MS),
    );
  }

  async #run(state: CollectionState, trigger: 'schedule' | 'manual', options: ManagerRunOptions): Promise<EvictionRun> {
    const { collection, kind } = state.config;
    const timers = this.#host.timers;
    const at = timers.now();
    const base = { collection, strategy: kind, trigger, forced: false, at, cancelled: [], registered: [], evicted: 0, bytesFreed: 0, kept: 0 } as const;
    if (state.running) {
      return this.#refused(
        state,
        { ...base, evictStatement: '', durationMs: 0, storeBytesBefore: 0, storeBytesAfter: 0 },
        'eviction/busy',
        `a run of ${collection} is under way`,
      );
    }
    state.running = true;
    try {
      const store = this.#host.store;
      const storeBytesBefore = store.sizeOnDisk();
      const rules = this.#ruleRefusal(state, at, options.force === true);
      if (rules !== undefined && trigger === 'schedule') {
        // The schedule never forces: it waits until the store is quiet (a day has passed by construction).
        const retry =
          rules.refusal.code === 'eviction/too-soon'
            ? nextRunAt(this.#window, at, state.lastRunAt)
            : nextInWindow(this.#window, Math.max(at + RETRY_AFTER_MS, (this.#lastBlockedAt ?? at) + this.#quietMs));
        state.nextRunAt = retry;
        this.#log.info(LOG_EVENTS.evictionPostponed, { collection, reason: rules.refusal.message, next_run: new Date(retry).toISOString() });
        return this.#record(state, {
          ...base,
          evictStatement: '',
          durationMs: 0,
          outcome: 'postponed',
          code: rules.refusal.code,
          reason: rules.refusal.message,
          storeBytesBefore,
          storeBytesAfter: storeBytesBefore,
        });
      }
      let plan: EvictionPlan;
      try {
        plan = this.#plan(state, options.ttl);
      } catch (error) {
        return this.#failed(state, { ...base, evictStatement: '', storeBytesBefore }, error);
      }
      const planned = {
        ...base,
        ...(plan.ttl === undefined ? {} : { ttl: plan.ttl }),
        evictStatement: plan.evictStatement,
        storeBytesBefore,
        storeBytesAfter: storeBytesBefore,
        durationMs: 0,
      };
      if (plan.refusal !== undefined) return this.#refused(state, planned, plan.refusal.code, plan.refusal.message);
      if (rules !== undefined && !rules.overridden) return this.#refused(state, planned, rules.refusal.code, rules.refusal.message);
      if (rules !== undefined) this.#log.warn(LOG_EVENTS.evictionForced, { collection, overriding: `${rules.refusal.code}: ${rules.refusal.message}` });
      const forced = rules !== undefined;

      // What this peer holds of each remote stays true across the EVICT for every subscription
      // it leaves in place, and carries over to each narrowed one (the two are disjoint from the
      // EVICT): saved with the EVICT, so remotes send only what is new, not the whole collection again.
      const progress = this.#carriedProgress(plan);
      // Step 1: cancel. Step 2: EVICT (one transaction). Step 3: register, narrowed to the new TTL.
      const cancelled = plan.cancel.map((sub) => ({ statement: sub.statement, args: sub.args, owned: state.owned.get(sub.id) }));
      for (const sub of plan.cancel) {
        sub.cancel();
        state.owned.delete(sub.id);
      }
      let evicted: { count: number; bytes: number; kept: number; txnId: number };
      try {
        evicted = await this.#evict(plan, progress);
      } catch (error) {
        // Nothing was evicted: what was cancelled is registered again, as it was.
        for (const c of cancelled) {
          try {
            const again = store.registerSubscription(c.statement, c.args);
            if (c.owned !== undefined) state.owned.set(again.id, { sub: again, base: c.owned.base });
          } catch {
            // The store closed meanwhile.
          }
        }
        return this.#failed(state, { ...planned, forced }, error);
      }
      const registered: string[] = [];
      for (const r of plan.register) {
        const sub = store.registerSubscription(r.statement, r.args);
        state.owned.set(sub.id, { sub, base: r.base });
        registered.push(r.statement);
      }
      await store.reclaimSpace();
      const finished = timers.now();
      state.lastRunAt = finished;
      await store.internalSettings.set({ [LAST_RUN_PREFIX + collection]: String(finished) });
      const run: EvictionRun = {
        ...planned,
        forced,
        durationMs: finished - at,
        outcome: 'evicted',
        cancelled: cancelled.map((c) => c.statement),
        registered,
        evicted: evicted.count,
        bytesFreed: evicted.bytes,
        kept: evicted.kept,
        storeBytesAfter: store.sizeOnDisk(),
        txnId: evicted.txnId,
      };
      this.#log.info(LOG_EVENTS.evictionRan, {
        collection,
        strategy: kind,
        trigger,
        cancelled: list(run.cancelled),
        evicted: run.evicted,
        bytes_freed: run.bytesFreed,
        store_bytes_before: run.storeBytesBefore,
        store_bytes_after: run.storeBytesAfter,
        registered: list(run.registered),
        kept: run.kept,
        txn_id: evicted.txnId,
      });
      return this.#record(state, run);
    } finally {
      state.running = false;
    }
  }

  /** The EVICT, as one `Internal` transaction: documents chosen again inside it, the Big Peer's watermark read again too. */
  async #evict(
    plan: EvictionPlan,
    progress: ReadonlyMap<string, Record<string, number>>,
  ): Promise<{ count: number; bytes: number; kept: number; txnId: number }> {
    const { collection } = plan.config;
    const holds = plan.config.kind === 'big-peer' ? (this.#host.bigPeerHolds() ?? 0) : undefined;
    const port = this.#host.progress;
    const { result, txnId } = await this.#host.store.internalWrites.write('Internal', `evict ${collection}`, (w) => {
      w.beforeEvict?.(plan.query);
      if (port !== undefined) {
        for (const [remote, held] of progress) w.writer.setSetting(...port.setting(remote, held, w.txnId));
      }
      const docs = w.writer.findDocuments(plan.query);
      const chosen = holds === undefined ? docs : docs.filter((d) => d.txnId <= holds);
      const bytes = chosen.reduce((sum, d) => sum + storedBytes(d), 0);
      if (chosen.length === docs.length) {
        const ids = w.writer.evict(plan.query);
        return { count: ids.length, bytes, kept: 0 };
      }
      // Some flagged documents changed here since the Big Peer acknowledged: evict the others by id.
      let count = 0;
      for (let i = 0; i < chosen.length; i += EVICT_BATCH) {
        const ids = chosen.slice(i, i + EVICT_BATCH).map((d) => d.id);
        count += w.writer.evict({
          ...plan.query,
          where: idsCondition(plan.query.where),
          params: { ...plan.query.params, [IDS_PARAM]: ids },
          limit: undefined,
          offset: 0,
        }).length;
      }
      return { count, bytes, kept: docs.length - chosen.length };
    });
    return { ...result, txnId };
  }

  /** Each remote's progress as it will be after the run: cancelled queries dropped, narrowed ones carried over. */
  #carriedProgress(plan: EvictionPlan): Map<string, Record<string, number>> {
    const port = this.#host.progress;
    const out = new Map<string, Record<string, number>>();
    if (port === undefined) return out;
    const { collection } = plan.config;
    const keyOf = (sub: Pick<SyncSubscription, 'collection' | 'query'>): string => queryKey(sub.collection, sub.query);
    const cancelled = new Set(plan.cancel.map(keyOf));
    const narrowed = plan.register.map((r) => {
      const ast = prepare(r.statement).ast;
      return { key: ast.kind === 'select' ? queryKey(collection, toQuery(ast, toParams(r.args))) : undefined, from: r.replaces.map(keyOf) };
    });
    for (const remote of port.remotes()) {
      const before = port.load(remote);
      const held = { ...before };
      for (const key of cancelled) delete held[key];
      for (const { key, from } of narrowed) {
        if (key === undefined || from.length === 0) continue;
        const values = from.map((k) => before[k]);
        if (values.every((v): v is number => typeof v === 'number')) held[key] = Math.min(...values);
      }
      out.set(remote, held);
    }
    return out;
  }

  #refused(
    state: CollectionState,
    run: Omit<EvictionRun, 'outcome' | 'code' | 'reason' | 'forced'> & { forced?: boolean },
    code: EvictionRefusalCode,
    reason: string,
  ): EvictionRun {
    this.#log.warn(LOG_EVENTS.evictionRefused, { collection: run.collection, strategy: run.strategy, trigger: run.trigger, code, reason });
    return this.#record(state, { ...run, forced: run.forced ?? false, outcome: 'refused', code, reason, durationMs: this.#host.timers.now() - run.at });
  }

  #failed(
    state: CollectionState,
    run: Omit<EvictionRun, 'outcome' | 'code' | 'reason' | 'durationMs' | 'storeBytesAfter' | 'forced'> & { forced?: boolean },
    error: unknown,
  ): EvictionRun {
    const message = errorMessage(error);
    this.#log.error(LOG_EVENTS.evictionFailed, { collection: run.collection, error: message });
    let after = run.storeBytesBefore;
    try {
      after = this.#host.store.sizeOnDisk();
    } catch {
      // closed
    }
    return this.#record(state, {
      ...run,
      forced: run.forced ?? false,
      outcome: 'failed',
      code: 'eviction/failed',
      reason: message,
      durationMs: this.#host.timers.now() - run.at,
      storeBytesAfter: after,
    });
  }

  #record(state: CollectionState, run: EvictionRun): EvictionRun {
    if (run.outcome === 'evicted') state.lastRun = run;
    this.#runs.push(run);
    if (this.#runs.length > RUNS_KEPT) this.#runs.splice(0, this.#runs.length - RUNS_KEPT);
    for (const listener of [...this.#listeners]) {
      try {
        listener(run);
      } catch {
        // A listener (the inspector) must not break a run.
      }
    }
    return run;
  }
}

const IDS_PARAM = '__eviction_ids';

/** `(<where>) AND _id IN :__eviction_ids`, as an expression. */
function idsCondition(where: Expr | undefined): Expr {
  const pos = { offset: 0, line: 1, column: 1 };
  const inIds: Expr = { kind: 'in', negated: false, needle: { kind: 'path', segments: ['_id'], pos }, haystack: { kind: 'param', name: IDS_PARAM, pos }, pos };
  return where === undefined ? inIds : { kind: 'binary', op: 'AND', left: where, right: inIds, pos };
}

/** The bytes a document takes as stored: its value and its merge metadata, as JSON. */
function storedBytes(doc: StoredDocument): number {
  return Buffer.byteLength(JSON.stringify(doc.value)) + Buffer.byteLength(JSON.stringify(doc.meta));
}
