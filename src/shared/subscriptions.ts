/**
 * Subscriptions as a peer prints them, local or remote (spec sections 2.3 and 2.4).
 */

/** A query of a subscription: a condition, and how the matching documents are ordered and cut. */
export interface SubscriptionQuery {
  readonly expr: string;
  readonly order_by: readonly string[];
  readonly limit?: number;
  readonly offset?: number;
}

/** A peer's subscription set. `everything: true` (the Big Peer's) means all documents of all collections. */
export interface SubscriptionSetShape {
  readonly everything: boolean;
  readonly queries: Readonly<Record<string, readonly SubscriptionQuery[]>>;
}
