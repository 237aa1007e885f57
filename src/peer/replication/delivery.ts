/**
 * Where one document stands with one remote peer of a running session: does the remote hold this
 * version, is it on its way, will it go in the next update, or why not. Read from what the
 * session keeps anyway (the remote's subscriptions and read rules, and per query the txn_id the
 * remote acknowledged): no bookkeeping per document on the hot path. The inspector's document
 * trace shows it (docs/inspector.md, "Sync trace").
 */
import type { TraceDelivery } from '../../shared/inspector/trace.ts';
import { EVERYTHING_KEY } from '../../shared/protocol/messages.ts';
import type { StoredDocument } from '../storage/types.ts';
import { allowsDocument, safeMatches, type CompiledRules, type CompiledSubscriptions } from './matching.ts';

/**
 * Where the version stands with the remote of a running session: any state of the inspector's
 * trace (shared/inspector/trace.ts) but `session-down`, which only a peer without a session says.
 */
export type Delivery = Exclude<TraceDelivery, { readonly state: 'session-down' }>;

/** What a session knows that decides a document's delivery. */
export interface DeliveryInputs {
  readonly subscriptions: CompiledSubscriptions | undefined;
  readonly readRules: CompiledRules;
  /** The remote's rule texts for the collection, to name the ones that keep a document back. */
  readonly ruleTexts: readonly string[];
  /** Per query key, the txn_id of this store up to which the remote acknowledged every match. */
  readonly since: ReadonlyMap<string, number>;
  /** The update being sent: its number and, per query key, the txn_id it brings the remote to. */
  readonly inFlight: { readonly update: number; readonly progress: Readonly<Record<string, number>> } | undefined;
  /** Is this version one the remote sent (an echo, not sent back)? */
  readonly fromRemote: boolean;
  /** Per windowed query (LIMIT/OFFSET), the `_id`s (as JSON) in its window as last delivered. */
  readonly windows: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The delivery of `doc` (a tombstone too) of `collection` to the remote. */
export function deliveryOf(collection: string, doc: StoredDocument, inputs: DeliveryInputs): Delivery {
  if (inputs.fromRemote) return { state: 'from-remote' };
  const subscriptions = inputs.subscriptions;
  if (subscriptions === undefined) return { state: 'awaiting-subscriptions' };
  if (!allowsDocument(inputs.readRules, collection, doc.value)) return { state: 'not-readable', rules: inputs.ruleTexts };
  // A tombstone goes wherever the remote subscribes to the collection: it has no fields to match.
  const keys = subscriptions.everything
    ? [EVERYTHING_KEY]
    : (subscriptions.byCollection.get(collection) ?? [])
        // A windowed query asks for the documents in its window, not every match.
        .filter((q) => (q.windowed ? inputs.windows.get(q.key)?.has(JSON.stringify(doc.id)) === true : doc.value === null || safeMatches(q.where, doc.value)))
        .map((q) => q.key);
  if (keys.length === 0) return { state: 'not-subscribed' };
  const acknowledged = keys.find((k) => (inputs.since.get(k) ?? 0) >= doc.txnId);
  if (acknowledged !== undefined) return { state: 'acknowledged', query: acknowledged };
  const flying = inputs.inFlight === undefined ? undefined : keys.find((k) => (inputs.inFlight?.progress[k] ?? 0) >= doc.txnId);
  if (flying !== undefined && inputs.inFlight !== undefined) return { state: 'in-flight', query: flying, update: inputs.inFlight.update };
  return { state: 'pending', query: keys[0] as string };
}
