/**
 * A time budget for one piece of work that may run long: a statement of the Big Peer's HTTP API,
 * the matching of a remote peer's subscriptions. Work that can stop between rows (the JavaScript
 * query evaluator, SQLite through a function it calls per row, the loops of mutations) calls
 * `check()` there; past the deadline, or once `expire()` was called, it throws `BudgetExceeded`,
 * and the work ends there: a write transaction rolls back. The clock is monotonic
 * (`performance.now()`) unless one is given: a budget measures real time, not the peer's clock.
 */
import { SyncError } from './errors.ts';

/** Thrown by `Budget.check()` once the budget is spent (`query/timeout`). */
export class BudgetExceeded extends SyncError {
  constructor(message: string) {
    super('query/timeout', message);
  }
}

export class Budget {
  readonly limitMs: number;
  readonly #deadline: number;
  readonly #now: () => number;
  readonly #what: string;
  #expired = false;

  /**
   * @param limitMs the time it may take from now.
   * @param what names the work in the error: `the statement`, `matching the subscription …`.
   */
  constructor(limitMs: number, what = 'the statement', now: () => number = () => performance.now()) {
    this.limitMs = limitMs;
    this.#now = now;
    this.#deadline = now() + limitMs;
    this.#what = what;
  }

  /** Milliseconds left (0 once spent). */
  get remainingMs(): number {
    return this.#expired ? 0 : Math.max(0, this.#deadline - this.#now());
  }

  get isSpent(): boolean {
    return this.#expired || this.#now() >= this.#deadline;
  }

  /** Spends the budget now, whatever the clock says: every later `check()` throws. */
  expire(): void {
    this.#expired = true;
  }

  /** @throws BudgetExceeded once the budget is spent. */
  check(): void {
    if (this.isSpent) throw this.error();
  }

  /** The error `check()` throws. */
  error(): BudgetExceeded {
    return new BudgetExceeded(`${this.#what} ran longer than its budget of ${this.limitMs} ms and was stopped`);
  }
}
