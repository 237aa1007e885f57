/**
 * The Eviction panel: each collection's eviction strategy and schedule, the runs, a dry run, the
 * chart of local documents, store size and process memory over time with a mark for each
 * eviction and each re-sync, and the evict/re-sync scenario run on demand (spec 1.4-1.6, 3.1,
 * 3.2, 8). Plain JSON shapes: they mirror the peer's own types (src/peer/eviction/types.ts)
 * without importing them, since `shared` imports nothing of the peer.
 */
import type { JsonValue } from '../json.ts';

/** `big-peer`: the Big Peer flags documents by TTL, the peer evicts the flagged ones; `local`: the peer evicts by its own TTL. */
export type EvictionStrategyKind = 'big-peer' | 'local';

/** A strategy as configured (CLI `--evict`, settings.json `eviction.strategies`). */
export interface EvictionStrategyInfo {
  readonly kind: EvictionStrategyKind;
  readonly collection: string;
  /** `local`: the ISO 8601 timestamp field compared with the TTL (default `createdAt`). */
  readonly field?: string;
  /** `local`: how old a document may get here before it is evicted, in hours. */
  readonly ttlHours?: number;
  /** `local`: the EVICT's condition, when given instead of `<field> <= :ttl`. */
  readonly evictWhere?: string;
  /** `local`: the subscription's condition, when given instead of `<field> > :ttl`. */
  readonly subscribeWhere?: string;
  /** False: this strategy runs only when asked, whatever the schedule (the evict-loop scenario's own). */
  readonly scheduled?: boolean;
}

/** Why a run did not evict: stable codes (the peer's `EvictionRefusalCode`). */
export type EvictionRefusalCode = 'eviction/too-soon' | 'eviction/write-blocked' | 'eviction/overlap' | 'eviction/not-configured' | 'eviction/busy';

export type EvictionOutcome = 'evicted' | 'refused' | 'postponed' | 'failed';

/** One run of a strategy (the peer's `EvictionRun`). */
export interface EvictionRunInfo {
  readonly collection: string;
  readonly strategy: EvictionStrategyKind;
  readonly trigger: 'schedule' | 'manual';
  readonly forced: boolean;
  /** When it started (ms, the peer's clock). */
  readonly at: number;
  readonly durationMs: number;
  readonly outcome: EvictionOutcome;
  readonly code?: EvictionRefusalCode | 'eviction/failed';
  readonly reason?: string;
  /** `local`: the TTL cut-off (ISO 8601). */
  readonly ttl?: string;
  readonly evictStatement: string;
  /** Subscriptions cancelled before the EVICT (statements). */
  readonly cancelled: readonly string[];
  /** Subscriptions registered after it (statements). */
  readonly registered: readonly string[];
  readonly evicted: number;
  readonly bytesFreed: number;
  readonly storeBytesBefore: number;
  readonly storeBytesAfter: number;
  /** `big-peer`: flagged documents kept because the Big Peer has not acknowledged their latest change. */
  readonly kept: number;
  readonly txnId?: number;
}

/** An application subscription that overlaps what a strategy evicts (the peer's `OverlappingSubscription`). */
export interface EvictionOverlappingSubscription {
  readonly subscriptionId: number;
  readonly statement: string;
  /** Documents the next run would evict that it selects now (they would come back). */
  readonly comeBack: number;
  /** The fix: the same subscription narrowed to select none of them (`eviction:narrow-subscription` puts it in its place). */
  readonly narrowed: string;
}

/**
 * A strategy whose subscription overlaps what it evicts: every run is refused (`eviction/overlap`)
 * until it is fixed. From the dry run's own reasoning (the peer's eviction plan).
 */
export interface EvictionOverlapInfo {
  readonly collection: string;
  readonly strategy: EvictionStrategyKind;
  /** The refusal a run meets, in the peer's words. */
  readonly message: string;
  /** Big Peer strategy: the application subscriptions behind it, each with its fix (one click: narrow it). */
  readonly subscriptions: readonly EvictionOverlappingSubscription[];
  /** Local strategy whose own EVICT and subscription conditions overlap: the `subscribeWhere` that would not (set in the configuration). */
  readonly suggestedSubscribeWhere?: string;
}

/** A collection's strategy and schedule now. */
export interface EvictionCollectionInfo {
  readonly strategy: EvictionStrategyInfo;
  /** The subscription the strategy keeps registered (statement), if any now. */
  readonly subscription: string | undefined;
  /** When the last run that evicted happened (ms), also from before a restart. */
  readonly lastRunAt: number | undefined;
  /** That run in full, once one happened in this process. */
  readonly lastRun: EvictionRunInfo | undefined;
  /** When the next scheduled run is due (ms), if scheduled. */
  readonly nextRunAt: number | undefined;
  /** Its subscription overlaps what it evicts (runs are refused): why, and the fix. */
  readonly overlap?: EvictionOverlapInfo;
}

/** One point of the chart, taken every `sampleEveryMs`. */
export interface EvictionSample {
  /** When (ms, the peer's clock). */
  readonly at: number;
  /** Live documents in the application's collections (the internal ones, such as `__presence`, left out). */
  readonly documents: number;
  /** The store's size on disk (SQLite file, WAL and shared memory); 0 in memory: `databaseBytes + walBytes`. */
  readonly storeBytes: number;
  /** Of it, the database file. */
  readonly databaseBytes: number;
  /** Of it, the write-ahead log and its index (SQLite's `-wal` and `-shm`): a checkpoint empties it into the file, which frees no data. */
  readonly walBytes: number;
  /** The process's resident set size. */
  readonly rssBytes: number;
  /** The JavaScript heap in use. */
  readonly heapUsedBytes: number;
}

/** An eviction on the chart: an EVICT committed (by a strategy, a statement, the scenario), or a run that evicted nothing. */
export interface EvictionRunMark {
  readonly kind: 'eviction';
  readonly at: number;
  readonly collection: string;
  readonly evicted: number;
  /** `strategy`: a run of the collection's strategy; `statement`: an EVICT run otherwise (the console, code, the scenario). */
  readonly source: 'strategy' | 'statement';
  /** A strategy's run: how it ended; a statement: always `evicted`. */
  readonly outcome: EvictionOutcome;
  readonly forced: boolean;
  readonly code?: string;
  readonly txnId?: number;
}

/** A re-sync on the chart: documents evicted here came back by replication (the loop). */
export interface EvictionResyncMark {
  readonly kind: 'resync';
  readonly at: number;
  readonly collection: string;
  readonly count: number;
  /** When the earliest of them had been evicted (ms). */
  readonly evictedAt: number;
  /** The collection's subscriptions then: what brought them back. */
  readonly subscriptions: readonly string[];
}

export type EvictionMark = EvictionRunMark | EvictionResyncMark;

export type EvictionScenarioWay = 'wrong' | 'right';

/** One cycle of the evict/re-sync scenario. */
export interface EvictionScenarioCycle {
  /** `wrong`: EVICT with the overlapping subscription left in place; `right`: spec 3.2 (cancel, EVICT, register the complement). */
  readonly way: EvictionScenarioWay;
  /** 1-based. */
  readonly cycle: number;
  readonly evicted: number;
  /** Documents replication brought back after the EVICT. */
  readonly resynced: number;
  readonly storeBytes: number;
  readonly memoryBytes: number;
  readonly bytesReceived: number;
  readonly durationMs: number;
}

/** Totals of one way of the scenario. */
export interface EvictionScenarioTotals {
  readonly evicted: number;
  readonly resynced: number;
  readonly bytesReceived: number;
}

/** The scenario's answer (the peer's `EvictLoopReport`). */
export interface EvictionScenarioReport {
  /** The collection it wrote and evicted (its own: `evict_loop_demo`). */
  readonly collection: string;
  readonly docs: number;
  /** The wrong cycles, then the right ones. */
  readonly cycles: readonly EvictionScenarioCycle[];
  readonly wrong: EvictionScenarioTotals;
  readonly right: EvictionScenarioTotals;
  /** The wrong way re-synced documents: the loop was reproduced. */
  readonly loopDetected: boolean;
  /** The right way re-synced none. */
  readonly rightWayClean: boolean;
  /** One line starting `verdict: `. */
  readonly verdict: string;
  /** How to evict without the loop (spec 3.2), in a few sentences. */
  readonly fix: string;
}

/** A scenario under way on this peer (at most one at a time). */
export interface EvictionScenarioRunning {
  readonly id: number;
  readonly docs: number;
  readonly cycles: number;
  readonly startedAt: number;
  /** The cycles so far. */
  readonly rows: readonly EvictionScenarioCycle[];
}

/** `eviction:get`: everything the panel shows. */
export interface EvictionState {
  /** Strategies are configured (else the panel explains how). */
  readonly configured: boolean;
  /** The low-activity window, UTC `HH:MM-HH:MM`. */
  readonly window: string;
  readonly scheduled: boolean;
  readonly quietAfterBlockedMs: number;
  readonly collections: readonly EvictionCollectionInfo[];
  /** Recent runs, oldest first. */
  readonly runs: readonly EvictionRunInfo[];
  /** The chart so far, oldest first (at most `sampleCapacity`). */
  readonly samples: readonly EvictionSample[];
  /** Evictions and re-syncs within the samples' time, oldest first. */
  readonly marks: readonly EvictionMark[];
  readonly sampleEveryMs: number;
  readonly sampleCapacity: number;
  readonly scenario: EvictionScenarioRunning | undefined;
  /** The peer's clock when this was taken (ms). */
  readonly now: number;
}

/** What the next run of a collection would do now, without doing it (the peer's `EvictionDryRun`). */
export interface EvictionDryRunInfo {
  readonly collection: string;
  readonly strategy: EvictionStrategyKind;
  readonly ttl?: string;
  readonly evictStatement: string;
  /** The subscription in place after the run. */
  readonly subscribeStatement: string;
  /** Documents the run would evict: how many, and the first ids. */
  readonly evict: { readonly count: number; readonly ids: readonly JsonValue[] };
  /** `big-peer`: flagged, but kept as the Big Peer has not acknowledged their latest change. */
  readonly kept: { readonly count: number; readonly ids: readonly JsonValue[] };
  /** Subscriptions the run would cancel first. */
  readonly cancel: readonly string[];
  /** Subscriptions still active after the run that match evicted documents: those would come back. */
  readonly comeBack: readonly { readonly subscriptionId: number; readonly statement: string; readonly comeBack: number }[];
  /** Big Peer strategy: the application subscriptions that make it refuse (`eviction/overlap`), each with its fix. */
  readonly overlapping: readonly EvictionOverlappingSubscription[];
  /** Local strategy whose own conditions overlap: a `subscribeWhere` that would not. */
  readonly suggestedSubscribeWhere?: string;
  /** The run would be refused now: why. */
  readonly refusal?: { readonly code: EvictionRefusalCode; readonly message: string };
}

export interface EvictionDryRunInput {
  readonly collection: string;
}

export interface EvictionRunInput {
  readonly collection: string;
  /** Run despite the once-a-day rule and a recent blocked write (logged as WARN). */
  readonly force?: boolean;
}

export interface EvictionNarrowInput {
  readonly collection: string;
  /** One of the strategy's `overlap.subscriptions`. */
  readonly subscriptionId: number;
}

export interface EvictionFixStrategyInput {
  /** The collection whose local strategy's own conditions overlap. */
  readonly collection: string;
}

/**
 * `eviction:fix-strategy`'s answer: the local strategy's `subscribeWhere` before and after, as
 * the running peer now has it. It lasts until the peer restarts: the configuration it came from
 * (settings.json, code) is not changed.
 */
export interface EvictionFixStrategyResult {
  readonly collection: string;
  readonly before: string | undefined;
  readonly after: string;
}

/** `eviction:narrow-subscription`'s answer: the overlapping subscription cancelled, its narrowed form registered in its place. */
export interface EvictionNarrowResult {
  readonly cancelled: { readonly id: number; readonly statement: string };
  readonly registered: { readonly id: number; readonly statement: string };
}

export interface EvictionScenarioInput {
  /** Documents per cycle, 1 to MAX_SCENARIO_DOCS. */
  readonly docs: number;
  /** Cycles each way, 1 to MAX_SCENARIO_CYCLES. */
  readonly cycles: number;
}

export const MAX_SCENARIO_DOCS = 100_000;
export const MAX_SCENARIO_CYCLES = 20;

/** `eviction:scenario-cycle`: a row of the scenario under way. */
export interface EvictionScenarioCycleEvent {
  readonly id: number;
  readonly row: EvictionScenarioCycle;
}

/** `eviction:scenario`'s answer: the report, and the id its `eviction:scenario-cycle` rows carried. */
export interface EvictionScenarioResult extends EvictionScenarioReport {
  readonly id: number;
}

/**
 * A mark's identity: an eviction by its txn when it has one (a strategy's run then replaces the
 * mark its EVICT's commit made), a re-sync or a run without a txn by its time and collection.
 */
export function markKey(mark: EvictionMark): string {
  if (mark.kind === 'resync') return `resync:${mark.at}:${mark.collection}`;
  return mark.txnId === undefined ? `run:${mark.at}:${mark.collection}` : `txn:${mark.txnId}:${mark.collection}`;
}
