/**
 * A document's sync trace: where this peer's version of one document stands with each remote it
 * syncs with, and where it came from. Answers "why didn't this order reach that register?"
 * (docs/inspector.md, "Sync trace").
 */
import type { JsonValue } from '../json.ts';

/**
 * Where the version stands with one remote:
 * - `acknowledged`: the remote acknowledged an update holding this version (or a later one), for `query`;
 * - `in-flight`: sent in update `update`, not acknowledged yet;
 * - `pending`: the remote asks for it (`query`); it goes in the next update;
 * - `from-remote`: this version came from that remote; nothing is sent back;
 * - `not-subscribed`: no subscription of the remote matches it;
 * - `not-readable`: the remote may not read it; `rules` are its read rules for the collection;
 * - `awaiting-subscriptions`: the session runs, the remote has not said what it subscribes to yet;
 * - `session-down`: no session runs with the remote now: since `since` (ms since the epoch, or
 *   null when never connected), for `reason`, dialed again in `retryInMs`.
 */
export type TraceDelivery =
  | { readonly state: 'acknowledged'; readonly query: string }
  | { readonly state: 'in-flight'; readonly query: string; readonly update: number }
  | { readonly state: 'pending'; readonly query: string }
  | { readonly state: 'from-remote' }
  | { readonly state: 'not-subscribed' }
  | { readonly state: 'not-readable'; readonly rules: readonly string[] }
  | { readonly state: 'awaiting-subscriptions' }
  | { readonly state: 'session-down'; readonly since: number | null; readonly reason: string | null; readonly retryInMs: number | null };

export interface RemoteTrace {
  readonly peerKey: string;
  readonly role: 'big-peer' | 'small-peer';
  readonly delivery: TraceDelivery;
}

export interface DocumentTrace {
  readonly collection: string;
  readonly id: JsonValue;
  /** What this peer holds of it: a live document, a tombstone, or nothing (never had it, or evicted). */
  readonly held: 'live' | 'tombstone' | 'absent';
  /** The `txn_id` of the commit that stored this version here; null when absent. */
  readonly txnId: number | null;
  /** Who wrote this version last (the newest field stamp): a peer key; null when absent. */
  readonly lastWriter: string | null;
  /** That stamp's wall-clock time, ISO 8601; null when absent. */
  readonly lastWrittenAt: string | null;
  /** One entry per remote: those of running sessions, then those this peer dials that are down. */
  readonly remotes: readonly RemoteTrace[];
}
