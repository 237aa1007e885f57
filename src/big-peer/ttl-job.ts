/**
 * The Big Peer's TTL job (spec 1.6, 3.1, 4.1): on a schedule, per configured collection, it
 * flags the documents whose TTL field is at or before now minus the TTL and that are not yet
 * flagged, setting `evictionFlag = true`. The flag replicates; small peers then evict them.
 * It runs as an `Internal` transaction; the same update can be sent over HTTP to
 * `POST /api/v4/store/write` by an external scheduler.
 *
 * Several Big Peer nodes on one database each schedule the job; a scheduled run happens once per
 * schedule slot (the period's n-th occurrence since the time of day, UTC), on the node whose
 * timer fires first: the run records its slot in the same transaction as its update, and write
 * transactions are one at a time across the nodes, so a later node sees the slot done and skips.
 */
import { LOG_EVENTS } from '../shared/log.ts';
import type { Logger, Store, Timers } from '../peer/host.ts';
import { errorMessage } from '../shared/error-message.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface TtlJobConfig {
  /** The collection whose documents expire. */
  readonly collection: string;
  /** The ISO 8601 timestamp field compared with the TTL (default `createdAt`). */
  readonly field?: string;
  /** How old a document may get before it is flagged, in hours (the spec's example: 72). */
  readonly ttlHours: number;
  /** How often the job runs, in hours (default 24: daily). */
  readonly everyHours?: number;
  /** The time of day, UTC `HH:MM`, of the first run (a low-activity hour); default: one period after start. */
  readonly at?: string;
}

export interface TtlRun {
  readonly collection: string;
  readonly field: string;
  /** The cut-off: documents with the field at or before it are flagged. */
  readonly ttl: string;
  readonly flagged: number;
  readonly txnId: number;
}

/** The DQL update of one run, as the HTTP form of the job would send it. */
export function ttlStatement(collection: string, field: string): string {
  const name = (n: string): string => `\`${n.replaceAll('`', '``')}\``;
  return `UPDATE ${name(collection)} SET evictionFlag = true WHERE ${name(field)} <= :ttl AND evictionFlag = false`;
}

/** The setting that holds the last schedule slot a job ran in (several nodes share it through the database). */
export function ttlSlotSetting(config: TtlJobConfig): string {
  return `big-peer.ttl.slot.${JSON.stringify([config.collection, config.field ?? 'createdAt', config.ttlHours, config.everyHours ?? 24, config.at ?? null])}`;
}

/** Which occurrence of the job's period `at` falls in, counted from its time of day (UTC) on 1 January 1970. */
export function ttlSlot(config: TtlJobConfig, at: number): number {
  const period = (config.everyHours ?? 24) * HOUR_MS;
  const anchor = config.at === undefined ? 0 : untilTimeOfDay(0, config.at) % DAY_MS;
  // Timers fire late, never early: a run a little past its time stays in its slot.
  return Math.floor((at - anchor) / period);
}

/** Milliseconds from `now` to the next `HH:MM` UTC. */
export function untilTimeOfDay(now: number, at: string): number {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(at);
  if (m === null) throw new RangeError(`a TTL job's "at" is a UTC time HH:MM, not ${JSON.stringify(at)}`);
  const day = new Date(now);
  let next = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), Number(m[1]), Number(m[2]));
  if (next <= now) next += DAY_MS;
  return next - now;
}

export function validateTtlJob(config: TtlJobConfig): void {
  if (typeof config.collection !== 'string' || config.collection === '') throw new RangeError('a TTL job needs a collection');
  if (!(typeof config.ttlHours === 'number' && config.ttlHours > 0)) throw new RangeError(`the TTL job of ${config.collection} needs ttlHours > 0`);
  if (config.everyHours !== undefined && !(config.everyHours > 0)) throw new RangeError(`the TTL job of ${config.collection} needs everyHours > 0`);
  if (config.at !== undefined) untilTimeOfDay(0, config.at);
}

export class TtlJob {
  readonly #store: Store;
  readonly #configs: readonly TtlJobConfig[];
  readonly #timers: Timers;
  readonly #log: Logger;
  /** Every pending timer, one per job (two jobs may share a collection), so stop() clears them all. */
  readonly #handles = new Set<object>();
  #stopped = false;

  constructor(options: { store: Store; jobs: readonly TtlJobConfig[]; timers: Timers; logger: Logger }) {
    options.jobs.forEach(validateTtlJob);
    this.#store = options.store;
    this.#configs = options.jobs;
    this.#timers = options.timers;
    this.#log = options.logger;
  }

  /** Schedules every configured collection's runs. */
  start(): void {
    for (const config of this.#configs) {
      const first = config.at === undefined ? (config.everyHours ?? 24) * HOUR_MS : untilTimeOfDay(this.#timers.now(), config.at);
      this.#schedule(config, first);
    }
  }

  /** Runs the job now for one collection (or all), whatever the schedule. */
  async runNow(collection?: string): Promise<TtlRun[]> {
    const runs: TtlRun[] = [];
    for (const config of this.#configs) {
      if (collection !== undefined && config.collection !== collection) continue;
      const run = await this.#run(config);
      if (run !== undefined) runs.push(run);
    }
    return runs;
  }

  stop(): void {
    this.#stopped = true;
    for (const handle of this.#handles.values()) this.#timers.clearTimeout(handle);
    this.#handles.clear();
  }

  #schedule(config: TtlJobConfig, delayMs: number): void {
    if (this.#stopped) return;
    this.#log.debug(LOG_EVENTS.ttlJobScheduled, { collection: config.collection, next_run: new Date(this.#timers.now() + delayMs).toISOString() });
    const handle = this.#timers.setTimeout(() => {
      this.#handles.delete(handle);
      void this.#run(config, ttlSlot(config, this.#timers.now()))
        .catch(() => undefined) // logged in #run
        .finally(() => this.#schedule(config, (config.everyHours ?? 24) * HOUR_MS));
    }, delayMs);
    this.#handles.add(handle);
  }

  /** Runs the job; a scheduled run (`slot` given) only if no node ran that slot yet, else undefined. */
  async #run(config: TtlJobConfig, slot?: number): Promise<TtlRun | undefined> {
    const field = config.field ?? 'createdAt';
    const ttl = new Date(this.#timers.now() - config.ttlHours * HOUR_MS).toISOString();
    const key = ttlSlotSetting(config);
    const ranElsewhere = (done: string | undefined): boolean => slot !== undefined && done !== undefined && Number(done) >= slot;
    try {
      if (ranElsewhere(this.#store.internalSettings.get(key))) {
        this.#log.info(LOG_EVENTS.ttlJobSkipped, { collection: config.collection, slot: slot ?? null });
        return undefined;
      }
      const result = await this.#store.internalWrites.executeUnless(
        'Internal',
        `ttl ${config.collection}`,
        ttlStatement(config.collection, field),
        { ttl },
        (writer) => {
          // Again inside the transaction: another node may have run the slot since the look above.
          if (ranElsewhere(writer.setting(key))) return true;
          if (slot !== undefined) writer.setSetting(key, String(slot));
          return false;
        },
      );
      if (result === undefined) {
        this.#log.info(LOG_EVENTS.ttlJobSkipped, { collection: config.collection, slot: slot ?? null });
        return undefined;
      }
      const run: TtlRun = { collection: config.collection, field, ttl, flagged: result.mutatedDocumentIds.length, txnId: result.commitId ?? 0 };
      this.#log.info(LOG_EVENTS.ttlJobRan, { collection: run.collection, field, ttl, flagged: run.flagged, txn_id: run.txnId });
      return run;
    } catch (error) {
      this.#log.error(LOG_EVENTS.ttlJobFailed, { collection: config.collection, error: errorMessage(error) });
      throw error;
    }
  }
}
