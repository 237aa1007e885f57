/**
 * `sync.tombstones`: the tombstone reaper. A DELETE leaves a tombstone so that every peer learns
 * of it (spec 1.3); kept for ever, a store that deletes steadily grows without bound. The reaper
 * removes the tombstones deleted longer ago than a TTL (7 days on a small peer, 30 on the Big
 * Peer), measured from their deletion stamp (meta `d`) on the injected clock:
 * - at most once per day, inside the eviction window (schedule.ts), the last run saved with
 *   the store and checked again inside the reap's transaction (several Big Peer nodes);
 * - as one `Internal` write transaction: every tombstone it removes, the new reap horizon and
 *   the time of the run commit together, or nothing does;
 * - on a small peer that uploads to a Big Peer, only tombstones the Big Peer acknowledged: a
 *   deletion made offline is never reaped before it has reached the Big Peer;
 * - each run logged like an eviction run, and kept as the last run.
 * The reap horizon (resurrection-guard.ts) is what a Big Peer tells returning small peers, so
 * that documents whose tombstones it reaped do not come back to life (docs/replication.md).
 */
import { LOG_EVENTS } from '../../shared/log.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatHlc, parseHlc } from '../crdt/hlc.ts';
import { SyncError } from '../errors.ts';
import type { Logger } from '../log/log-hub.ts';
import { REAP_HORIZON_SETTING, advanceHorizon, readReapHorizon, type ReapHorizon } from '../replication/resurrection-guard.ts';
import type { Store } from '../store/store.ts';
import type { TimerHandle, Timers } from '../time.ts';
import { DAY_MS, DEFAULT_WINDOW, nextInWindow, nextRunAt, parseWindow, tooSoon, type DailyWindow } from './schedule.ts';

/** A small peer keeps a tombstone this many days after its deletion. */
export const SMALL_PEER_TOMBSTONE_TTL_DAYS = 7;
/** The Big Peer keeps a tombstone this many days after its deletion (its `tombstoneTtlDays`). */
export const BIG_PEER_TOMBSTONE_TTL_DAYS = 30;

/** The setting holding when tombstones were last reaped (ms). */
const LAST_RUN_SETTING = 'tombstones/last-run';
/** Timers wait at most this long, then look again (clocks jump; timers cannot wait 25 days). */
const MAX_TIMER_MS = 3_600_000;
/** A scheduled run that failed is tried again this long after (inside the window). */
const RETRY_FAILED_MS = 3_600_000;

export interface TombstoneOptions {
  /** Days a tombstone is kept after its deletion (default 7 on a small peer; the Big Peer's default is 30). */
  readonly ttlDays?: number;
  /** The low-activity window runs happen in, UTC `HH:MM-HH:MM` (default the eviction window, else `02:00-05:00`). */
  readonly window?: string;
  /** Runs on a schedule (default true); false: only when asked (`runNow`). */
  readonly scheduled?: boolean;
}

export interface ReaperHost {
  readonly store: Store;
  readonly timers: Timers;
  readonly logger: Logger;
  /**
   * Reap only tombstones committed at or before this txn_id: on a small peer that uploads to a
   * Big Peer, up to which it holds every change of this store (0 when not known). Undefined: no
   * such bound (the Big Peer itself, a peer that uploads nowhere).
   */
  reapUpTo(): number | undefined;
}

/** Why a run did not reap: stable codes. */
export type ReapRefusalCode =
  /** A run completed less than a day ago (here or on another node of the store); `force` overrides. */
  | 'tombstones/too-soon'
  /** A run is under way. */
  | 'tombstones/busy';

/** One run of the reaper, as logged and kept. */
export interface ReapRun {
  readonly trigger: 'schedule' | 'manual';
  readonly forced: boolean;
  /** When it started (ms). */
  readonly at: number;
  readonly durationMs: number;
  readonly outcome: 'reaped' | 'refused' | 'failed';
  readonly code?: ReapRefusalCode | 'tombstones/failed';
  readonly reason?: string;
  /** Tombstones deleted at or before this time (ISO 8601) were reaped. */
  readonly deletedBefore: string;
  /** Tombstones removed, in all and per collection. */
  readonly reaped: number;
  readonly collections: Readonly<Record<string, number>>;
  /** Only tombstones committed up to this txn_id were considered (what the Big Peer acknowledged); undefined: all. */
  readonly onlyUploadedUpTo?: number;
  /** The reap's txn_id. */
  readonly txnId?: number;
  /** The reap horizon after the run. */
  readonly horizon?: ReapHorizon;
}

/** The reaper's settings and state now. */
export interface ReaperSnapshot {
  readonly ttlDays: number;
  readonly window: string;
  readonly scheduled: boolean;
  readonly lastRunAt: number | undefined;
  readonly lastRun: ReapRun | undefined;
  readonly nextRunAt: number | undefined;
  readonly horizon: ReapHorizon | undefined;
}

function validTtlDays(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new SyncError('tombstones/invalid', `a tombstone TTL is a number of days above 0, not ${JSON.stringify(value)}`);
  }
  return value;
}

/** Thrown inside the reap's transaction when it removed nothing, to undo it. */
class NothingReaped extends Error {}

export class TombstoneReaper {
  readonly #host: ReaperHost;
  readonly #log: Logger;
  #ttlDays = SMALL_PEER_TOMBSTONE_TTL_DAYS;
  #window: DailyWindow = parseWindow(DEFAULT_WINDOW);
  #scheduled = true;
  #lastRunAt: number | undefined;
  #lastRun: ReapRun | undefined;
  #nextRunAt: number | undefined;
  #timer: TimerHandle | undefined;
  #running = false;
  #closed = false;
  /** Waiting for the first tombstone before the schedule starts (see `#arm`). */
  #offCommit: (() => void) | undefined;

  /** `defaults`: the settings the peer starts with, logged at VERBOSE only (`configure` logs at INFO). */
  constructor(host: ReaperHost, defaults: TombstoneOptions = {}) {
    this.#host = host;
    this.#log = host.logger;
    const saved = Number(host.store.internalSettings.get(LAST_RUN_SETTING));
    this.#lastRunAt = Number.isFinite(saved) && saved > 0 ? saved : undefined;
    this.#apply(defaults, 'VERBOSE');
  }

  /** Replaces the TTL and the schedule. Throws `tombstones/invalid` (and changes nothing) for a malformed one. */
  configure(options: TombstoneOptions): void {
    this.#assertOpen();
    this.#apply(options, 'INFO');
  }

  #apply(options: TombstoneOptions, level: 'VERBOSE' | 'INFO'): void {
    const ttlDays = validTtlDays(options.ttlDays ?? SMALL_PEER_TOMBSTONE_TTL_DAYS);
    let window: DailyWindow;
    try {
      window = parseWindow(options.window ?? DEFAULT_WINDOW);
    } catch (error) {
      throw new SyncError('tombstones/invalid', errorMessage(error));
    }
    this.#ttlDays = ttlDays;
    this.#window = window;
    this.#scheduled = options.scheduled ?? true;
    const fields = { ttl_days: ttlDays, window: window.text, scheduled: this.#scheduled, only_uploaded: this.#host.reapUpTo() !== undefined };
    if (level === 'INFO') this.#log.info(LOG_EVENTS.tombstonesConfigured, fields);
    else this.#log.verbose(LOG_EVENTS.tombstonesConfigured, fields);
    this.#nextRunAt = undefined;
    if (this.#timer !== undefined) this.#host.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#scheduled) this.#arm();
  }

  /**
   * Starts the schedule once the store holds a tombstone: a store that never deletes keeps no
   * timer and never runs (nothing would be reaped).
   */
  #arm(): void {
    if (this.#offCommit !== undefined) return;
    if (this.#host.store.collections().some((c) => c.tombstones > 0)) return this.#schedule();
    this.#offCommit = this.#host.store.onCommit((txn) => {
      if (!txn.changes.some((c) => c.kind === 'put' && c.after === null)) return;
      this.#offCommit?.();
      this.#offCommit = undefined;
      if (this.#scheduled && !this.#closed) this.#schedule();
    });
  }

  /** The reaper's settings, its last run, when the next is due (undefined: not scheduled, or no tombstone yet) and the reap horizon. */
  snapshot(): ReaperSnapshot {
    return {
      ttlDays: this.#ttlDays,
      window: this.#window.text,
      scheduled: this.#scheduled,
      lastRunAt: this.#lastRunAt,
      lastRun: this.#lastRun,
      nextRunAt: this.#nextRunAt,
      horizon: readReapHorizon(this.#host.store.internalSettings.get(REAP_HORIZON_SETTING)),
    };
  }

  /**
   * Reaps now. A run less than a day after the last one resolves as `refused`
   * (`tombstones/too-soon`) unless `force`, logged either way.
   */
  async runNow(options: { readonly force?: boolean } = {}): Promise<ReapRun> {
    this.#assertOpen();
    const run = await this.#run('manual', options.force === true);
    if (run.outcome === 'reaped' && this.#scheduled && this.#offCommit === undefined) {
      this.#nextRunAt = undefined;
      this.#schedule();
    }
    return run;
  }

  /** Stops the schedule. Safe to call twice. */
  close(): void {
    this.#closed = true;
    this.#offCommit?.();
    this.#offCommit = undefined;
    if (this.#timer !== undefined) this.#host.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #assertOpen(): void {
    if (this.#closed || this.#host.store.isClosed) throw new SyncError('sync/closed', 'this Sync is closed; tombstones cannot be reaped');
  }

  #schedule(): void {
    if (this.#closed || !this.#scheduled) return;
    if (this.#timer !== undefined) this.#host.timers.clearTimeout(this.#timer);
    const timers = this.#host.timers;
    const now = timers.now();
    const due = this.#nextRunAt !== undefined && this.#nextRunAt > now ? this.#nextRunAt : nextRunAt(this.#window, now, this.#lastRunAt);
    if (this.#nextRunAt !== due) {
      this.#nextRunAt = due;
      this.#log.verbose(LOG_EVENTS.tombstonesScheduled, { next_run: new Date(due).toISOString(), window: this.#window.text, ttl_days: this.#ttlDays });
    }
    this.#timer = timers.setTimeout(
      () => {
        this.#timer = undefined;
        if (this.#closed || this.#host.store.isClosed) return;
        if (timers.now() < due) return this.#schedule(); // woke early (a long wait is cut in hours)
        void this.#run('schedule', false)
          .then((run) => {
            if (run.outcome === 'failed') this.#nextRunAt = nextInWindow(this.#window, run.at + RETRY_FAILED_MS);
            else this.#nextRunAt = undefined; // from the (maybe newer) last run
          })
          .finally(() => this.#schedule());
      },
      Math.min(Math.max(0, due - now), MAX_TIMER_MS),
    );
  }

  async #run(trigger: 'schedule' | 'manual', force: boolean): Promise<ReapRun> {
    const timers = this.#host.timers;
    const at = timers.now();
    const cutMs = at - this.#ttlDays * DAY_MS;
    const upTo = this.#host.reapUpTo();
    const base = {
      trigger,
      forced: false,
      at,
      deletedBefore: new Date(cutMs).toISOString(),
      reaped: 0,
      collections: {},
      ...(upTo === undefined ? {} : { onlyUploadedUpTo: upTo }),
    };
    if (this.#running) return this.#refused({ ...base, durationMs: 0 }, 'tombstones/busy', 'a run is under way');
    this.#running = true;
    try {
      const soon = tooSoon(at, this.#lastRunAt);
      if (soon !== undefined && !force) return this.#refused({ ...base, durationMs: 0 }, 'tombstones/too-soon', soon);
      // Every tombstone deleted in the cut's millisecond or before.
      const cut = formatHlc(Math.max(0, Math.floor(cutMs)), 0xffff);
      // A store without tombstones is not written to: no transaction, no txn_id spent.
      if (!this.#host.store.collections().some((c) => c.tombstones > 0)) return this.#done(base, soon !== undefined, undefined);
      let written;
      try {
        written = await this.#host.store.internalWrites.write('Internal', 'reap tombstones', (w) => {
          // Another node of a shared store may have reaped meanwhile: once a day holds across nodes.
          const saved = Number(w.writer.setting(LAST_RUN_SETTING));
          const elsewhere = Number.isFinite(saved) && saved > 0 && saved !== this.#lastRunAt ? tooSoon(at, saved) : undefined;
          if (elsewhere !== undefined && !force) return { skipped: { saved, reason: elsewhere } } as const;
          const reaped = w.writer.reapTombstones({ deletedUpTo: cut, ...(upTo === undefined ? {} : { uptoTxnId: upTo }) });
          // Nothing old enough: undone, so that a quiet day spends no txn_id.
          if (reaped.length === 0) throw new NothingReaped();
          let horizon = readReapHorizon(w.writer.setting(REAP_HORIZON_SETTING));
          if (reaped.length > 0) {
            horizon = advanceHorizon(horizon, cut, Math.max(...reaped.map((r) => r.txnId)), at);
            w.writer.setSetting(REAP_HORIZON_SETTING, JSON.stringify(horizon));
          }
          w.writer.setSetting(LAST_RUN_SETTING, String(at));
          const collections: Record<string, number> = {};
          for (const r of reaped) collections[r.collection] = (collections[r.collection] ?? 0) + 1;
          return { reaped: reaped.length, collections, horizon } as const;
        });
      } catch (error) {
        if (error instanceof NothingReaped) return this.#done(base, soon !== undefined, undefined);
        return this.#failed({ ...base, forced: soon !== undefined }, error);
      }
      const { result, txnId } = written;
      if ('skipped' in result) {
        const { saved, reason } = result.skipped as { saved: number; reason: string };
        this.#lastRunAt = saved;
        return this.#refused({ ...base, durationMs: timers.now() - at }, 'tombstones/too-soon', reason);
      }
      return this.#done({ ...base, reaped: result.reaped, collections: result.collections }, soon !== undefined, txnId);
    } finally {
      this.#running = false;
    }
  }

  /** A run that completed: kept, and logged (INFO when it reaped, DEBUG when there was nothing to reap). */
  #done(base: Omit<ReapRun, 'outcome' | 'durationMs' | 'forced'>, forced: boolean, txnId: number | undefined): ReapRun {
    const horizon = readReapHorizon(this.#host.store.internalSettings.get(REAP_HORIZON_SETTING));
    this.#lastRunAt = base.at;
    const run: ReapRun = {
      ...base,
      forced,
      durationMs: this.#host.timers.now() - base.at,
      outcome: 'reaped',
      ...(txnId === undefined ? {} : { txnId }),
      ...(horizon === undefined ? {} : { horizon }),
    };
    const fields = {
      trigger: run.trigger,
      ttl_days: this.#ttlDays,
      deleted_before: run.deletedBefore,
      reaped: run.reaped,
      collections:
        Object.keys(run.collections).length === 0
          ? 'none'
          : Object.entries(run.collections)
              .map(([c, n]) => `${c}: ${n}`)
              .join(', '),
      only_uploaded_up_to: run.onlyUploadedUpTo ?? 'all',
      horizon: horizon === undefined ? 'none' : new Date(parseHlc(horizon.before).ms).toISOString(),
      horizon_txn_id: horizon?.upto ?? 0,
      txn_id: txnId ?? 'none',
    };
    if (run.reaped > 0) this.#log.info(LOG_EVENTS.tombstonesReaped, fields);
    else this.#log.debug(LOG_EVENTS.tombstonesReaped, fields);
    this.#lastRun = run;
    return run;
  }

  #refused(run: Omit<ReapRun, 'outcome' | 'code' | 'reason'>, code: ReapRefusalCode, reason: string): ReapRun {
    if (run.trigger === 'manual') this.#log.warn(LOG_EVENTS.tombstonesRefused, { trigger: run.trigger, code, reason });
    else this.#log.info(LOG_EVENTS.tombstonesRefused, { trigger: run.trigger, code, reason });
    return { ...run, outcome: 'refused', code, reason };
  }

  #failed(run: Omit<ReapRun, 'outcome' | 'code' | 'reason' | 'durationMs'>, error: unknown): ReapRun {
    const message = errorMessage(error);
    this.#log.error(LOG_EVENTS.tombstonesFailed, { trigger: run.trigger, error: message });
    return { ...run, durationMs: this.#host.timers.now() - run.at, outcome: 'failed', code: 'tombstones/failed', reason: message };
  }
}
