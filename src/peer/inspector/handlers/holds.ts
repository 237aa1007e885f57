/**
 * `transactions:hold` and `transactions:release`: the write slot held by a `User` transaction
 * that writes nothing, for a while, so that QA can reproduce blocked writes.
 *
 * Holds belong to the session (the window or tab) that asked, never to the inspector:
 * - A session has at most one hold at a time, running or still waiting for the slot. A second
 *   `transactions:hold` is refused with `inspector/bad-request` (nothing is queued); release
 *   the first, or let it end.
 * - A hold ends when its time is up, when the session releases it (`transactions:release`), or
 *   when the session closes (the window closed, the tab or socket went away, the inspector
 *   closed), whichever comes first.
 * - A hold released or closed while still waiting for the slot is dropped: the moment it gets
 *   the slot it ends, and its call answers `inspector/cancelled` (or `inspector/closed`); until
 *   then it still counts as the session's hold.
 */
import type { InspectorContext } from '../context.ts';
import { badRequest, cancelled, closedError } from './input.ts';

interface Hold {
  /** Ends the hold now if it runs, or the moment it gets the slot. */
  end(reason: 'released' | 'closed'): void;
  /** Settles once the hold's transaction has ended (committed, or failed). */
  readonly done: Promise<void>;
  readonly held: () => boolean;
}

export class Holds {
  readonly #ctx: InspectorContext;
  #current: Hold | undefined;
  #closed = false;

  constructor(ctx: InspectorContext) {
    this.#ctx = ctx;
  }

  /** Holds the slot for `ms` once it gets it; resolves with the txn id then (not when released). */
  hold(ms: number, hint: string | undefined): Promise<{ txnId: number }> {
    if (this.#closed) return Promise.reject(closedError('transactions:hold: this inspector session is closed; nothing was held'));
    if (this.#current !== undefined) {
      const state = this.#current.held() ? 'holds the write slot' : 'is waiting for the write slot';
      return Promise.reject(badRequest(`transactions:hold: this session already has a hold, which ${state}; release it first (transactions:release)`));
    }
    const { sync, timers } = this.#ctx;
    let ended: 'released' | 'closed' | undefined;
    let wake: (() => void) | undefined;
    let held = false;
    return new Promise((resolve, reject) => {
      const transaction = sync.store.transaction(
        async () => {
          if (ended !== undefined) {
            reject(
              ended === 'closed'
                ? closedError('transactions:hold: the session closed before the hold got the write slot')
                : cancelled('transactions:hold: the hold was released before it got the write slot'),
            );
            return;
          }
          held = true;
          resolve({ txnId: sync.store.writeSlot.holder?.txnId ?? sync.store.lastTxnId + 1 });
          await new Promise<void>((release) => {
            const timer = timers.setTimeout(() => {
              wake = undefined;
              release();
            }, ms);
            wake = () => {
              wake = undefined;
              timers.clearTimeout(timer);
              release();
            };
          });
        },
        { hint },
      );
      const done = transaction.then(
        () => undefined,
        (error: unknown) => {
          // Once held, the answer is given; a failure afterwards (the store closed) is not the caller's.
          if (!held) reject(error);
        },
      );
      const hold: Hold = {
        end: (reason) => {
          ended ??= reason;
          wake?.();
        },
        done,
        held: () => held,
      };
      this.#current = hold;
      void done.then(() => {
        if (this.#current === hold) this.#current = undefined;
      });
    });
  }

  /**
   * Ends this session's hold. A running hold is released and its empty transaction committed
   * before this resolves; a hold still waiting for the slot ends the moment it gets it. Resolves
   * `false` when the session had no hold.
   */
  async release(): Promise<boolean> {
    const hold = this.#current;
    if (hold === undefined) return false;
    const running = hold.held();
    hold.end('released');
    if (running) await hold.done;
    return true;
  }

  /** Holds of this session running or waiting now (0 or 1). */
  get count(): number {
    return this.#current === undefined ? 0 : 1;
  }

  /** Ends the hold now and refuses any more; a hold still waiting ends the moment it gets the slot. */
  close(): void {
    this.#closed = true;
    this.#current?.end('closed');
  }
}
