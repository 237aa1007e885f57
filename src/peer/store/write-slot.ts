/**
 * The store's one write-transaction slot (spec 1.8, 3.3, 8). Writers get it first come, first
 * served. A writer that finds it taken waits, is never failed for waiting, and needs no code to
 * be unblocked. While it waits, a line names it, who blocks it and for how long, every 10 s: at
 * DEBUG up to 30 s, WARN over 30 s up to 120 s, ERROR over 120 s.
 */
import { LOG_EVENTS, type LogLevel } from '../../shared/log.ts';
import type { Originator } from '../../shared/transactions.ts';
import type { Logger } from '../log/log-hub.ts';
import type { TimerHandle, Timers } from '../time.ts';

export const BLOCKED_LOG_INTERVAL_MS = 10_000;

/** The level of a blocked-writer line after `ms` of waiting. */
export function blockedLevel(ms: number): LogLevel {
  if (ms <= 30_000) return 'DEBUG';
  if (ms <= 120_000) return 'WARN';
  return 'ERROR';
}

export interface WriteRequest {
  readonly originator: Originator;
  readonly hint: string | undefined;
}

/** The writer holding the slot. */
export interface SlotHolder extends WriteRequest {
  readonly txnId: number;
  readonly since: number;
}

/** A granted slot: the txn id it will commit as, and the way to give it back. */
export interface Lease {
  readonly txnId: number;
  release(): void;
}

/**
 * A writer that waited, for the timeline: who, for how long, behind whom. A writer may wait
 * behind several holders (those ahead of it in the queue take the slot in turn): it is blamed on
 * the one it waited behind longest, which is the one its "blocked" lines named most.
 */
export interface BlockedWait extends WriteRequest {
  readonly waitedMs: number;
  readonly blockedBy: Originator;
  readonly blockingTxnId: number;
  /** The hint of that holder. */
  readonly blockingHint: string | undefined;
  /** The level of the last "blocked" line logged for it; null when it waited too little to be logged. */
  readonly lastLogLevel: LogLevel | null;
}

/** A writer waiting now. */
export interface WaitingWrite extends WriteRequest {
  /** When it asked for the slot (ms). */
  readonly since: number;
  /** The level of the last "blocked" line logged for it, if any. */
  readonly lastLogLevel: LogLevel | null;
  /** The level its next "blocked" line will have (when it is due: every BLOCKED_LOG_INTERVAL_MS). */
  readonly nextLogLevel: LogLevel;
}

interface Waiter {
  readonly request: WriteRequest;
  readonly since: number;
  readonly grant: (lease: Lease) => void;
  timer: TimerHandle | undefined;
  /** "blocked" lines logged for it so far, and the level of the last. */
  logged: number;
  lastLogLevel: LogLevel | null;
  /** The holder it has waited behind longest so far, and for how long. */
  longest: { holder: SlotHolder; ms: number } | undefined;
}

export interface WriteSlotOptions {
  readonly timers: Timers;
  readonly logger: Logger;
  /** The txn id the next holder will commit as. */
  readonly nextTxnId: () => number;
  /** Told about every writer that had to wait, once it gets the slot. */
  readonly onWaited?: (wait: BlockedWait) => void;
}

export class WriteSlot {
  readonly #timers: Timers;
  readonly #log: Logger;
  readonly #nextTxnId: () => number;
  readonly #onWaited: ((wait: BlockedWait) => void) | undefined;
  readonly #queue: Waiter[] = [];
  #holder: SlotHolder | undefined;

  constructor(options: WriteSlotOptions) {
    this.#timers = options.timers;
    this.#log = options.logger;
    this.#nextTxnId = options.nextTxnId;
    this.#onWaited = options.onWaited;
  }

  get holder(): SlotHolder | undefined {
    return this.#holder;
  }

  /** Writers waiting, in order. */
  get waiting(): readonly WriteRequest[] {
    return this.#queue.map((w) => w.request);
  }

  /** Writers waiting, in order, with when they asked and the levels of their "blocked" lines. */
  get waiters(): readonly WaitingWrite[] {
    return this.#queue.map((w) => ({
      ...w.request,
      since: w.since,
      lastLogLevel: w.lastLogLevel,
      nextLogLevel: blockedLevel((w.logged + 1) * BLOCKED_LOG_INTERVAL_MS),
    }));
  }

  /** Resolves with the slot once every earlier writer has released it. */
  acquire(request: WriteRequest): Promise<Lease> {
    if (this.#holder === undefined && this.#queue.length === 0) return Promise.resolve(this.#grant(request));
    return new Promise<Lease>((resolve) => {
      const waiter: Waiter = { request, since: this.#timers.now(), grant: resolve, timer: undefined, logged: 0, lastLogLevel: null, longest: undefined };
      this.#queue.push(waiter);
      this.#schedule(waiter);
    });
  }

  #grant(request: WriteRequest): Lease {
    const txnId = this.#nextTxnId();
    const holder: SlotHolder = { ...request, txnId, since: this.#timers.now() };
    this.#holder = holder;
    let released = false;
    return {
      txnId,
      release: () => {
        if (released) return;
        released = true;
        this.#release(holder);
      },
    };
  }

  #release(holder: SlotHolder): void {
    if (this.#holder !== holder) return;
    this.#holder = undefined;
    // Every writer still waiting waited behind this holder from when it asked or this holder
    // took the slot, whichever came later.
    const now = this.#timers.now();
    for (const waiter of this.#queue) {
      const ms = now - Math.max(waiter.since, holder.since);
      if (waiter.longest === undefined || ms > waiter.longest.ms) waiter.longest = { holder, ms };
    }
    const next = this.#queue.shift();
    if (next === undefined) return;
    if (next.timer !== undefined) this.#timers.clearTimeout(next.timer);
    const blocker = next.longest?.holder ?? holder;
    const lease = this.#grant(next.request);
    this.#onWaited?.({
      ...next.request,
      waitedMs: now - next.since,
      blockedBy: blocker.originator,
      blockingTxnId: blocker.txnId,
      blockingHint: blocker.hint,
      lastLogLevel: next.lastLogLevel,
    });
    next.grant(lease);
  }

  /**
   * Arms the waiter's next "blocked" line, due at `since + n × 10 s` (an absolute deadline, so
   * that timers firing a little late do not add up over a long wait).
   */
  #schedule(waiter: Waiter): void {
    const due = waiter.since + (waiter.logged + 1) * BLOCKED_LOG_INTERVAL_MS;
    waiter.timer = this.#timers.setTimeout(
      () => {
        waiter.timer = undefined;
        if (!this.#queue.includes(waiter)) return;
        this.#logBlocked(waiter);
        this.#schedule(waiter);
      },
      Math.max(0, due - this.#timers.now()),
    );
  }

  #logBlocked(waiter: Waiter): void {
    const ms = this.#timers.now() - waiter.since;
    const holder = this.#holder;
    waiter.logged++;
    // The level follows the line's number (the nth line is due at n × 10 s), never the measured
    // wait: a real timer fires a few ms late, and the line due at 30 s must stay DEBUG (spec
    // section 8), as `nextLogLevel` predicted.
    const level = blockedLevel(waiter.logged * BLOCKED_LOG_INTERVAL_MS);
    waiter.lastLogLevel = level;
    this.#log.log(level, LOG_EVENTS.writeTxnBlocked, {
      hint: waiter.request.hint ?? null,
      position: this.#queue.indexOf(waiter) + 1,
      originator: waiter.request.originator,
      blocked_by: holder?.originator ?? null,
      blocking_txn_id: holder?.txnId ?? null,
      blocked_for_s: Math.round(ms / 100) / 10,
    });
  }
}
