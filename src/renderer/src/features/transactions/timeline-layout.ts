/**
 * Where the Transactions timeline draws things: a window of time ending at `now`, one lane per
 * originator for commits (the slot admits one writer at a time, so commits never overlap), and
 * one lane for blocked waits, packed into rows because waits do overlap (several writers queue
 * behind the same holder). Positions are fractions of the window (0 = its start, 1 = now), so
 * that the view scales with its width without measuring it. Pure: the tests pin it down.
 */
import type { LogLevel } from '../../../../shared/log.ts';
import type { Originator } from '../../../../shared/transactions.ts';
import type { BlockedWaitEntry, TransactionEntry, WriteSlotState } from '../../../../shared/inspector/transactions.ts';

export interface Span {
  /** Fraction of the window where it starts (clipped to 0). */
  readonly left: number;
  /** Fraction of the window it covers (clipped at the window's ends). */
  readonly width: number;
  /** It began before the window (drawn with an open left end). */
  readonly clippedStart: boolean;
}

export interface CommitBar extends Span {
  readonly kind: 'commit';
  readonly entry: TransactionEntry;
}

/** The transaction holding the slot now: from when it got it to now. */
export interface HolderBar extends Span {
  readonly kind: 'holder';
  readonly txnId: number;
  readonly originator: Originator;
  readonly hint: string | undefined;
  readonly heldMs: number;
}

export interface WaitBar extends Span {
  readonly kind: 'wait';
  readonly entry: BlockedWaitEntry;
  readonly row: number;
}

/** A writer waiting now: from when it asked to now. */
export interface WaitingBar extends Span {
  readonly kind: 'waiting';
  readonly originator: Originator;
  readonly hint: string | undefined;
  readonly waitingMs: number;
  readonly logLevel: LogLevel;
  /** The holder it waits behind. */
  readonly behindTxnId: number | undefined;
  readonly behind: Originator | undefined;
  readonly row: number;
}

export interface Tick {
  readonly at: number;
  readonly position: number;
}

export interface TimelineLayout {
  readonly start: number;
  readonly end: number;
  readonly commits: Readonly<Record<Originator, readonly (CommitBar | HolderBar)[]>>;
  readonly waits: readonly (WaitBar | WaitingBar)[];
  /** Rows the waits lane needs (at least 1). */
  readonly waitRows: number;
  readonly ticks: readonly Tick[];
}

/** Most rows the waits lane grows to; more waits at once share the last row. */
export const MAX_WAIT_ROWS = 4;

const TICK_STEPS_MS = [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000];

/** A tick step giving at most `maxTicks` ticks over `windowMs`, on round values. */
export function tickStep(windowMs: number, maxTicks = 8): number {
  for (const step of TICK_STEPS_MS) if (windowMs / step <= maxTicks) return step;
  return TICK_STEPS_MS[TICK_STEPS_MS.length - 1] as number;
}

/** Ticks on multiples of the step (so they slide with time instead of jumping). */
export function ticks(start: number, end: number, maxTicks = 8): Tick[] {
  const step = tickStep(end - start, maxTicks);
  const found: Tick[] = [];
  for (let at = Math.ceil(start / step) * step; at <= end; at += step) found.push({ at, position: (at - start) / (end - start) });
  return found;
}

/** The part of [from, to] inside the window, as fractions; undefined when none of it is. */
export function span(from: number, to: number, start: number, end: number): Span | undefined {
  const length = end - start;
  if (length <= 0 || to < start || from > end) return undefined;
  const a = Math.max(from, start);
  const b = Math.min(Math.max(to, from), end);
  return { left: (a - start) / length, width: (b - a) / length, clippedStart: from < start };
}

/** Greedy interval packing: each span goes to the first row free at its start. */
function packRows<T extends Span>(spans: readonly T[], maxRows: number): { placed: (T & { row: number })[]; rows: number } {
  const rowEnds: number[] = [];
  const placed: (T & { row: number })[] = [];
  const byStart = [...spans].sort((a, b) => a.left - b.left);
  for (const s of byStart) {
    let row = rowEnds.findIndex((endsAt) => endsAt <= s.left);
    if (row === -1) row = rowEnds.length < maxRows ? rowEnds.length : maxRows - 1;
    rowEnds[row] = Math.max(rowEnds[row] ?? 0, s.left + s.width);
    placed.push({ ...s, row });
  }
  return { placed, rows: Math.max(1, rowEnds.length) };
}

export interface LayoutInput {
  readonly commits: readonly TransactionEntry[];
  readonly waits: readonly BlockedWaitEntry[];
  /** The slot as last polled, and the viewer's time it was polled at. */
  readonly slot: WriteSlotState | undefined;
  readonly slotAt: number | undefined;
  readonly now: number;
  readonly windowMs: number;
  /** Originators not drawn. */
  readonly hidden?: readonly Originator[];
}

export function layoutTimeline(input: LayoutInput): TimelineLayout {
  const end = input.now;
  const start = end - input.windowMs;
  const hidden = new Set(input.hidden ?? []);
  const commits: Record<Originator, (CommitBar | HolderBar)[]> = { User: [], Internal: [], Replication: [] };

  for (const entry of input.commits) {
    if (hidden.has(entry.originator)) continue;
    const s = span(entry.startedAt, entry.startedAt + entry.durationMs, start, end);
    if (s !== undefined) commits[entry.originator].push({ kind: 'commit', entry, ...s });
  }

  const waitSpans: (Omit<WaitBar, 'row'> | Omit<WaitingBar, 'row'>)[] = [];
  for (const entry of input.waits) {
    if (hidden.has(entry.originator)) continue;
    const s = span(entry.endedAt - entry.waitedMs, entry.endedAt, start, end);
    if (s !== undefined) waitSpans.push({ kind: 'wait', entry, ...s });
  }

  const slot = input.slot;
  if (slot !== undefined && input.slotAt !== undefined) {
    // The slot's durations were measured when it was polled; they grow with time since.
    const age = Math.max(0, end - input.slotAt);
    const holder = slot.holder;
    if (holder !== undefined && !hidden.has(holder.originator)) {
      const heldMs = holder.heldMs + age;
      const s = span(end - heldMs, end, start, end);
      if (s !== undefined)
        commits[holder.originator].push({ kind: 'holder', txnId: holder.txnId, originator: holder.originator, hint: holder.hint, heldMs, ...s });
    }
    for (const writer of slot.waiting) {
      if (hidden.has(writer.originator)) continue;
      const waitingMs = writer.waitingMs + age;
      const s = span(end - waitingMs, end, start, end);
      if (s === undefined) continue;
      waitSpans.push({
        kind: 'waiting',
        originator: writer.originator,
        hint: writer.hint,
        waitingMs,
        logLevel: age === 0 ? writer.logLevel : nextBlockedLogLevel(waitingMs),
        behindTxnId: holder?.txnId,
        behind: holder?.originator,
        ...s,
      });
    }
  }

  const { placed, rows } = packRows(waitSpans, MAX_WAIT_ROWS);
  return { start, end, commits, waits: placed as (WaitBar | WaitingBar)[], waitRows: rows, ticks: ticks(start, end) };
}

/** The level of a "blocked" line logged after `ms` of waiting (spec section 8): DEBUG up to 30 s, WARN up to 120 s, ERROR beyond. */
export function blockedLogLevel(ms: number): LogLevel {
  if (ms <= 30_000) return 'DEBUG';
  if (ms <= 120_000) return 'WARN';
  return 'ERROR';
}

export const BLOCKED_LOG_INTERVAL_MS = 10_000;

/**
 * The level of the next "blocked" line of a writer waiting for `ms` (one is logged every 10 s).
 * The peer tells it at each poll; this keeps it right between two polls.
 */
export function nextBlockedLogLevel(ms: number): LogLevel {
  return blockedLogLevel((Math.floor(Math.max(0, ms) / BLOCKED_LOG_INTERVAL_MS) + 1) * BLOCKED_LOG_INTERVAL_MS);
}
