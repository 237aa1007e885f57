/**
 * The evict/re-sync loop, watched (spec 1.4, 1.5, 3.1, 3.2): an EVICT that the peer's own
 * subscriptions overlap removes documents that replication brings straight back. Before each
 * EVICT the watch counts, per overlapping subscription, the documents that would come back, and
 * warns; after, it remembers what was evicted and warns when replication brings it back soon.
 */
import type { JsonValue } from '../../shared/json.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import type { Logger } from '../log/log-hub.ts';
import type { DocumentChange } from '../storage/recording-writer.ts';
import type { Params } from '../dql/evaluate.ts';
import type { DocumentQuery, StorageReader } from '../storage/types.ts';
import { prepare } from '../query/prepare.ts';
import { documentQueryOf } from '../query/select.ts';
import type { SyncSubscription } from '../subscriptions/subscription-set.ts';
import type { Timers } from '../time.ts';

/** A subscription that matches documents an EVICT removes: they would come back. */
export interface EvictionOverlap {
  readonly subscriptionId: number;
  readonly statement: string;
  /** How many of the evicted documents it matches now. */
  readonly comeBack: number;
}

export interface EvictionCheck {
  readonly collection: string;
  /** The live documents the EVICT removes. */
  readonly evicted: number;
  /** The application's subscriptions (not the peer's own) that match some of them. */
  readonly overlaps: readonly EvictionOverlap[];
}

/** Documents evicted this long ago or less that come back by replication count as a loop. */
export const RESYNC_WINDOW_MS = 10 * 60_000;
/** Evicted ids remembered per peer (the most recent); beyond that the oldest are forgotten. */
export const EVICTED_IDS_KEPT = 200_000;

/** A stable key of a document, for sets. */
const keyOf = (collection: string, id: JsonValue): string => `${collection}\u0000${JSON.stringify(id)}`;

/** A subscription as the counting needs it: its id, statement and arguments. */
export interface CountedSubscription {
  readonly id: number;
  readonly statement: string;
  readonly args: Params;
}

/** For each subscription, how many of the `evicted` documents (keys: `JSON.stringify(_id)`) it selects now; those above 0. */
export function countComeBack(reader: StorageReader, subscriptions: readonly CountedSubscription[], evicted: ReadonlySet<string>): EvictionOverlap[] {
  const overlaps: EvictionOverlap[] = [];
  if (evicted.size === 0) return overlaps;
  for (const sub of subscriptions) {
    const ast = prepare(sub.statement).ast;
    if (ast.kind !== 'select') continue;
    let comeBack = 0;
    for (const doc of reader.findDocuments(documentQueryOf(ast, sub.args))) if (evicted.has(JSON.stringify(doc.id))) comeBack++;
    if (comeBack > 0) overlaps.push({ subscriptionId: sub.id, statement: sub.statement, comeBack });
  }
  return overlaps;
}

/** Counts, for each application subscription of `query.collection`, the documents both select. */
export function checkEviction(reader: StorageReader, query: DocumentQuery, subscriptions: readonly SyncSubscription[]): EvictionCheck {
  const evicted = new Set(reader.findDocuments(query).map((d) => JSON.stringify(d.id)));
  const relevant = subscriptions.filter((sub) => !sub.isInternal && !sub.isCancelled && sub.collection === query.collection);
  return { collection: query.collection, evicted: evicted.size, overlaps: countComeBack(reader, relevant, evicted) };
}

export interface EvictionWatchOptions {
  readonly logger: Logger;
  readonly timers: Timers;
  /** The peer's live subscriptions. */
  readonly subscriptions: () => readonly SyncSubscription[];
}

/** A loop seen: documents evicted here came back by replication. */
export interface ResyncEvent {
  readonly collection: string;
  readonly count: number;
  /** When the earliest of them was evicted (ms). */
  readonly evictedAt: number;
  readonly at: number;
  /** The application subscriptions of the collection: what brought them back. */
  readonly subscriptions: readonly string[];
}

export class EvictionWatch {
  readonly #options: EvictionWatchOptions;
  /** Evicted documents by key, with when: oldest first. */
  readonly #evicted = new Map<string, number>();
  readonly #listeners = new Set<(event: ResyncEvent) => void>();

  constructor(options: EvictionWatchOptions) {
    this.#options = options;
  }

  /** Before an EVICT runs (inside its transaction): warns of each subscription it overlaps. */
  beforeEvict(reader: StorageReader, query: DocumentQuery): EvictionCheck | undefined {
    const subscriptions = this.#options.subscriptions().filter((s) => !s.isInternal && !s.isCancelled && s.collection === query.collection);
    // No subscription of the collection: nothing can come back, and nothing is read.
    if (subscriptions.length === 0) return undefined;
    const check = checkEviction(reader, query, subscriptions);
    for (const overlap of check.overlaps) {
      this.#options.logger.warn(LOG_EVENTS.evictOverlap, {
        collection: check.collection,
        subscription: overlap.statement,
        come_back: overlap.comeBack,
        evicted: check.evicted,
      });
    }
    return check;
  }

  /** After each commit: remembers evictions, and tells of evicted documents replication brought back. */
  committed(originator: string, changes: readonly DocumentChange[]): void {
    // Every commit comes here: with nothing evicted lately, only an EVICT has anything to do.
    if (this.#evicted.size === 0 && (originator === 'Replication' || !changes.some((c) => c.kind === 'evict'))) return;
    const now = this.#options.timers.now();
    if (originator !== 'Replication') {
      for (const change of changes) {
        const key = keyOf(change.collection, change.id);
        this.#evicted.delete(key);
        // Written here again after its eviction: its coming back is this peer's doing, not the loop.
        if (change.kind === 'evict') this.#evicted.set(key, now);
      }
      this.#forget(now);
      return;
    }
    const back = new Map<string, { count: number; evictedAt: number }>();
    for (const change of changes) {
      if (change.kind !== 'put') continue;
      const key = keyOf(change.collection, change.id);
      const evictedAt = this.#evicted.get(key);
      if (evictedAt === undefined) continue;
      this.#evicted.delete(key);
      if (now - evictedAt > RESYNC_WINDOW_MS) continue;
      const seen = back.get(change.collection) ?? { count: 0, evictedAt };
      back.set(change.collection, { count: seen.count + 1, evictedAt: Math.min(seen.evictedAt, evictedAt) });
    }
    for (const [collection, { count, evictedAt }] of back) {
      const subscriptions = this.#options
        .subscriptions()
        .filter((s) => !s.isInternal && !s.isCancelled && s.collection === collection)
        .map((s) => s.statement);
      const event: ResyncEvent = { collection, count, evictedAt, at: now, subscriptions };
      this.#options.logger.warn(LOG_EVENTS.evictResynced, {
        collection,
        count,
        seconds_after: Math.round((now - evictedAt) / 100) / 10,
        subscriptions: subscriptions.length === 0 ? 'none now (cancelled since)' : subscriptions.join(' | '),
      });
      for (const listener of [...this.#listeners]) {
        try {
          listener(event);
        } catch {
          // A listener (the inspector) must not break commits.
        }
      }
    }
  }

  /** Called when evicted documents come back by replication. Returns an unsubscribe function. */
  onResync(listener: (event: ResyncEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #forget(now: number): void {
    for (const [key, at] of this.#evicted) {
      if (this.#evicted.size <= EVICTED_IDS_KEPT && now - at <= RESYNC_WINDOW_MS) break;
      this.#evicted.delete(key);
    }
  }
}
