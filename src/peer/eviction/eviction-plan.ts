/**
 * What one run of a strategy will do, worked out from the store and the subscriptions before
 * anything changes: the EVICT, the subscriptions to cancel first and those to register after,
 * the documents it evicts, those it keeps, those that would come back, and whether it must be
 * refused. The manager (eviction-manager.ts) runs a plan; a dry run shows one.
 */
import type { JsonValue } from '../../shared/json.ts';
import type { Expr } from '../dql/ast.ts';
import { toParams } from '../query/args.ts';
import { prepare } from '../query/prepare.ts';
import { documentQueryOf } from '../query/select.ts';
import type { DocumentQuery, StorageReader, StoredDocument } from '../storage/types.ts';
import type { SyncSubscription } from '../subscriptions/subscription-set.ts';
import { countComeBack, type EvictionOverlap } from '../store/eviction-watch.ts';
import { conditionsOverlap } from './query-overlap.ts';
import { DRY_RUN_IDS, type EvictionRefusalCode, type EvictionStrategyConfig, type LocalStrategyConfig, type OverlappingSubscription } from './types.ts';

const HOUR_MS = 3_600_000;

/** A name in DQL, quoted. */
export const quoteName = (n: string): string => `\`${n.replaceAll('`', '``')}\``;

/** The Big Peer strategy's subscription and EVICT for a collection (spec 3.1). */
export function bigPeerStatements(collection: string): { subscribe: string; evict: string } {
  return {
    subscribe: `SELECT * FROM ${quoteName(collection)} WHERE evictionFlag == false`,
    evict: `EVICT FROM ${quoteName(collection)} WHERE evictionFlag = true`,
  };
}

/** The local strategy's EVICT and subscription conditions (each uses `:ttl`). */
export function localConditions(config: LocalStrategyConfig): { evictWhere: string; subscribeWhere: string } {
  const field = quoteName(config.field ?? 'createdAt');
  return { evictWhere: config.evictWhere ?? `${field} <= :ttl`, subscribeWhere: config.subscribeWhere ?? `${field} > :ttl` };
}

/** The local strategy's TTL cut-off at `now`: documents at or before it are evicted. */
export function localTtl(config: LocalStrategyConfig, now: number): string {
  return new Date(now - config.ttlHours * HOUR_MS).toISOString();
}

/** A subscription to register after the EVICT. */
export interface PlannedSubscription {
  readonly statement: string;
  readonly args: Record<string, JsonValue>;
  /** The condition it narrows (an application subscription's, the TTL left out), kept for the next run. */
  readonly base: BaseQuery | undefined;
  /** The cancelled subscriptions it replaces (ids): what this peer held of theirs, it holds of this one. */
  readonly replaces: readonly SyncSubscription[];
}

/** An application subscription's query without the strategy's TTL condition. */
export interface BaseQuery {
  readonly expr: string;
  readonly orderBy: readonly string[];
  readonly limit: number | undefined;
  readonly offset: number | undefined;
}

export interface EvictionPlan {
  readonly config: EvictionStrategyConfig;
  readonly ttl: string | undefined;
  readonly evictStatement: string;
  readonly evictArgs: Record<string, JsonValue>;
  readonly query: DocumentQuery;
  /** The subscription in place after the run (the first registered, or the Big Peer strategy's own). */
  readonly subscribeStatement: string;
  readonly cancel: readonly SyncSubscription[];
  readonly register: readonly PlannedSubscription[];
  /** Live documents the EVICT selects, split: evicted, or kept (Big Peer: not yet acknowledged). */
  readonly evictIds: readonly JsonValue[];
  readonly keptIds: readonly JsonValue[];
  /** Subscriptions left after the run that match evicted documents. */
  readonly comeBack: readonly EvictionOverlap[];
  /** Big Peer strategy: the application subscriptions behind an `eviction/overlap` refusal, each with its narrowed form. */
  readonly overlapping: readonly OverlappingSubscription[];
  /** Local strategy whose own pair overlaps: the subscription condition that would not. */
  readonly suggestedSubscribeWhere: string | undefined;
  readonly refusal: { readonly code: EvictionRefusalCode; readonly message: string } | undefined;
}

export interface PlanInput {
  readonly config: EvictionStrategyConfig;
  readonly now: number;
  /** The local strategy's cut-off instead of now − ttlHours. */
  readonly ttl?: string;
  /** The application's live subscriptions (the peer's own left out by the caller or here). */
  readonly subscriptions: readonly SyncSubscription[];
  /** Subscriptions the strategy registered itself, with the application query each narrows. */
  readonly owned: ReadonlyMap<number, BaseQuery | undefined>;
  /** Big Peer strategy: up to which txn_id the Big Peer holds every change of this store. */
  readonly bigPeerHolds: number | undefined;
  /**
   * Only whether the run would be refused for an overlap, and why (the inspector's overlap flag):
   * when the conditions decide it, no document is read, and the plan's documents, counts,
   * cancellations and registrations are left empty. When they do not, the plan is worked out whole.
   */
  readonly overlapOnly?: boolean;
}

/** The WHERE condition of a statement (undefined: none). */
function whereOf(statement: string): Expr | undefined {
  const ast = prepare(statement).ast;
  return ast.kind === 'select' || ast.kind === 'evict' ? ast.where : undefined;
}

const ids = (docs: readonly StoredDocument[]): JsonValue[] => docs.map((d) => d.id);

function baseOf(sub: SyncSubscription): BaseQuery {
  return { expr: sub.query.expr, orderBy: sub.query.order_by, limit: sub.query.limit, offset: sub.query.offset };
}

/** The text in parentheses, unless one pair already encloses all of it. */
function wrapped(text: string): string {
  if (text.startsWith('(') && text.endsWith(')')) {
    let depth = 0;
    let quote: string | undefined;
    for (let i = 0; i < text.length; i++) {
      const c = text[i] as string;
      if (quote !== undefined) {
        if (c === quote) quote = undefined;
        continue;
      }
      if (c === "'" || c === '"' || c === '`') quote = c;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0 && i < text.length - 1) return `(${text})`;
    }
    return text;
  }
  return `(${text})`;
}

/** `SELECT * FROM c WHERE (<base>) AND (<cond>) [ORDER BY …] [LIMIT …] [OFFSET …]`. */
function narrowed(collection: string, base: BaseQuery | undefined, condition: string): string {
  const where = base === undefined || base.expr === 'true' ? condition : `${wrapped(base.expr)} AND (${condition})`;
  let text = `SELECT * FROM ${quoteName(collection)} WHERE ${where}`;
  if (base !== undefined && base.orderBy.length > 0) text += ` ORDER BY ${base.orderBy.join(', ')}`;
  if (base?.limit !== undefined) text += ` LIMIT ${base.limit}`;
  if (base?.offset !== undefined) text += ` OFFSET ${base.offset}`;
  return text;
}

/** Works out a run on a snapshot of committed data. Throws a typed error for a malformed condition. */
export function planEviction(reader: StorageReader, input: PlanInput): EvictionPlan {
  return input.config.kind === 'big-peer' ? planBigPeer(reader, input) : planLocal(reader, input, input.config);
}

function planBigPeer(reader: StorageReader, input: PlanInput): EvictionPlan {
  const { collection } = input.config;
  const statements = bigPeerStatements(collection);
  const evictAst = prepare(statements.evict).ast;
  if (evictAst.kind !== 'evict') throw new Error('unreachable');
  const query = documentQueryOf(evictAst, {});
  // Application subscriptions of the collection other than the strategy's own that select
  // flagged documents: with them the evicted documents come back, run after run.
  const others = input.subscriptions.filter((s) => s.collection === collection && !input.owned.has(s.id));
  const verdicts = others.map((s) => ({ sub: s, kind: conditionsOverlap(whereOf(s.statement), s.args, evictAst.where, {}).kind }));
  // The conditions decide every verdict: an overlap check needs no document.
  const flagged = input.overlapOnly === true && verdicts.every((v) => v.kind !== 'unknown') ? [] : reader.findDocuments(query);
  const holds = input.bigPeerHolds ?? 0;
  const evictDocs = flagged.filter((d) => d.txnId <= holds);
  const kept = flagged.filter((d) => d.txnId > holds);
  const evictedKeys = new Set(evictDocs.map((d) => JSON.stringify(d.id)));
  const comeBack = countComeBack(
    reader,
    verdicts.filter((v) => v.kind !== 'disjoint').map((v) => v.sub),
    evictedKeys,
  );
  const statically = verdicts.filter((v) => v.kind === 'overlap').map((v) => v.sub);
  const culprits = [...new Set([...statically.map((s) => s.statement), ...comeBack.map((o) => o.statement)])];
  const comeBackIds = new Set(comeBack.map((o) => o.subscriptionId));
  // Each culprit, with the fix the refusal names: its own condition AND evictionFlag == false.
  const overlapping: OverlappingSubscription[] = others
    .filter((s) => statically.includes(s) || comeBackIds.has(s.id))
    .map((s) => ({
      subscriptionId: s.id,
      statement: s.statement,
      comeBack: comeBack.find((o) => o.subscriptionId === s.id)?.comeBack ?? 0,
      narrowed: narrowed(collection, baseOf(s), 'evictionFlag == false'),
    }));
  const refusal =
    culprits.length === 0
      ? undefined
      : {
          code: 'eviction/overlap' as const,
          message: `the subscription${culprits.length === 1 ? '' : 's'} ${culprits.join(' | ')} of ${collection} select${culprits.length === 1 ? 's' : ''} flagged documents, which would come back after the EVICT; add AND evictionFlag == false to ${culprits.length === 1 ? 'it' : 'them'}, as the strategy's own subscription (${statements.subscribe}) does`,
        };
  return {
    config: input.config,
    ttl: undefined,
    evictStatement: statements.evict,
    evictArgs: {},
    query,
    subscribeStatement: statements.subscribe,
    cancel: [],
    register: [],
    evictIds: ids(evictDocs),
    keptIds: ids(kept),
    comeBack,
    overlapping,
    suggestedSubscribeWhere: undefined,
    refusal,
  };
}

function planLocal(reader: StorageReader, input: PlanInput, config: LocalStrategyConfig): EvictionPlan {
  const { collection } = config;
  const ttl = input.ttl ?? localTtl(config, input.now);
  const args = { ttl };
  const params = toParams(args);
  const { evictWhere, subscribeWhere } = localConditions(config);
  const evictStatement = `EVICT FROM ${quoteName(collection)} WHERE ${evictWhere}`;
  const evictAst = prepare(evictStatement).ast;
  if (evictAst.kind !== 'evict') throw new Error('unreachable');
  const query = documentQueryOf(evictAst, params);

  // The EVICT and the complementary subscription must not overlap (spec 3.2): decided from the
  // conditions when they have the usual shape, else from the documents stored now.
  let refusal: EvictionPlan['refusal'];
  const subscribeAst = prepare(narrowed(collection, undefined, subscribeWhere)).ast;
  const verdict = conditionsOverlap(evictAst.where, params, subscribeAst.kind === 'select' ? subscribeAst.where : undefined, params);
  if (verdict.kind === 'overlap') {
    refusal = {
      code: 'eviction/overlap',
      message: `the EVICT (${evictWhere}) and the subscription after it (${subscribeWhere}) overlap with ttl = ${ttl}: ${verdict.explanation}; those documents would be evicted and come straight back. Make the subscription the opposite of the EVICT, such as <field> <= :ttl against <field> > :ttl`,
    };
  }
  // The opposite of the EVICT's condition never overlaps it.
  const suggestedSubscribeWhere = (found: EvictionPlan['refusal']): string | undefined => (found === undefined ? undefined : `NOT (${evictWhere})`);
  if (input.overlapOnly === true && verdict.kind !== 'unknown') {
    // The conditions decided it: no document is read for an overlap check.
    const none = { evictIds: [], keptIds: [], cancel: [], register: [], comeBack: [], overlapping: [] };
    return {
      config,
      ttl,
      evictStatement,
      evictArgs: args,
      query,
      subscribeStatement: narrowed(collection, undefined, subscribeWhere),
      ...none,
      suggestedSubscribeWhere: suggestedSubscribeWhere(refusal),
      refusal,
    };
  }
  const evictDocs = reader.findDocuments(query);
  const evictedKeys = new Set(evictDocs.map((d) => JSON.stringify(d.id)));

  // Step 1 cancels the application subscriptions the EVICT may affect: those that select
  // documents it evicts now, or could (their condition overlaps the EVICT's), and the ones the
  // strategy registered last time. Each comes back narrowed to the new TTL (step 3).
  const mine = input.subscriptions.filter((s) => s.collection === collection);
  const cancel = mine.filter((s) => {
    if (input.owned.has(s.id)) return true;
    const verdict = conditionsOverlap(whereOf(s.statement), s.args, evictAst.where, params);
    if (verdict.kind === 'overlap') return true;
    if (verdict.kind === 'disjoint') return false;
    return countComeBack(reader, [s], evictedKeys).length > 0;
  });
  const bases = new Map<string, { base: BaseQuery | undefined; replaces: SyncSubscription[] }>();
  for (const s of cancel) {
    const base = input.owned.has(s.id) ? input.owned.get(s.id) : baseOf(s);
    const statement = narrowed(collection, base, subscribeWhere);
    const entry = bases.get(statement);
    if (entry === undefined) bases.set(statement, { base, replaces: [s] });
    else entry.replaces.push(s);
  }
  if (bases.size === 0) bases.set(narrowed(collection, undefined, subscribeWhere), { base: undefined, replaces: [] });
  const register: PlannedSubscription[] = [...bases].map(([statement, { base, replaces }]) => ({ statement, args, base, replaces }));

  const left = mine.filter((s) => !cancel.includes(s));
  const afterRun = [...left, ...register.map((r, i) => ({ id: -1 - i, statement: r.statement, args: toParams(r.args) }))];
  const comeBack = countComeBack(reader, afterRun, evictedKeys);
  if (refusal === undefined && verdict.kind === 'unknown') {
    const fromNew = comeBack.filter((o) => o.subscriptionId < 0);
    if (fromNew.length > 0) {
      refusal = {
        code: 'eviction/overlap',
        message: `the EVICT (${evictWhere}) and the subscription after it (${subscribeWhere}) both select ${fromNew[0]?.comeBack ?? 0} stored document(s) with ttl = ${ttl}; they would be evicted and come straight back`,
      };
    }
  }
  return {
    config,
    ttl,
    evictStatement,
    evictArgs: args,
    query,
    subscribeStatement: register[0]?.statement ?? '',
    cancel,
    register,
    evictIds: ids(evictDocs),
    keptIds: [],
    comeBack,
    overlapping: [],
    suggestedSubscribeWhere: suggestedSubscribeWhere(refusal),
    refusal,
  };
}

/** The first ids of a list, for dry runs and logs. */
export const firstIds = (list: readonly JsonValue[]): JsonValue[] => list.slice(0, DRY_RUN_IDS);
