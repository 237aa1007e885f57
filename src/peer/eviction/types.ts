/**
 * The contract of the eviction strategies (spec 1.5, 1.6, 3.1, 3.2, 8): what a peer is told to
 * evict and when, and what each run did. `sync.eviction` (an `EvictionManager`) implements it;
 * the inspector's Eviction panel, the CLI and the scenario read it.
 */
import type { JsonValue } from '../../shared/json.ts';
import type { EvictionOverlap } from '../store/eviction-watch.ts';

/**
 * Big Peer management (recommended): the Big Peer's TTL job flags documents
 * (`evictionFlag = true`); this peer subscribes to `evictionFlag == false` for the collection and
 * runs `EVICT FROM <collection> WHERE evictionFlag = true`, never evicting a document whose
 * latest local change the Big Peer has not acknowledged.
 */
export interface BigPeerStrategyConfig {
  readonly kind: 'big-peer';
  readonly collection: string;
  /** False: this strategy runs only when asked (`runNow`), whatever the schedule of the others (default true). */
  readonly scheduled?: boolean;
}

/**
 * Small peer local management: the spec 3.2 cycle by this peer's own TTL. Evicts
 * `<field> <= :ttl` and subscribes to `<field> > :ttl`, with `ttl` = now − ttlHours (ISO 8601);
 * or the conditions given (each a DQL WHERE condition using `:ttl`), which must not overlap.
 */
export interface LocalStrategyConfig {
  readonly kind: 'local';
  readonly collection: string;
  /** The ISO 8601 timestamp field compared with the TTL (default `createdAt`). */
  readonly field?: string;
  /** How old a document may get here before it is evicted, in hours (the spec's example: 72). */
  readonly ttlHours: number;
  /** The EVICT's condition instead of `<field> <= :ttl`. */
  readonly evictWhere?: string;
  /** The complementary subscription's condition instead of `<field> > :ttl`. */
  readonly subscribeWhere?: string;
  /** False: this strategy runs only when asked (`runNow`), whatever the schedule of the others (default true). */
  readonly scheduled?: boolean;
}

export type EvictionStrategyConfig = BigPeerStrategyConfig | LocalStrategyConfig;
export type EvictionStrategyKind = EvictionStrategyConfig['kind'];

export interface EvictionOptions {
  /** One strategy per collection. */
  readonly strategies: readonly EvictionStrategyConfig[];
  /** The low-activity window scheduled runs happen in, UTC `HH:MM-HH:MM` (may wrap midnight). Default `02:00-05:00`. */
  readonly window?: string;
  /** A scheduled or unforced run waits this long after a write transaction was blocked (default 15 min). */
  readonly quietAfterBlockedMs?: number;
  /** Runs on a schedule (default true); false: only when asked (`runNow`). */
  readonly scheduled?: boolean;
}

/** Why a run did not evict: stable codes. */
export type EvictionRefusalCode =
  /** A run of this collection completed less than a day ago (spec 8); `force` overrides. */
  | 'eviction/too-soon'
  /** A write transaction was blocked recently, or is blocked now; `force` overrides. */
  | 'eviction/write-blocked'
  /** The EVICT and the subscription that would follow it overlap; never overridden. */
  | 'eviction/overlap'
  /** No strategy is configured for the collection. */
  | 'eviction/not-configured'
  /** The store is closed, or a run of the collection is under way. */
  | 'eviction/busy';

export type EvictionOutcome = 'evicted' | 'refused' | 'postponed' | 'failed';

/** One run of a strategy, as logged and kept in the history. */
export interface EvictionRun {
  readonly collection: string;
  readonly strategy: EvictionStrategyKind;
  readonly trigger: 'schedule' | 'manual';
  /** Run despite the once-a-day rule or a recent blocked write (logged as WARN). */
  readonly forced: boolean;
  /** When it started (ms). */
  readonly at: number;
  readonly durationMs: number;
  readonly outcome: EvictionOutcome;
  /** Refused, postponed or failed: why, with a stable code. */
  readonly code?: EvictionRefusalCode | 'eviction/failed';
  readonly reason?: string;
  /** The local strategy's TTL cut-off (ISO 8601). */
  readonly ttl?: string;
  /** The EVICT it ran (or would have). */
  readonly evictStatement: string;
  /** Subscriptions it cancelled first (statements). */
  readonly cancelled: readonly string[];
  /** Subscriptions it registered after (statements). */
  readonly registered: readonly string[];
  /** Documents evicted. */
  readonly evicted: number;
  /** Bytes of the evicted documents as stored (values and merge metadata). */
  readonly bytesFreed: number;
  /** The store's size on disk before and after the run (SQLite: file and WAL). */
  readonly storeBytesBefore: number;
  readonly storeBytesAfter: number;
  /** Big Peer strategy: flagged documents kept because the Big Peer has not acknowledged their latest change. */
  readonly kept: number;
  /** The EVICT's txn_id. */
  readonly txnId?: number;
}

/**
 * An application subscription that overlaps what a strategy evicts, so that its runs are refused
 * (`eviction/overlap`): the Big Peer strategy's flagged documents would come back through it.
 */
export interface OverlappingSubscription {
  readonly subscriptionId: number;
  readonly statement: string;
  /** Documents the run would evict that it selects now (0: its condition overlaps, no stored document yet). */
  readonly comeBack: number;
  /** The same subscription narrowed so that it selects none of them (no arguments: the query's own condition is kept as it is). */
  readonly narrowed: string;
}

/** What the next run of a collection would do now, without doing it. */
export interface EvictionDryRun {
  readonly collection: string;
  readonly strategy: EvictionStrategyKind;
  readonly ttl?: string;
  readonly evictStatement: string;
  /** The subscription in place after the run. */
  readonly subscribeStatement: string;
  /** Documents the run would evict: how many, and the first ids (at most DRY_RUN_IDS). */
  readonly evict: { readonly count: number; readonly ids: readonly JsonValue[] };
  /** Big Peer strategy: flagged but not evicted, as the Big Peer has not acknowledged their latest change. */
  readonly kept: { readonly count: number; readonly ids: readonly JsonValue[] };
  /** Subscriptions the run would cancel first. */
  readonly cancel: readonly string[];
  /** Subscriptions still active after the run that match evicted documents: those documents would come back. */
  readonly comeBack: readonly EvictionOverlap[];
  /** Big Peer strategy: the application subscriptions that make it refuse (`eviction/overlap`), each with its fix. */
  readonly overlapping: readonly OverlappingSubscription[];
  /** Local strategy whose own conditions overlap: a `subscribeWhere` that would not (the opposite of its EVICT's). */
  readonly suggestedSubscribeWhere?: string;
  /** The run would be refused now: why. */
  readonly refusal?: { readonly code: EvictionRefusalCode; readonly message: string };
}

/**
 * A strategy that would be refused for an overlap now (`EvictionManager.overlap`): the dry run's
 * refusal and fix, worked out without reading documents where the conditions decide it.
 */
export interface EvictionOverlapCheck {
  readonly collection: string;
  readonly strategy: EvictionStrategyKind;
  /** The `eviction/overlap` refusal's message. */
  readonly message: string;
  /** Big Peer strategy: the subscriptions behind it, each with its fix (`comeBack` 0 when the conditions decided it). */
  readonly overlapping: readonly OverlappingSubscription[];
  /** Local strategy whose own conditions overlap: a `subscribeWhere` that would not. */
  readonly suggestedSubscribeWhere?: string;
}

/** Ids listed in a dry run, at most. */
export const DRY_RUN_IDS = 100;

/** A collection's strategy and schedule now. */
export interface EvictionStatus {
  readonly config: EvictionStrategyConfig;
  /** The subscription the strategy keeps registered (statement), if any now. */
  readonly subscription: string | undefined;
  /** The last run that evicted (persisted across restarts: its time only, then the whole run once one happened in this process). */
  readonly lastRunAt: number | undefined;
  readonly lastRun: EvictionRun | undefined;
  /** When the next scheduled run is due (ms), if scheduled. */
  readonly nextRunAt: number | undefined;
}

export interface EvictionSnapshot {
  readonly window: string;
  readonly scheduled: boolean;
  readonly quietAfterBlockedMs: number;
  readonly collections: readonly EvictionStatus[];
  /** Recent runs, oldest first (at most RUNS_KEPT). */
  readonly runs: readonly EvictionRun[];
}

/** Runs kept in the history. */
export const RUNS_KEPT = 100;

export interface RunOptions {
  /** Run despite the once-a-day rule and a recent blocked write; the override is logged. */
  readonly force?: boolean;
}
