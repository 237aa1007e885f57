/**
 * The Transactions panel's data rules: commits and blocked waits merged from the snapshot and
 * the events (which race each other), in order, without duplicates, the last 1,000 of each;
 * and the words for a wait. Pure.
 */
import type { BlockedWaitEntry, TransactionEntry } from '../../../../shared/inspector/transactions.ts';
import type { Originator } from '../../../../shared/transactions.ts';
import { formatDuration, formatElapsed } from '../../ui/format.ts';

/** The most commits, and the most waits, the panel keeps (the peer keeps as many). */
export const TIMELINE_CAPACITY = 1_000;

export interface Bounded<T> {
  readonly items: readonly T[];
  /** Entries pushed out to stay within the capacity, since the panel started. */
  readonly dropped: number;
}

/**
 * Adds `incoming` to `current` (both oldest first), keyed by `key` and ordered by `order`, keeping
 * the last `capacity`. The common case (events arriving in order) appends without sorting.
 */
export function mergeBounded<T>(
  current: Bounded<T>,
  incoming: readonly T[],
  key: (item: T) => string | number,
  order: (item: T) => number,
  capacity = TIMELINE_CAPACITY,
): Bounded<T> {
  if (incoming.length === 0) return current;
  const seen = new Set(current.items.map(key));
  const added = incoming.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  if (added.length === 0) return current;
  let items = [...current.items, ...added];
  const last = current.items.at(-1);
  const inOrder = (last === undefined || order(added[0] as T) >= order(last)) && added.every((item, i) => i === 0 || order(item) >= order(added[i - 1] as T));
  if (!inOrder) items.sort((a, b) => order(a) - order(b));
  const excess = items.length - capacity;
  if (excess > 0) items = items.slice(excess);
  return { items, dropped: current.dropped + Math.max(0, excess) };
}

export const commitKey = (entry: TransactionEntry): number => entry.txnId;
export const commitOrder = (entry: TransactionEntry): number => entry.txnId;

/** Waits carry no id: a wait is who waited, behind which commit, until when, for how long. */
export const waitKey = (entry: BlockedWaitEntry): string => `${entry.endedAt}|${entry.blockingTxnId}|${entry.originator}|${entry.waitedMs}|${entry.hint ?? ''}`;
export const waitOrder = (entry: BlockedWaitEntry): number => entry.endedAt;

/** `User` or `User "save order"`. */
export function writerName(originator: Originator, hint: string | undefined): string {
  return hint === undefined || hint === '' ? originator : `${originator} "${hint}"`;
}

/** `User "save" waited 12.3 s behind txn #45 (Replication)`. */
export function describeWait(entry: Pick<BlockedWaitEntry, 'originator' | 'hint' | 'waitedMs' | 'blockingTxnId' | 'blockedBy'>): string {
  return `${writerName(entry.originator, entry.hint)} waited ${formatDuration(entry.waitedMs)} behind txn #${entry.blockingTxnId} (${entry.blockedBy})`;
}

/** `User "save" waiting 8.2 s behind txn #46 (User)`, or `… for the slot` between two holders. */
export function describeWaiting(
  writer: { readonly originator: Originator; readonly hint: string | undefined; readonly waitingMs: number },
  holder: { readonly txnId: number; readonly originator: Originator } | undefined,
): string {
  const behind = holder === undefined ? 'for the slot' : `behind txn #${holder.txnId} (${holder.originator})`;
  return `${writerName(writer.originator, writer.hint)} waiting ${formatDuration(writer.waitingMs)} ${behind}`;
}

export interface TimelineSummary {
  readonly commits: number;
  readonly byOriginator: Readonly<Record<Originator, number>>;
  readonly longest: TransactionEntry | undefined;
  readonly waits: number;
  readonly longestWait: BlockedWaitEntry | undefined;
  /** Waits that were logged at WARN or ERROR. */
  readonly loudWaits: number;
}

/** Counts over the commits and waits that ended at or after `since`. */
export function summarize(commits: readonly TransactionEntry[], waits: readonly BlockedWaitEntry[], since: number): TimelineSummary {
  const byOriginator: Record<Originator, number> = { User: 0, Internal: 0, Replication: 0 };
  let count = 0;
  let longest: TransactionEntry | undefined;
  for (const c of commits) {
    if (c.startedAt + c.durationMs < since) continue;
    count++;
    byOriginator[c.originator]++;
    if (longest === undefined || c.durationMs > longest.durationMs) longest = c;
  }
  let waitCount = 0;
  let longestWait: BlockedWaitEntry | undefined;
  let loudWaits = 0;
  for (const w of waits) {
    if (w.endedAt < since) continue;
    waitCount++;
    if (w.logLevel === 'WARN' || w.logLevel === 'ERROR') loudWaits++;
    if (longestWait === undefined || w.waitedMs > longestWait.waitedMs) longestWait = w;
  }
  return { commits: count, byOriginator, longest, waits: waitCount, longestWait, loudWaits };
}

/** `22:19:12.365`: the UTC time of day, as the peer's log lines write it. */
export function clockTime(ms: number, withMillis = true): string {
  const iso = new Date(ms).toISOString();
  return withMillis ? iso.slice(11, 23) : iso.slice(11, 19);
}

/**
 * A commit's duration. The peer measures in whole milliseconds, so a commit faster than that
 * reads `<1 ms` rather than a precise-looking `0.0 ms`.
 */
export function durationText(ms: number): string {
  if (ms < 1) return '<1 ms';
  if (ms < 10 && Number.isInteger(ms)) return `${ms} ms`;
  return formatElapsed(ms);
}
