/**
 * What of this store the Big Peer has not acknowledged yet, and a bounded wait until it has
 * (`sync.pendingUpload`, `sync.waitUntilUploaded`). It reads no database: the replicator says up
 * to which txn_id the Big Peer holds every change of this store (`bigPeerHolds`, the figure
 * eviction trusts, moved on by each acknowledged update), and the store says what it committed.
 * txn_ids are consecutive, so what is pending is the range above what the Big Peer holds.
 */
import { SyncError } from '../errors.ts';
import type { Timers } from '../time.ts';
import { Alarm } from '../auth/alarm.ts';

/** What the Big Peer has not acknowledged of this store, up to a txn_id. */
export interface UploadState {
  /** The txn_id waited for: the store's last txn_id when the wait began (or now, for `pendingUpload`). */
  readonly upTo: number;
  /** Up to which txn_id the Big Peer holds every change of this store (0 when it never said). */
  readonly acknowledgedUpTo: number;
  /** How many commits above `acknowledgedUpTo`, up to `upTo`, it has not acknowledged; 0 when everything is uploaded. */
  readonly pendingCommits: number;
  /** The first and last of those txn_ids (consecutive); undefined when none is pending. */
  readonly pendingTxnIds: { readonly first: number; readonly last: number } | undefined;
  /**
   * When the oldest pending commit was made (ms since the epoch); undefined when none is pending
   * or it was committed before this Sync opened (or beyond what it remembers).
   */
  readonly pendingSince: number | undefined;
  /** Is a replication session with the Big Peer running now? */
  readonly bigPeerSession: boolean;
}

export interface UploadWatchOptions {
  readonly timers: Timers;
  /** The store's last txn_id. */
  readonly lastTxnId: () => number;
  /** Up to which txn_id the Big Peer holds every change of this store; undefined when never known. */
  readonly bigPeerHolds: () => number | undefined;
  /** Is a session with the Big Peer running? */
  readonly bigPeerSession: () => boolean;
}

/** Commit times remembered while not acknowledged: enough for any session; an offline peer stops recording past it. */
export const MAX_REMEMBERED_COMMITS = 10_000;

interface Waiter {
  readonly upTo: number;
  readonly alarm: Alarm;
  readonly resolve: (state: UploadState) => void;
  readonly reject: (error: unknown) => void;
}

export class UploadWatch {
  readonly #options: UploadWatchOptions;
  /** [txnId, committedAt] of commits not known to be acknowledged, oldest first. */
  #commits: [number, number][] = [];
  readonly #waiters = new Set<Waiter>();
  #closed = false;

  constructor(options: UploadWatchOptions) {
    this.#options = options;
  }

  /** The store committed `txnId` at `at`. */
  committed(txnId: number, at: number): void {
    if (this.#closed || this.#commits.length >= MAX_REMEMBERED_COMMITS) return;
    this.#commits.push([txnId, at]);
  }

  /** What the Big Peer holds may have changed: forgets what it holds and ends the waits it satisfies. */
  holdsChanged(): void {
    if (this.#closed || (this.#commits.length === 0 && this.#waiters.size === 0)) return;
    const holds = this.#holds();
    const firstPending = this.#commits.findIndex(([txnId]) => txnId > holds);
    this.#commits = firstPending === -1 ? [] : this.#commits.slice(firstPending);
    for (const waiter of this.#waiters) if (holds >= waiter.upTo) this.#end(waiter);
  }

  /** What is pending up to `upTo` (default: the store's last txn_id now). */
  state(upTo: number = this.#options.lastTxnId()): UploadState {
    const holds = this.#holds();
    const pendingCommits = Math.max(0, upTo - holds);
    const oldest = this.#commits.find(([txnId]) => txnId > holds);
    return {
      upTo,
      acknowledgedUpTo: holds,
      pendingCommits,
      pendingTxnIds: pendingCommits === 0 ? undefined : { first: holds + 1, last: upTo },
      pendingSince: pendingCommits > 0 && oldest !== undefined && oldest[0] === holds + 1 ? oldest[1] : undefined,
      bigPeerSession: this.#options.bigPeerSession(),
    };
  }

  /**
   * Resolves once the Big Peer holds every commit up to the store's last txn_id now, or when
   * `timeoutMs` has passed, with what is still pending then (`pendingCommits` 0: all uploaded).
   * Rejects with `sync/closed` when the Sync closes first.
   */
  wait(timeoutMs: number): Promise<UploadState> {
    if (this.#closed) return Promise.reject(closedError());
    const upTo = this.#options.lastTxnId();
    const now = this.state(upTo);
    if (now.pendingCommits === 0 || timeoutMs <= 0) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { upTo, alarm: new Alarm(this.#options.timers), resolve, reject };
      this.#waiters.add(waiter);
      waiter.alarm.arm(this.#options.timers.now() + timeoutMs, () => this.#end(waiter));
    });
  }

  /** The Sync closes: pending waits reject with `sync/closed`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const waiter of this.#waiters) {
      waiter.alarm.cancel();
      waiter.reject(closedError());
    }
    this.#waiters.clear();
    this.#commits = [];
  }

  #end(waiter: Waiter): void {
    if (!this.#waiters.delete(waiter)) return;
    waiter.alarm.cancel();
    try {
      waiter.resolve(this.state(waiter.upTo));
    } catch (error) {
      waiter.reject(error);
    }
  }

  #holds(): number {
    return this.#options.bigPeerHolds() ?? 0;
  }
}

function closedError(): SyncError {
  return new SyncError('sync/closed', 'the Sync was closed while it waited for the Big Peer to acknowledge its commits');
}
