/**
 * `syncmesh peer`'s drain: at the end of its input, the peer waits, at most `--drain-timeout`,
 * until the Big Peer has acknowledged every commit of its store (`sync.waitUntilUploaded`), so
 * that what the input wrote reaches the Big Peer before the process exits. When the bound
 * passes first, `drainTimeoutError` says what is still pending.
 */
import type { ErrorValue } from '../shared/error-codes.ts';
import type { Sync, UploadState } from '../peer/host.ts';
import { formatDuration, parseDuration } from './duration.ts';
import { UsageError } from './peer-options.ts';

export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/** `--drain-timeout DURATION` in milliseconds (default 10 s; 0: do not wait). */
export function drainTimeoutOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_DRAIN_TIMEOUT_MS;
  const ms = parseDuration(value);
  if (ms === undefined) throw new UsageError(`--drain-timeout takes a duration such as 10s, 500ms or 2m (0: do not wait), not ${JSON.stringify(value)}`);
  return ms;
}

export type DrainOutcome =
  /** The Big Peer acknowledged every commit up to the store's last txn_id at the end of the input. */
  | { readonly kind: 'uploaded'; readonly state: UploadState }
  /** The bound passed first: `state` says what is pending. */
  | { readonly kind: 'timed-out'; readonly state: UploadState }
  /** A signal came first: the peer stops at once. */
  | { readonly kind: 'stopped' };

/** Waits until the Big Peer has acknowledged every commit of the store, at most `timeoutMs`, or until `stop`. */
export async function drainUploads(sync: Sync, timeoutMs: number, stop: Promise<unknown>): Promise<DrainOutcome> {
  // The Sync's timers do not keep the process alive, and with the input ended and the Big Peer
  // out of reach nothing else may: this does, for as long as the wait lasts.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    const waited = sync
      .waitUntilUploaded({ timeoutMs })
      .then((state): DrainOutcome => (state.pendingCommits === 0 ? { kind: 'uploaded', state } : { kind: 'timed-out', state }));
    return await Promise.race([waited, stop.then((): DrainOutcome => ({ kind: 'stopped' }))]);
  } finally {
    clearInterval(keepAlive);
  }
}

/** The `cli/drain-timeout` error: how many commits, which txn_ids and since when the Big Peer has not acknowledged. */
export function drainTimeoutError(state: UploadState, timeoutMs: number, now: number): ErrorValue {
  const n = state.pendingCommits;
  const range = state.pendingTxnIds;
  const which = range === undefined ? '' : range.first === range.last ? `txn_id ${range.first}` : `txn_ids ${range.first} to ${range.last}`;
  const since =
    state.pendingSince === undefined
      ? `${n === 1 ? 'committed' : 'the oldest committed'} before this run`
      : `${n === 1 ? 'pending' : 'the oldest pending'} since ${new Date(state.pendingSince).toISOString()} (${((now - state.pendingSince) / 1000).toFixed(1)} s)`;
  const session = state.bigPeerSession ? 'a session with the Big Peer is open' : 'no session with the Big Peer is open';
  return {
    code: 'cli/drain-timeout',
    message:
      `the Big Peer did not acknowledge ${n} commit${n === 1 ? '' : 's'} of this store within ${formatDuration(timeoutMs)} (--drain-timeout): ` +
      `${which}, ${since}; it holds every change up to txn_id ${state.acknowledgedUpTo}; ${session}. ` +
      'They stay in the store and are uploaded by its next session with the Big Peer',
    details: {
      pendingCommits: n,
      pendingTxnIds: range ?? null,
      pendingSince: state.pendingSince === undefined ? null : new Date(state.pendingSince).toISOString(),
      acknowledgedUpTo: state.acknowledgedUpTo,
      upTo: state.upTo,
      bigPeerSession: state.bigPeerSession,
      drainTimeoutMs: timeoutMs,
    },
  };
}
