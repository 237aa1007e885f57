/**
 * The Big Peer removes the presence documents of peers that have not written theirs for a long
 * time (default 30 days): a register retired, a laptop reinstalled under a new key. Without it
 * they would show as offline peers forever in every inspector of the mesh.
 *
 * It runs at start and then once a day, as an `Internal` transaction (hint `presence-expiry`):
 * `DELETE FROM __presence WHERE updatedAt < :horizon`. The deletions replicate like any other,
 * so every peer forgets them; their tombstones are reaped like any other. A peer that comes back
 * writes its document again at its next start or heartbeat. Only Big Peers run it: small peers
 * that sync only with each other keep what they hold. Several nodes of one cluster each run it;
 * the second run of a day finds nothing to remove.
 *
 * `updatedAt` is the writer's clock: a horizon of days leaves clock skew out of the question.
 */
import { LOG_EVENTS } from '../shared/log.ts';
import { errorMessage } from '../shared/error-message.ts';
import { PRESENCE_COLLECTION, type Logger, type Store, type TimerHandle, type Timers } from '../peer/host.ts';

const DAY_MS = 86_400_000;
export const DEFAULT_PRESENCE_EXPIRY_DAYS = 30;
/** How long after start the first run comes: the Big Peer's own start-up writes go first. */
export const PRESENCE_EXPIRY_FIRST_RUN_MS = 60_000;

export const PRESENCE_EXPIRY_STATEMENT = `DELETE FROM ${PRESENCE_COLLECTION} WHERE updatedAt < :horizon`;

export interface PresenceExpiryOptions {
  readonly store: Pick<Store, 'internalWrites' | 'isClosed'>;
  readonly timers: Timers;
  readonly logger: Logger;
  /** Days without a write after which a presence document is removed. */
  readonly expiryDays: number;
}

export class PresenceExpiry {
  readonly #options: PresenceExpiryOptions;
  #timer: TimerHandle | undefined;
  #stopped = false;

  constructor(options: PresenceExpiryOptions) {
    this.#options = options;
  }

  /** Schedules the first run, then one a day. */
  start(): void {
    this.#schedule(PRESENCE_EXPIRY_FIRST_RUN_MS);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#options.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Removes the presence documents last written more than `expiryDays` ago; answers how many.
   * A failure is logged at WARN and answers 0 (the next day's run tries again).
   */
  async runNow(): Promise<number> {
    const { store, timers, logger, expiryDays } = this.#options;
    if (store.isClosed) return 0;
    try {
      const horizon = timers.now() - expiryDays * DAY_MS;
      const result = await store.internalWrites.execute('Internal', 'presence-expiry', PRESENCE_EXPIRY_STATEMENT, { horizon });
      const removed = result.mutatedDocumentIds.length;
      if (removed > 0) logger.info(LOG_EVENTS.presenceExpired, { removed, older_than_days: expiryDays, txn_id: result.commitId ?? null });
      return removed;
    } catch (error) {
      if (!store.isClosed) logger.warn(LOG_EVENTS.presenceExpiryFailed, { error: errorMessage(error) });
      return 0;
    }
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = this.#options.timers.setTimeout(() => {
      this.#timer = undefined;
      void this.runNow().finally(() => this.#schedule(DAY_MS));
    }, delayMs);
  }
}
