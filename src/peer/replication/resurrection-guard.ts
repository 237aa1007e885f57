/**
 * The resurrection guard (docs/replication.md, "Tombstone reaping and the resurrection guard").
 * A Big Peer removes tombstones older than its TTL (the tombstone reaper) and keeps the horizon
 * of its reaps. A small peer that was away longer holds live copies of documents deleted and
 * reaped meanwhile: no update will ever bring their tombstones. When its progress with the Big
 * Peer predates the horizon, it names the documents it would drop (`reconcile`): those matched
 * by its stale subscriptions that the Big Peer once held in this very state (their last change
 * here is in what the Big Peer acknowledged) and that did not change after the horizon's cut.
 * Those the Big Peer holds neither live nor as a tombstone are evicted here, not uploaded.
 * Whatever changed here after the Big Peer last acknowledged it (offline work) is never named.
 */
import type { JsonValue } from '../../shared/json.ts';
import type { WireReapHorizon } from '../../shared/protocol/messages.ts';
import type { Expr } from '../dql/ast.ts';
import type { StorageReader, StorageWriter } from '../storage/types.ts';
import type { CompiledSubscriptions } from './matching.ts';
import { latestStamp } from './merge-chunk.ts';
import { docKey } from './update-builder.ts';

/** The setting holding this peer's reap horizon (written by the tombstone reaper). */
export const REAP_HORIZON_SETTING = 'tombstones/horizon';
/** The settings holding, per remote, the horizon `upto` this peer last reconciled with. */
const RECONCILED_PREFIX = 'replication/reconciled/';

/** A reap horizon as saved: the wire form, and when (ms) the reap that moved it last ran. */
export interface ReapHorizon extends WireReapHorizon {
  readonly at: number;
}

/** The saved reap horizon, or undefined (never reaped, or unreadable). */
export function readReapHorizon(text: string | undefined): ReapHorizon | undefined {
  if (text === undefined) return undefined;
  try {
    const h = JSON.parse(text) as Partial<ReapHorizon>;
    if (typeof h.before !== 'string' || !/^[0-9a-f]{16}$/.test(h.before) || typeof h.upto !== 'number' || typeof h.at !== 'number') return undefined;
    return { before: h.before, upto: h.upto, at: h.at };
  } catch {
    return undefined;
  }
}

/** The horizon after a reap at `at` with cut `before` that removed tombstones up to txn_id `upto`: never moves back. */
export function advanceHorizon(previous: ReapHorizon | undefined, before: string, upto: number, at: number): ReapHorizon {
  if (previous === undefined) return { before, upto, at };
  return { before: before > previous.before ? before : previous.before, upto: Math.max(upto, previous.upto), at };
}

/** The setting that records a reconcile with `remote` at its horizon's `upto`. */
export function reconciledSetting(remote: string, upto: number): [string, string] {
  return [RECONCILED_PREFIX + remote, String(upto)];
}

/** A document this peer would drop if the remote no longer holds it. */
export interface Candidate {
  readonly collection: string;
  readonly id: JsonValue;
  /** Its last commit here: a document that changed since it was named is kept. */
  readonly txnId: number;
}

/** What the guard asks the remote about; undefined when nothing needs asking (progress at or past the horizon, or reconciled before). */
export interface GuardPlan {
  /** The subscription keys whose progress predates the horizon. */
  readonly stale: readonly string[];
  readonly candidates: readonly Candidate[];
}

export interface GuardInput {
  readonly local: CompiledSubscriptions;
  /** What this peer holds of the remote's store, per query key. */
  readonly progress: Readonly<Record<string, number>>;
  readonly horizon: WireReapHorizon;
  /** Up to which txn_id of this store the remote holds every change (undefined: unknown, nothing is named). */
  readonly remoteHolds: number | undefined;
  readonly remotePeerKey: string;
}

/** Which documents to name, read on one snapshot. */
export function planGuard(reader: StorageReader, input: GuardInput): GuardPlan | undefined {
  const { horizon } = input;
  const reconciled = Number(reader.setting(RECONCILED_PREFIX + input.remotePeerKey));
  if (Number.isFinite(reconciled) && reconciled >= horizon.upto) return undefined;
  const stale = input.local.keys.filter((key) => (input.progress[key] ?? 0) < horizon.upto);
  if (stale.length === 0) return undefined;
  const holds = input.remoteHolds ?? 0;
  const found = new Map<string, Candidate>();
  const consider = (collection: string, where: Expr | undefined): void => {
    for (const doc of reader.findDocuments({ collection, where, params: {}, orderBy: [], limit: undefined, offset: 0 })) {
      // Changed here after the remote last acknowledged it, or after the cut: offline work, kept.
      if (doc.txnId > holds || latestStamp(doc.meta) > horizon.before) continue;
      found.set(docKey(collection, doc.id), { collection, id: doc.id, txnId: doc.txnId });
    }
  };
  if (holds > 0) {
    if (input.local.everything) {
      for (const c of reader.collections()) if (c.documents > 0) consider(c.name, undefined);
    } else {
      const staleKeys = new Set(stale);
      for (const [collection, queries] of input.local.byCollection) {
        for (const q of queries) if (staleKeys.has(q.key)) consider(collection, q.where);
      }
    }
  }
  return { stale, candidates: [...found.values()] };
}

const IDS_PARAM = '__reconcile_ids';
const POS = { offset: 0, line: 1, column: 1 };
const ID_IN: Expr = {
  kind: 'in',
  negated: false,
  needle: { kind: 'path', segments: ['_id'], pos: POS },
  haystack: { kind: 'param', name: IDS_PARAM, pos: POS },
  pos: POS,
};

/**
 * Evicts the named documents the remote no longer holds, each only if it is still live here
 * and unchanged since it was named (same txn_id). Returns how many, by collection.
 */
export function dropAbsent(writer: StorageWriter, absent: readonly Candidate[]): Map<string, number> {
  const byCollection = new Map<string, JsonValue[]>();
  for (const c of absent) {
    const now = writer.get(c.collection, c.id);
    if (now === undefined || now.value === null || now.txnId !== c.txnId) continue;
    byCollection.set(c.collection, [...(byCollection.get(c.collection) ?? []), c.id]);
  }
  const dropped = new Map<string, number>();
  for (const [collection, ids] of byCollection) {
    const removed = writer.evict({ collection, where: ID_IN, params: { [IDS_PARAM]: ids }, orderBy: [], limit: undefined, offset: 0 });
    if (removed.length > 0) dropped.set(collection, removed.length);
  }
  return dropped;
}
