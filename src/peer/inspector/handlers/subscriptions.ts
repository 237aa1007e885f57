/**
 * `subscriptions:list`, `subscriptions:register`, `subscriptions:cancel`: this peer's sync
 * subscriptions and each remote's, with how many local documents each matches now.
 *
 * Choices the contract leaves open:
 * - `matchingDocuments` counts live local documents (tombstones not included) with the query's
 *   condition, within its LIMIT/OFFSET window; it does not apply the remote's read permission
 *   (the Permissions panel tells that). A remote's total counts each document once, however
 *   many of its queries match it; for `everything` it is every live document of every
 *   collection, internal ones included.
 * - `subscriptions:register` registers as the app would (`sync.store.registerSubscription`):
 *   the subscription lives until cancelled, also after the inspector closes. A statement that
 *   is not `SELECT * FROM …`, or a collection the peer may not read, comes back with its own
 *   code (`query/unsupported`, `sync/permission-denied`).
 * - `subscriptions:cancel` refuses an internal subscription (`__presence`: the peer needs it)
 *   with `inspector/bad-request`, and an unknown id with `inspector/not-found`.
 * - Remotes are the peers with a live session; one that has not sent its set yet shows
 *   `set: undefined` and no counts.
 * - A local subscription that overlaps what an eviction strategy evicts, so that the strategy's
 *   runs are refused, carries `evictionOverlap` with the fix (from the strategies' dry runs,
 *   eviction-overlap.ts).
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import type { LocalSubscription, RemoteSubscriptions, SubscriptionEvictionOverlap, SubscriptionsSnapshot } from '../../../shared/inspector/subscriptions.ts';
import type { JsonObject } from '../../../shared/json.ts';
import type { StorageReader } from '../../storage/types.ts';
import type { SyncSubscription } from '../../subscriptions/subscription-set.ts';
import type { InspectorContext } from '../context.ts';
import { compileOne, countQuery, countSet } from './counting.ts';
import { evictionOverlaps } from './eviction-overlap.ts';
import { MAX_STATEMENT_CHARS } from './documents.ts';
import { badRequest, emptyInput, notFound, objectInput, optionalArgs, requiredInteger, requiredString } from './input.ts';

type SubscriptionsHandlers = Pick<InspectorHandlers, 'subscriptions:list' | 'subscriptions:register' | 'subscriptions:cancel'>;

function local(reader: StorageReader, s: SyncSubscription, evictionOverlap?: SubscriptionEvictionOverlap): LocalSubscription {
  let matching = 0;
  try {
    matching = countQuery(reader, compileOne(s.collection, s.query));
  } catch {
    // A query the store accepted always compiles; if one did not, it matches nothing here.
  }
  return {
    id: s.id,
    statement: s.statement,
    args: s.args as JsonObject,
    collection: s.collection,
    query: s.query,
    internal: s.isInternal,
    matchingDocuments: matching,
    ...(evictionOverlap === undefined ? {} : { evictionOverlap }),
  };
}

/** The subscriptions that overlap what a strategy evicts, by id, with the fix. */
function overlapsById(ctx: InspectorContext): Map<number, SubscriptionEvictionOverlap> {
  const byId = new Map<number, SubscriptionEvictionOverlap>();
  for (const overlap of evictionOverlaps(ctx.sync.eviction).values()) {
    for (const s of overlap.subscriptions) {
      byId.set(s.subscriptionId, {
        collection: overlap.collection,
        strategy: overlap.strategy,
        message: overlap.message,
        comeBack: s.comeBack,
        narrowed: s.narrowed,
      });
    }
  }
  return byId;
}

export function subscriptionsSnapshot(ctx: InspectorContext): SubscriptionsSnapshot {
  const sync = ctx.sync;
  const store = sync.store;
  const overlaps = overlapsById(ctx);
  return store.readNow((reader) => {
    const everything = (): number => reader.collections().reduce((sum, c) => sum + c.documents, 0);
    return {
      localSet: store.subscriptionSet(),
      local: store.subscriptions.map((s) => local(reader, s, overlaps.get(s.id))),
      remotes: sync.sessions.map((session): RemoteSubscriptions => {
        const set = session.remoteSubscriptions;
        const base = { peerKey: session.remote.peerKey, role: session.remote.role, set };
        if (set === undefined) return { ...base, queries: [], matchingDocuments: 0 };
        const counted = countSet(reader, set, everything);
        return {
          ...base,
          queries: counted.perQuery.map((q) => ({ collection: q.collection, query: q.query, matchingDocuments: q.count })),
          matchingDocuments: counted.total,
        };
      }),
    };
  });
}

export function subscriptionsHandlers(ctx: InspectorContext): SubscriptionsHandlers {
  return {
    'subscriptions:list': async (input) => {
      emptyInput(input);
      return subscriptionsSnapshot(ctx);
    },
    'subscriptions:register': async (input) => {
      const o = objectInput(input, ['statement', 'args']);
      const statement = requiredString(o, 'statement', { maxLength: MAX_STATEMENT_CHARS });
      const args = optionalArgs(o, 'args');
      const store = ctx.sync.store;
      const subscription = store.registerSubscription(statement, args);
      return store.readNow((reader) => local(reader, subscription));
    },
    'subscriptions:cancel': async (input) => {
      const id = requiredInteger(objectInput(input, ['id']), 'id', 1, Number.MAX_SAFE_INTEGER);
      const subscription = ctx.sync.store.subscriptions.find((s) => s.id === id);
      if (subscription === undefined) throw notFound(`id: no live subscription has id ${id}`);
      if (subscription.isInternal)
        throw badRequest(`id: subscription ${id} (${subscription.collection}) is the peer’s own; it cannot be cancelled from the inspector`);
      subscription.cancel();
      return {};
    },
  };
}
