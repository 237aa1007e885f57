/**
 * Subscriptions and permission rules of a remote peer, compiled for checking documents one by
 * one: which documents a subscription asks for, which a peer may read, which it may write.
 * Conditions arrive as DQL text (arguments already bound) and are parsed once per change.
 */
import type { JsonObject } from '../../shared/json.ts';
import { READABLE_BY_EVERY_PEER, type PermissionRules } from '../../shared/permissions.ts';
import { EVERYTHING_KEY, queryKey } from '../../shared/protocol/messages.ts';
import type { SubscriptionQuery, SubscriptionSetShape } from '../../shared/subscriptions.ts';
import type { Expr, OrderTerm } from '../dql/ast.ts';
import { matches } from '../dql/evaluate.ts';
import { parseCondition, parseStatement } from '../dql/parser.ts';
import type { DocumentQuery } from '../storage/types.ts';

export interface CompiledQuery {
  readonly key: string;
  readonly collection: string;
  readonly query: SubscriptionQuery;
  readonly where: Expr | undefined;
  readonly orderBy: readonly OrderTerm[];
  /** A query with LIMIT or OFFSET asks for a window of its matches, not each match. */
  readonly windowed: boolean;
}

export interface CompiledSubscriptions {
  readonly everything: boolean;
  /** Queries by collection (none when `everything`). */
  readonly byCollection: ReadonlyMap<string, readonly CompiledQuery[]>;
  /** Every query key, `*` for everything. */
  readonly keys: readonly string[];
}

function compileQuery(collection: string, query: SubscriptionQuery): CompiledQuery {
  const where = query.expr.trim() === 'true' ? undefined : parseCondition(query.expr);
  let orderBy: readonly OrderTerm[] = [];
  if (query.order_by.length > 0) {
    const parsed = parseStatement(`SELECT * FROM c ORDER BY ${query.order_by.join(', ')}`);
    if (parsed.kind === 'select') orderBy = parsed.orderBy;
  }
  return { key: queryKey(collection, query), collection, query, where, orderBy, windowed: query.limit !== undefined || query.offset !== undefined };
}

/** Compiles a subscription set; throws a ParseError for a condition that does not parse. */
export function compileSubscriptions(set: SubscriptionSetShape): CompiledSubscriptions {
  if (set.everything) return { everything: true, byCollection: new Map(), keys: [EVERYTHING_KEY] };
  const byCollection = new Map<string, CompiledQuery[]>();
  const keys: string[] = [];
  for (const [collection, queries] of Object.entries(set.queries)) {
    const list: CompiledQuery[] = [];
    for (const q of queries) {
      const compiled = compileQuery(collection, q);
      if (keys.includes(compiled.key)) continue;
      keys.push(compiled.key);
      list.push(compiled);
    }
    if (list.length > 0) byCollection.set(collection, list);
  }
  return { everything: false, byCollection, keys };
}

/** The storage query of a windowed subscription (its current window of documents). */
export function windowQuery(q: CompiledQuery): DocumentQuery {
  return { collection: q.collection, where: q.where, params: {}, orderBy: q.orderBy, limit: q.query.limit, offset: q.query.offset ?? 0 };
}

/** Does the condition hold for the document? A condition that fails to evaluate does not. */
export function safeMatches(where: Expr | undefined, value: JsonObject): boolean {
  if (where === undefined) return true;
  try {
    return matches(where, value, {});
  } catch {
    return false;
  }
}

export interface CompiledRules {
  readonly everything: boolean;
  /** Conditions by collection; `undefined` entries are whole collections (`true`). */
  readonly byCollection: ReadonlyMap<string, readonly (Expr | undefined)[]>;
}

/** Compiles permission rules; a rule that does not parse allows nothing (and is reported). */
export function compileRules(rules: PermissionRules, onBadRule: (collection: string, rule: string, error: unknown) => void = () => {}): CompiledRules {
  const byCollection = new Map<string, (Expr | undefined)[]>();
  for (const [collection, list] of Object.entries(rules.queries_by_collection)) {
    const compiled: (Expr | undefined)[] = [];
    for (const rule of list) {
      try {
        compiled.push(rule.trim() === 'true' ? undefined : parseCondition(rule));
      } catch (error) {
        onBadRule(collection, rule, error);
      }
    }
    if (compiled.length > 0) byCollection.set(collection, compiled);
  }
  return { everything: rules.everything, byCollection };
}

/**
 * Compiles a peer's read rules: its rules, and the internal collections every authenticated
 * peer of the app may read whole (READABLE_BY_EVERY_PEER: `__presence`), whatever they say.
 */
export function compileReadRules(rules: PermissionRules, onBadRule?: (collection: string, rule: string, error: unknown) => void): CompiledRules {
  const compiled = compileRules(rules, onBadRule);
  if (compiled.everything) return compiled;
  const byCollection = new Map(compiled.byCollection);
  for (const collection of READABLE_BY_EVERY_PEER) byCollection.set(collection, [undefined]);
  return { everything: false, byCollection };
}

/** May the rules' holder see anything of the collection at all? */
export function coversCollection(rules: CompiledRules, collection: string): boolean {
  return rules.everything || rules.byCollection.has(collection);
}

/**
 * Do the rules allow the document? A tombstone (null) is allowed where the collection is
 * covered at all: it carries no field a rule could test.
 */
export function allowsDocument(rules: CompiledRules, collection: string, value: JsonObject | null): boolean {
  if (rules.everything) return true;
  const conditions = rules.byCollection.get(collection);
  if (conditions === undefined) return false;
  if (value === null) return true;
  return conditions.some((where) => safeMatches(where, value));
}
