/**
 * The Eviction panel's pure logic: merging chart points and marks as they arrive, and the words
 * for strategies, runs, refusals and the scenario.
 */
import type {
  EvictionDryRunInfo,
  EvictionMark,
  EvictionOutcome,
  EvictionRefusalCode,
  EvictionRunInfo,
  EvictionSample,
  EvictionScenarioCycle,
  EvictionStrategyInfo,
} from '../../../../shared/inspector/eviction.ts';
import { markKey } from '../../../../shared/inspector/eviction.ts';
import type { Tone } from '../../ui/Badge.tsx';
import { formatBytes, formatCount, plural } from '../../ui/format.ts';

/** Points the panel keeps, as the peer does: 15 minutes at one a second. */
export const SAMPLE_CAPACITY = 900;
/** Marks the panel keeps. */
export const MARK_CAPACITY = 1000;

/**
 * `existing` with `incoming` added, oldest first, one point per time, the newest `capacity`.
 * Returns `existing` itself when nothing changes (no re-render).
 */
export function mergeSamples(existing: readonly EvictionSample[], incoming: readonly EvictionSample[], capacity = SAMPLE_CAPACITY): readonly EvictionSample[] {
  if (incoming.length === 0) return existing;
  const last = existing.at(-1);
  let merged: EvictionSample[];
  // The common case: a point newer than every other.
  if (last !== undefined && incoming.every((s, i) => s.at > (i === 0 ? last.at : (incoming[i - 1] as EvictionSample).at))) {
    merged = [...existing, ...incoming];
  } else {
    const byAt = new Map<number, EvictionSample>();
    for (const s of existing) byAt.set(s.at, s);
    for (const s of incoming) byAt.set(s.at, s);
    merged = [...byAt.values()].sort((a, b) => a.at - b.at);
  }
  return merged.length > capacity ? merged.slice(merged.length - capacity) : merged;
}

/** `existing` with `incoming` added or replacing marks of the same key (`markKey`), oldest first, the newest `capacity`. */
export function mergeMarks(existing: readonly EvictionMark[], incoming: readonly EvictionMark[], capacity = MARK_CAPACITY): readonly EvictionMark[] {
  if (incoming.length === 0) return existing;
  const byKey = new Map<string, EvictionMark>();
  for (const m of existing) byKey.set(markKey(m), m);
  for (const m of incoming) byKey.set(markKey(m), m);
  const merged = [...byKey.values()].sort((a, b) => a.at - b.at);
  return merged.length > capacity ? merged.slice(merged.length - capacity) : merged;
}

export const STRATEGY_NAMES = { 'big-peer': 'Big Peer TTL', local: 'Local TTL' } as const;

/** What a strategy evicts, in one line: `createdAt older than 72 h` or `flagged by the Big Peer (evictionFlag = true)`. */
export function strategyRule(strategy: EvictionStrategyInfo): string {
  if (strategy.kind === 'big-peer') return 'flagged by the Big Peer’s TTL job (evictionFlag = true)';
  if (strategy.evictWhere !== undefined) return `WHERE ${strategy.evictWhere}`;
  return `${strategy.field ?? 'createdAt'} older than ${formatHours(strategy.ttlHours ?? 0)}`;
}

/**
 * A local strategy as settings.json's `eviction.strategies` entry, with the `subscribeWhere` that
 * fixes an overlap of its own conditions: what the overlap flag's Copy puts on the clipboard.
 */
export function fixedStrategySetting(strategy: EvictionStrategyInfo, subscribeWhere: string): string {
  const { kind, collection, field, ttlHours, evictWhere } = strategy;
  return JSON.stringify({
    kind,
    collection,
    ...(field === undefined ? {} : { field }),
    ...(ttlHours === undefined ? {} : { ttlHours }),
    ...(evictWhere === undefined ? {} : { evictWhere }),
    subscribeWhere,
  });
}

/** `72 h`, `1.5 h`, `30 min`, `3 d` for whole days past two days. */
export function formatHours(hours: number): string {
  if (hours < 1) return `${Math.round(hours * 60)} min`;
  if (hours >= 48 && hours % 24 === 0) return `${hours / 24} d (${hours} h)`;
  return `${Number.isInteger(hours) ? hours : hours.toFixed(1)} h`;
}

/** The quiet time after a blocked write: `15 min`, `90 s`, `1 h`. */
export function formatQuiet(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

export const OUTCOME_TONES: Readonly<Record<EvictionOutcome, Tone>> = { evicted: 'ok', refused: 'warn', postponed: 'info', failed: 'danger' };

/** What a run did, in one line: `evicted 120 · 45 KB freed · cancelled 1 · re-registered 1`. */
export function runSummary(run: EvictionRunInfo): string {
  if (run.outcome !== 'evicted') return run.reason ?? run.code ?? run.outcome;
  const parts = [`evicted ${formatCount(run.evicted)}`, `${formatBytes(run.bytesFreed)} freed`];
  if (run.kept > 0) parts.push(`${formatCount(run.kept)} kept (not yet at the Big Peer)`);
  parts.push(`cancelled ${formatCount(run.cancelled.length)}`, `re-registered ${formatCount(run.registered.length)}`);
  return parts.join(' · ');
}

/** What a refusal code means, and what to do about it. */
export const REFUSALS: Readonly<Record<EvictionRefusalCode | 'eviction/failed', { readonly title: string; readonly hint: string }>> = {
  'eviction/too-soon': {
    title: 'Evicted less than a day ago',
    hint: 'Eviction runs at most once a day (spec section 8). Force runs it anyway; the override is logged as WARN.',
  },
  'eviction/write-blocked': {
    title: 'A write was blocked recently',
    hint: 'Eviction waits for a quiet store. Force runs it anyway; the override is logged as WARN.',
  },
  'eviction/overlap': {
    title: 'The EVICT and the subscription after it overlap',
    hint: 'The evicted documents would come straight back. Fix the strategy’s conditions; Force does not override this.',
  },
  'eviction/not-configured': {
    title: 'No strategy for this collection',
    hint: 'Configure one with --evict or settings.json (see below).',
  },
  'eviction/busy': {
    title: 'A run of this collection is under way',
    hint: 'Wait for it to end, then try again.',
  },
  'eviction/failed': {
    title: 'The run failed',
    hint: 'What it cancelled was registered again and nothing was evicted; the reason says why.',
  },
};

/** Whether Force would make a difference to this refusal. */
export function forceOverrides(code: string | undefined): boolean {
  return code === 'eviction/too-soon' || code === 'eviction/write-blocked';
}

/** Whether the run asked for (Run now, or Force) would be refused, as the dry run predicts: Force overrides too-soon and a blocked write, never an overlap. */
export function predictsRefusal(dry: Pick<EvictionDryRunInfo, 'refusal'> | undefined, force: boolean): boolean {
  return dry?.refusal !== undefined && !(force && forceOverrides(dry.refusal.code));
}

/** The peer's clock now, from a snapshot's `now` moved on by the time since it arrived. */
export function peerNow(snapshotNow: number, receivedAt: number, viewerNow: number): number {
  return snapshotNow + Math.max(0, viewerNow - receivedAt);
}

/** A mark in words, for its tooltip. */
export function describeMark(mark: EvictionMark): string {
  const time = clock(mark.at);
  if (mark.kind === 'resync') {
    const after = Math.max(0, Math.round((mark.at - mark.evictedAt) / 100) / 10);
    const through = mark.subscriptions.length === 0 ? '' : ` through ${mark.subscriptions.join(' | ')}`;
    return `${time} · re-sync: ${plural(mark.count, 'evicted document')} of ${mark.collection} came back ${after} s after the eviction${through}`;
  }
  const who = mark.source === 'strategy' ? `${mark.forced ? 'forced ' : ''}strategy run` : 'EVICT';
  if (mark.outcome !== 'evicted') return `${time} · ${who} of ${mark.collection} ${mark.outcome}${mark.code === undefined ? '' : ` (${mark.code})`}`;
  return `${time} · ${who}: ${plural(mark.evicted, 'document')} of ${mark.collection} evicted${mark.txnId === undefined ? '' : ` (txn #${mark.txnId})`}`;
}

/** `12:04:31` (UTC, as the peer logs). */
export function clock(at: number, seconds = true): string {
  const text = new Date(at).toISOString().slice(11, seconds ? 19 : 16);
  return text;
}

/** Totals of the rows of one way, for the scenario's table footer. */
export function scenarioTotals(
  rows: readonly EvictionScenarioCycle[],
  way: 'wrong' | 'right',
): { readonly evicted: number; readonly resynced: number; readonly bytesReceived: number } {
  return rows
    .filter((r) => r.way === way)
    .reduce((t, r) => ({ evicted: t.evicted + r.evicted, resynced: t.resynced + r.resynced, bytesReceived: t.bytesReceived + r.bytesReceived }), {
      evicted: 0,
      resynced: 0,
      bytesReceived: 0,
    });
}

/** The verdict without its `verdict: ` prefix, with its first letter up. */
export function verdictText(verdict: string): string {
  const text = verdict.replace(/^verdict:\s*/i, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
