/**
 * The peer's sync subscriptions: which documents it asks other peers for. Replication reads
 * this set; here it is registered, listed, cancelled and printed in the spec's shape. Every
 * peer is subscribed to `__presence` from the start.
 */
import type { JsonValue } from '../../shared/json.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import type { SubscriptionQuery, SubscriptionSetShape } from '../../shared/subscriptions.ts';
import type { SelectStatement } from '../dql/ast.ts';
import type { Params } from '../dql/evaluate.ts';
import { checkLikePatterns } from '../dql/like.ts';
import { printExpr, printOrderBy } from '../dql/print.ts';
import { UnsupportedQueryError } from '../errors.ts';
import type { Logger } from '../log/log-hub.ts';
import type { PreparedStatement } from '../query/prepare.ts';
import { countOf } from '../query/select.ts';

/** A live sync subscription: `cancel()` (or `stop()`) it when its documents are no longer needed. */
export interface SyncSubscription {
  readonly id: number;
  readonly statement: string;
  readonly args: Params;
  readonly collection: string;
  readonly query: SubscriptionQuery;
  /** Registered by the peer itself (such as `__presence`), not by the application. */
  readonly isInternal: boolean;
  readonly isCancelled: boolean;
  cancel(): void;
  stop(): void;
}

export class SubscriptionSet {
  readonly #log: Logger;
  readonly #live = new Map<number, SyncSubscription>();
  readonly #listeners: (() => void)[] = [];
  /** Turns one subscription's cancellation silent (used when the whole peer closes). */
  readonly #quiet = new Map<number, () => void>();
  #nextId = 1;

  constructor(logger: Logger) {
    this.#log = logger;
  }

  /**
   * Registers a subscription. It takes `SELECT * FROM <collection> [WHERE …] [ORDER BY …]
   * [LIMIT …] [OFFSET …]`: a subscription asks for documents, whole.
   */
  register(prepared: PreparedStatement, params: Params, isInternal = false, notify = true): SyncSubscription {
    const ast = prepared.ast;
    if (ast.kind !== 'select') {
      throw new UnsupportedQueryError(`a subscription takes a SELECT, not ${ast.kind.toUpperCase()}`, { statement: prepared.text });
    }
    if (prepared.grouped || ast.distinct || ast.projections.length !== 1 || ast.projections[0]?.kind !== 'star') {
      throw new UnsupportedQueryError(
        'a subscription takes SELECT * FROM <collection> [WHERE …] [ORDER BY …] [LIMIT …]: documents, whole, not projections or aggregates',
        {
          statement: prepared.text,
        },
      );
    }
    checkLikePatterns(ast.where, params);
    const query = toQuery(ast, params);
    let cancelled = false;
    let quiet = false;
    const subscription: SyncSubscription = {
      id: this.#nextId++,
      statement: prepared.text,
      args: params,
      collection: ast.collection,
      query,
      isInternal,
      get isCancelled() {
        return cancelled;
      },
      cancel: () => {
        if (cancelled) return;
        cancelled = true;
        this.#live.delete(subscription.id);
        this.#quiet.delete(subscription.id);
        if (!quiet) this.#changed();
      },
      stop() {
        subscription.cancel();
      },
    };
    this.#live.set(subscription.id, subscription);
    this.#quiet.set(subscription.id, () => (quiet = true));
    if (notify) this.#changed();
    return subscription;
  }

  /** The live subscriptions, oldest first. */
  list(): SyncSubscription[] {
    return [...this.#live.values()];
  }

  /** The set in the spec's shape: queries by collection, each query once. */
  toShape(): SubscriptionSetShape {
    const queries: Record<string, SubscriptionQuery[]> = {};
    for (const s of this.#live.values()) {
      const list = (queries[s.collection] ??= []);
      if (!list.some((q) => JSON.stringify(q) === JSON.stringify(s.query))) list.push(s.query);
    }
    return { everything: false, queries };
  }

  /** Called whenever the set changes (replication will resend it). */
  onChange(listener: () => void): () => void {
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  /** Cancels every subscription, quietly: the peer is closing, nothing is left to notify. */
  close(): void {
    for (const s of this.list()) {
      this.#quiet.get(s.id)?.();
      s.cancel();
    }
    this.#quiet.clear();
  }

  #changed(): void {
    this.#log.debug(LOG_EVENTS.localSubscriptionChanged, { subscriptions: this.#live.size });
    for (const listener of this.#listeners) listener();
  }
}

/** A subscription's query in the spec's shape (parameters printed as their values). */
export function toQuery(ast: SelectStatement, params: Params): SubscriptionQuery {
  const limit = countOf(ast.limit, 'LIMIT', params);
  const offset = countOf(ast.offset, 'OFFSET', params);
  const query: { expr: string; order_by: string[]; limit?: number; offset?: number } = {
    expr: ast.where === undefined ? 'true' : printExpr(ast.where, params as Readonly<Record<string, JsonValue>>),
    order_by: printOrderBy(ast.orderBy, params),
  };
  if (limit !== undefined) query.limit = limit;
  if (offset !== undefined) query.offset = offset;
  return query;
}
