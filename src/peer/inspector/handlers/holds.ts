/**
 * `transactions:hold`: the write slot held by a `User` transaction that writes nothing, for a
 * while, so that QA can reproduce blocked writes. Every hold ends when its time is up or when
 * the inspector closes, whichever comes first.
 */
import type { InspectorContext } from '../context.ts';

export class Holds {
  readonly #ctx: InspectorContext;
  readonly #releases = new Set<() => void>();
  #closed = false;

  constructor(ctx: InspectorContext) {
    this.#ctx = ctx;
  }

  /** Holds the slot for `ms` once it gets it; resolves with the txn id then (not when released). */
  hold(ms: number, hint: string | undefined): Promise<{ txnId: number }> {
    const { sync, timers } = this.#ctx;
    return new Promise((resolve, reject) => {
      let held = false;
      const transaction = sync.store.transaction(
        async () => {
          held = true;
          resolve({ txnId: sync.store.writeSlot.holder?.txnId ?? sync.store.lastTxnId + 1 });
          if (this.#closed) return;
          await new Promise<void>((done) => {
            const release = (): void => {
              timers.clearTimeout(timer);
              this.#releases.delete(release);
              done();
            };
            const timer = timers.setTimeout(release, ms);
            this.#releases.add(release);
          });
        },
        { hint },
      );
      transaction.catch((error: unknown) => {
        if (!held) reject(error);
        // Once held, the answer is given; a failure afterwards (the store closed) is not the caller's.
      });
    });
  }

  /** Holds running now. */
  get count(): number {
    return this.#releases.size;
  }

  /** Ends every hold now; a hold still waiting for the slot ends the moment it gets it. */
  close(): void {
    this.#closed = true;
    for (const release of [...this.#releases]) release();
  }
}
