/** The Subscriptions panel: this peer's and each remote's, in the spec's shape. */
import type { JsonObject } from '../json.ts';
import type { SubscriptionQuery, SubscriptionSetShape } from '../subscriptions.ts';
import type { EvictionStrategyKind } from './eviction.ts';

/** A subscription that overlaps what a collection's eviction strategy evicts, so that its runs are refused. */
export interface SubscriptionEvictionOverlap {
  readonly collection: string;
  readonly strategy: EvictionStrategyKind;
  /** The refusal the strategy's runs meet, in the peer's words. */
  readonly message: string;
  /** Documents the next run would evict that this subscription selects now. */
  readonly comeBack: number;
  /** The fix: this subscription narrowed (`eviction:narrow-subscription` puts it in its place). */
  readonly narrowed: string;
}

export interface LocalSubscription {
  readonly id: number;
  readonly statement: string;
  readonly args: JsonObject;
  readonly collection: string;
  readonly query: SubscriptionQuery;
  /** Registered by the peer itself (`__presence`); cannot be cancelled from the inspector. */
  readonly internal: boolean;
  /** Local documents this subscription matches now. */
  readonly matchingDocuments: number;
  /** It overlaps what an eviction strategy evicts (that strategy's runs are refused): the fix. */
  readonly evictionOverlap?: SubscriptionEvictionOverlap;
}

export interface RemoteSubscriptionQuery {
  readonly collection: string;
  readonly query: SubscriptionQuery;
  /** Local documents the query matches (what this peer may send for it). */
  readonly matchingDocuments: number;
}

export interface RemoteSubscriptions {
  readonly peerKey: string;
  readonly role: 'big-peer' | 'small-peer';
  /** Undefined until the remote has sent its set. */
  readonly set: SubscriptionSetShape | undefined;
  readonly queries: readonly RemoteSubscriptionQuery[];
  /** For `everything`: every local document. */
  readonly matchingDocuments: number;
}

export interface SubscriptionsSnapshot {
  /** The local set as the peer prints it. */
  readonly localSet: SubscriptionSetShape;
  readonly local: readonly LocalSubscription[];
  readonly remotes: readonly RemoteSubscriptions[];
}

export interface RegisterSubscriptionInput {
  readonly statement: string;
  readonly args?: JsonObject;
}
