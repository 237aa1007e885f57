/**
 * The messages of a replication session, after the announcement exchange (announce.ts). Every
 * message is one JSON text frame, a union on `type`; `checkSessionMessage` validates a decoded
 * frame where it arrives and names the first fault, so that a malformed frame closes only its
 * session (code 4400) and never reaches the store.
 *
 * A session, either way at once:
 * - `subscription`: the sender's subscription set (spec 2.4) and, per query, the last `txn_id`
 *   of the receiver it already holds (`progress`). Sent first, and again whenever either changes
 *   (a new subscription, an EVICT that dropped documents).
 * - `update`: documents the receiver's subscriptions match and it may read, changed in
 *   (`since_index`, `upto`] of the sender's store, in chunks of bounded size. The last chunk
 *   carries the progress the receiver reaches once it has merged them all.
 *   Documents of a subscribed collection that changed but no longer match are not sent whole:
 *   the chunk names them (`notices`), and a receiver that holds one asks for it (`want`), so
 *   that a change that takes a document out of a subscription (a TTL flag) still reaches the
 *   peers that have it.
 * - `want`: documents the receiver holds and wants the current state of.
 * - `ack`: a chunk was merged (or refused document by document) and committed.
 * - `error`: why the sender is about to close the session.
 * - `reconcile` / `reconciled` (the resurrection guard, docs/replication.md "Tombstone reaping
 *   and the resurrection guard"): a Big Peer that reaped tombstones says so in its subscription
 *   message (`reaped`); a small peer whose progress predates it names the documents it would
 *   drop if the Big Peer no longer had them (`reconcile`), and the Big Peer answers which of
 *   them it holds neither live nor as a tombstone (`reconciled`). Sent only to a peer that sent
 *   `reaped`, so a peer that knows neither never receives them.
 */
import type { JsonObject, JsonValue } from '../json.ts';
import type { SubscriptionQuery, SubscriptionSetShape } from '../subscriptions.ts';
import { errorMessage } from '../error-message.ts';

/** A register's stamp on the wire: hybrid-clock time (16 hex digits) and the writer's peer key. */
export type WireStamp = readonly [string, string];

/** Merge metadata on the wire: the same shape as a stored document's (see src/peer/crdt/document-meta.ts). */
export interface WireMeta {
  readonly c: WireStamp;
  readonly d?: WireStamp;
  readonly f?: Readonly<Record<string, WireStamp>>;
  readonly r?: Readonly<Record<string, WireStamp>>;
  readonly n?: Readonly<Record<string, { readonly s: WireStamp; readonly t: Readonly<Record<string, readonly [number, number]>> }>>;
}

/** One document's state: its value (null for a tombstone) and merge metadata. */
export interface WireDocument {
  readonly collection: string;
  readonly id: JsonValue;
  readonly value: JsonObject | null;
  readonly meta: WireMeta;
}

export interface SubscriptionMessage {
  readonly type: 'subscription';
  readonly set: SubscriptionSetShape;
  /** Grows with each subscription message of the session; updates name the one they serve. */
  readonly version: number;
  /** Per query key (`queryKey`), the sender's store position the receiver has merged up to. */
  readonly progress: Readonly<Record<string, number>>;
  /** Collections the sender holds documents of: changes that leave its subscriptions are noticed there. */
  readonly held?: readonly string[];
  /** A Big Peer that reaped tombstones: the horizon of its reaps (absent: it never reaped). */
  readonly reaped?: WireReapHorizon;
}

/**
 * What a Big Peer's tombstone reaps may have removed: tombstones deleted at or before `before`
 * and committed at or before its `upto`. A receiver that holds its store up to `upto` or later
 * for a query was sent every one of them.
 */
export interface WireReapHorizon {
  /** The deletion-time cut of its reaps: a hybrid-clock time (16 hex digits). */
  readonly before: string;
  /** The sender's txn_id of the last commit of any tombstone it reaped. */
  readonly upto: number;
}

/** Documents the sender holds and would drop if the receiver has neither them nor their tombstones. */
export interface ReconcileMessage {
  readonly type: 'reconcile';
  /** Grows with each reconcile message of the session, from 1; the answer names it. */
  readonly round: number;
  readonly docs: readonly (readonly [string, JsonValue])[];
}

/** The answer to a `reconcile`: those of its documents the sender holds neither live nor as a tombstone. */
export interface ReconciledMessage {
  readonly type: 'reconciled';
  readonly round: number;
  readonly absent: readonly (readonly [string, JsonValue])[];
}

export interface UpdateMessage {
  readonly type: 'update';
  /**
   * Number of the update in this session, from 1, increasing; numbers may be skipped (a Big
   * Peer numbers an update it shares among sessions past each one's last, shared-updates.ts).
   */
  readonly update: number;
  /** Number of the chunk in this update, from 1. */
  readonly chunk: number;
  /** The update covers the sender's commits after this txn_id … */
  readonly since_index: number;
  /** … up to this one. */
  readonly upto: number;
  /** The receiver's subscription version the update was made for. */
  readonly subscription_version: number;
  readonly docs: readonly WireDocument[];
  /** Documents of subscribed collections that changed and no longer match: `[collection, id]`. */
  readonly notices?: readonly (readonly [string, JsonValue])[];
  /** Set on the last chunk: the progress per query key reached once every chunk is merged. */
  readonly progress?: Readonly<Record<string, number>>;
}

export interface WantMessage {
  readonly type: 'want';
  readonly docs: readonly (readonly [string, JsonValue])[];
}

export interface AckMessage {
  readonly type: 'ack';
  readonly update: number;
  readonly chunk: number;
  /** Documents that changed the receiver's store. */
  readonly merged: number;
  /** Documents refused because the sender may not write them. */
  readonly refused: number;
}

export interface ErrorMessage {
  readonly type: 'error';
  readonly code: string;
  readonly message: string;
}

export type SessionMessage = SubscriptionMessage | UpdateMessage | WantMessage | AckMessage | ErrorMessage | ReconcileMessage | ReconciledMessage;

export type MessageCheck = { readonly ok: true; readonly value: SessionMessage } | { readonly ok: false; readonly reason: string };

/** The largest frame a peer sends or accepts. A chunk aims far below it (see the replication docs). */
export const MAX_SESSION_FRAME_BYTES = 16 * 1024 * 1024;
/** The most documents in one chunk. */
export const MAX_CHUNK_DOCS = 1000;
const MAX_NAME = 1024;
/** The largest `_id`, as JSON. */
export const MAX_ID_BYTES = 4096;
const MAX_QUERIES = 10_000;

/** The key of one subscription query, the same on both sides: collection and query, canonical. */
export function queryKey(collection: string, query: SubscriptionQuery): string {
  const q: Record<string, unknown> = { expr: query.expr, order_by: query.order_by };
  if (query.limit !== undefined) q.limit = query.limit;
  if (query.offset !== undefined) q.offset = query.offset;
  return JSON.stringify([collection, q]);
}

/** The key of an `everything` subscription. */
export const EVERYTHING_KEY = '*';

class Fault extends Error {}

function fail(reason: string): never {
  throw new Fault(reason);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (!isRecord(value)) fail(`${where} must be a JSON object`);
  return value;
}

function name(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_NAME) fail(`${where} must be a non-empty string of at most ${MAX_NAME} characters`);
  return value;
}

function count(value: unknown, where: string, min = 0): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) fail(`${where} must be an integer of at least ${min}`);
  return value;
}

function keysOf(value: Record<string, unknown>, where: string): string[] {
  const keys = Object.keys(value);
  if (keys.includes('__proto__')) fail(`${where} may not have the key __proto__`);
  return keys;
}

/** The deepest a document's value or id may nest (as the store allows). */
export const MAX_VALUE_DEPTH = 100;

/**
 * A JSON value from a remote peer, walked without recursion: no `__proto__` key anywhere (it
 * would reach Object.prototype where the value is copied by assignment) and bounded nesting.
 */
function plainJson(value: unknown, where: string): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= MAX_VALUE_DEPTH) fail(`${where} nests deeper than ${MAX_VALUE_DEPTH} levels`);
    if (Array.isArray(node)) {
      for (const child of node) stack.push([child, depth + 1]);
      continue;
    }
    for (const key of Object.keys(node)) {
      if (key === '__proto__') fail(`${where} may not have the key __proto__`);
      stack.push([(node as Record<string, unknown>)[key], depth + 1]);
    }
  }
}

function plainId(id: unknown, where: string): void {
  plainJson(id, where);
  if (JSON.stringify(id).length > MAX_ID_BYTES) fail(`${where} is longer than ${MAX_ID_BYTES} characters as JSON`);
}

function stamp(value: unknown, where: string): WireStamp {
  if (!Array.isArray(value) || value.length !== 2) fail(`${where} must be a stamp [hlc, writer]`);
  const [hlc, writer] = value as unknown[];
  if (typeof hlc !== 'string' || !/^[0-9a-f]{16}$/.test(hlc)) fail(`${where}[0] must be a hybrid clock time of 16 hexadecimal digits`);
  return [hlc, name(writer, `${where}[1]`)];
}

function pathKeyOk(key: string, where: string): void {
  let path: unknown;
  try {
    path = JSON.parse(key);
  } catch {
    fail(`${where} has a key that is not a JSON path: ${JSON.stringify(key.slice(0, 80))}`);
  }
  if (!Array.isArray(path) || path.length === 0 || !path.every((s) => typeof s === 'string' || (typeof s === 'number' && Number.isSafeInteger(s) && s >= 0))) {
    fail(`${where} has a key that is not a JSON path: ${JSON.stringify(key.slice(0, 80))}`);
  }
  if (path.includes('__proto__')) fail(`${where} has a path through __proto__`);
  if (path.length > MAX_VALUE_DEPTH) fail(`${where} has a path deeper than ${MAX_VALUE_DEPTH} levels`);
}

function stampMap(value: unknown, where: string): Record<string, WireStamp> {
  const map = record(value, where);
  const out: Record<string, WireStamp> = {};
  for (const key of keysOf(map, where)) {
    pathKeyOk(key, where);
    out[key] = stamp(map[key], `${where}[${JSON.stringify(key)}]`);
  }
  return out;
}

function meta(value: unknown, where: string): WireMeta {
  const m = record(value, where);
  const out: { c: WireStamp; d?: WireStamp; f?: Record<string, WireStamp>; r?: Record<string, WireStamp>; n?: WireMeta['n'] } = { c: stamp(m.c, `${where}.c`) };
  if (m.d !== undefined) out.d = stamp(m.d, `${where}.d`);
  if (m.f !== undefined) out.f = stampMap(m.f, `${where}.f`);
  if (m.r !== undefined) out.r = stampMap(m.r, `${where}.r`);
  if (m.n !== undefined) {
    const counters = record(m.n, `${where}.n`);
    const n: Record<string, { s: WireStamp; t: Record<string, readonly [number, number]> }> = {};
    for (const key of keysOf(counters, `${where}.n`)) {
      pathKeyOk(key, `${where}.n`);
      const counter = record(counters[key], `${where}.n[${JSON.stringify(key)}]`);
      const tallies = record(counter.t, `${where}.n[${JSON.stringify(key)}].t`);
      const t: Record<string, readonly [number, number]> = {};
      for (const writer of keysOf(tallies, `${where}.n.t`)) {
        const pair = tallies[writer];
        if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0)) {
          fail(`${where}.n[${JSON.stringify(key)}].t.${writer} must be [increments, decrements], two finite numbers of at least 0`);
        }
        t[name(writer, `${where}.n.t writer`)] = [pair[0] as number, pair[1] as number];
      }
      n[key] = { s: stamp(counter.s, `${where}.n[${JSON.stringify(key)}].s`), t };
    }
    out.n = n;
  }
  for (const key of Object.keys(m)) if (!['c', 'd', 'f', 'r', 'n'].includes(key)) fail(`${where} has an unknown field ${JSON.stringify(key)}`);
  return out;
}

function wireDocument(value: unknown, where: string): WireDocument {
  const d = record(value, where);
  const collection = name(d.collection, `${where}.collection`);
  if (!Object.hasOwn(d, 'id') || d.id === null || d.id === undefined) fail(`${where}.id is missing`);
  const id = d.id as JsonValue;
  plainId(id, `${where}.id`);
  let docValue: JsonObject | null = null;
  if (d.value !== null) {
    docValue = record(d.value, `${where}.value`) as JsonObject;
    plainJson(docValue, `${where}.value`);
    if (JSON.stringify(docValue._id) !== JSON.stringify(id)) fail(`${where}.value._id must equal ${where}.id`);
  }
  return { collection, id, value: docValue, meta: meta(d.meta, `${where}.meta`) };
}

function docRefs(value: unknown, where: string): (readonly [string, JsonValue])[] {
  if (!Array.isArray(value)) fail(`${where} must be a list of [collection, id]`);
  if (value.length > MAX_CHUNK_DOCS) fail(`${where} has more than ${MAX_CHUNK_DOCS} entries`);
  return value.map((ref, i) => {
    if (!Array.isArray(ref) || ref.length !== 2 || ref[1] === null || ref[1] === undefined) fail(`${where}[${i}] must be [collection, id]`);
    plainId(ref[1], `${where}[${i}][1]`);
    return [name(ref[0], `${where}[${i}][0]`), ref[1] as JsonValue] as const;
  });
}

function names(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.length > MAX_QUERIES) fail(`${where} must be a list of at most ${MAX_QUERIES} collection names`);
  return value.map((v, i) => name(v, `${where}[${i}]`));
}

function progress(value: unknown, where: string): Record<string, number> {
  const map = record(value, where);
  const keys = keysOf(map, where);
  if (keys.length > MAX_QUERIES) fail(`${where} has more than ${MAX_QUERIES} entries`);
  const out: Record<string, number> = {};
  for (const key of keys) out[key] = count(map[key], `${where}[${JSON.stringify(key.slice(0, 80))}]`);
  return out;
}

function reapHorizon(value: unknown, where: string): WireReapHorizon {
  const h = record(value, where);
  if (typeof h.before !== 'string' || !/^[0-9a-f]{16}$/.test(h.before)) fail(`${where}.before must be a hybrid clock time of 16 hexadecimal digits`);
  return { before: h.before, upto: count(h.upto, `${where}.upto`) };
}

function subscriptionQuery(value: unknown, where: string): SubscriptionQuery {
  const q = record(value, where);
  if (typeof q.expr !== 'string' || q.expr === '' || q.expr.length > 64 * 1024) fail(`${where}.expr must be a non-empty DQL condition`);
  if (!Array.isArray(q.order_by) || !q.order_by.every((o) => typeof o === 'string')) fail(`${where}.order_by must be a list of strings`);
  const out: { expr: string; order_by: string[]; limit?: number; offset?: number } = { expr: q.expr, order_by: q.order_by as string[] };
  if (q.limit !== undefined) out.limit = count(q.limit, `${where}.limit`);
  if (q.offset !== undefined) out.offset = count(q.offset, `${where}.offset`);
  return out;
}

function subscriptionSet(value: unknown, where: string): SubscriptionSetShape {
  const s = record(value, where);
  if (typeof s.everything !== 'boolean') fail(`${where}.everything must be true or false`);
  const queries = record(s.queries, `${where}.queries`);
  const out: Record<string, SubscriptionQuery[]> = {};
  let total = 0;
  for (const collection of keysOf(queries, `${where}.queries`)) {
    name(collection, `${where}.queries key`);
    const list = queries[collection];
    if (!Array.isArray(list)) fail(`${where}.queries.${collection} must be a list of queries`);
    total += list.length;
    if (total > MAX_QUERIES) fail(`${where} has more than ${MAX_QUERIES} queries`);
    out[collection] = list.map((q, i) => subscriptionQuery(q, `${where}.queries.${collection}[${i}]`));
  }
  return { everything: s.everything, queries: out };
}

function parse(value: unknown): SessionMessage {
  const m = record(value, 'the message');
  switch (m.type) {
    case 'subscription':
      return {
        type: 'subscription',
        set: subscriptionSet(m.set, 'subscription.set'),
        version: count(m.version, 'subscription.version', 1),
        progress: progress(m.progress, 'subscription.progress'),
        ...(m.held === undefined ? {} : { held: names(m.held, 'subscription.held') }),
        ...(m.reaped === undefined ? {} : { reaped: reapHorizon(m.reaped, 'subscription.reaped') }),
      };
    case 'update': {
      if (!Array.isArray(m.docs)) fail('update.docs must be a list of documents');
      if (m.docs.length > MAX_CHUNK_DOCS) fail(`update.docs has more than ${MAX_CHUNK_DOCS} documents`);
      const since = count(m.since_index, 'update.since_index');
      const upto = count(m.upto, 'update.upto');
      if (upto < since) fail('update.upto must not be below update.since_index');
      const update: UpdateMessage = {
        type: 'update',
        update: count(m.update, 'update.update', 1),
        chunk: count(m.chunk, 'update.chunk', 1),
        since_index: since,
        upto,
        subscription_version: count(m.subscription_version, 'update.subscription_version'),
        docs: m.docs.map((d, i) => wireDocument(d, `update.docs[${i}]`)),
        ...(m.notices === undefined ? {} : { notices: docRefs(m.notices, 'update.notices') }),
        ...(m.progress === undefined ? {} : { progress: progress(m.progress, 'update.progress') }),
      };
      return update;
    }
    case 'want':
      return { type: 'want', docs: docRefs(m.docs, 'want.docs') };
    case 'reconcile':
      return { type: 'reconcile', round: count(m.round, 'reconcile.round', 1), docs: docRefs(m.docs, 'reconcile.docs') };
    case 'reconciled':
      return { type: 'reconciled', round: count(m.round, 'reconciled.round', 1), absent: docRefs(m.absent, 'reconciled.absent') };
    case 'ack':
      return {
        type: 'ack',
        update: count(m.update, 'ack.update', 1),
        chunk: count(m.chunk, 'ack.chunk', 1),
        merged: count(m.merged, 'ack.merged'),
        refused: count(m.refused, 'ack.refused'),
      };
    case 'error':
      return { type: 'error', code: name(m.code, 'error.code'), message: typeof m.message === 'string' ? m.message.slice(0, 4096) : '' };
    default:
      return fail(`unknown message type ${JSON.stringify(m.type)}`);
  }
}

/** Validates a decoded frame of a running session; the reason names the first fault. */
export function checkSessionMessage(value: unknown): MessageCheck {
  try {
    return { ok: true, value: parse(value) };
  } catch (error) {
    // A Fault names the problem; anything else (a value that defeats a check) is malformed too.
    return { ok: false, reason: error instanceof Fault ? error.message : `the message cannot be checked: ${errorMessage(error)}` };
  }
}

/** Decodes and validates one frame's text. */
export function decodeSessionFrame(text: string): MessageCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the frame is not JSON' };
  }
  return checkSessionMessage(value);
}
