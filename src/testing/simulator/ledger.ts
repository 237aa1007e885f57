/**
 * What the peers committed, kept to check at the end that nothing acknowledged was lost:
 * - every user write, as the document's whole state (value and merge metadata) right after its
 *   commit: the Big Peer must end up containing it (merging it into the Big Peer's state changes
 *   nothing), whatever was written after it;
 * - every counter increment, as the change of the writer's own tally: the Big Peer's counter must
 *   read the sum of them.
 * A write is *certain* once committed (stores are durable across crashes), unless its peer lost
 * it before the Big Peer acknowledged it: an EVICT of the document, or a wipe of the store,
 * while the Big Peer's acknowledged `txn_id` (`pendingUpload.acknowledgedUpTo`) was below it.
 * Uncertain writes may or may not survive; certain ones must.
 */
import type { JsonValue } from '../../shared/json.ts';
import { pathKey } from '../../peer/crdt/document-meta.ts';
import type { DocumentState } from '../../peer/crdt/merge.ts';
import { docKey } from '../../peer/replication/update-builder.ts';
import { isInternalCollection, type CommittedTransaction } from '../../peer/store/store.ts';

export const COUNTER_COLLECTION = 'counters';
export const COUNTER_FIELD = 'n';
const COUNTER_PATH = pathKey([COUNTER_FIELD]);

export interface WriteRecord {
  readonly peer: string;
  readonly identity: number;
  readonly txnId: number;
  readonly step: number;
  readonly collection: string;
  readonly id: JsonValue;
  readonly state: DocumentState;
  certain: boolean;
}

export interface Increment {
  readonly peer: string;
  readonly identity: number;
  readonly txnId: number;
  readonly step: number;
  readonly id: JsonValue;
  readonly inc: number;
  readonly dec: number;
  certain: boolean;
}

/** The committing peer as the ledger sees it. */
export interface LedgerPeer {
  readonly name: string;
  readonly identity: number;
  readonly peerKey: string;
  get(collection: string, id: JsonValue): DocumentState | undefined;
  /** Up to which txn_id the Big Peer holds this peer's commits now. */
  acknowledgedUpTo(): number;
}

export class Ledger {
  readonly writes: WriteRecord[] = [];
  readonly increments: Increment[] = [];
  /** The writer's own tally of each counter as last committed: [increments, decrements]. */
  readonly #tallies = new Map<string, readonly [number, number]>();

  /** A commit of a peer; only `User` ones are its own writes. */
  committed(peer: LedgerPeer, txn: CommittedTransaction, step: number): void {
    if (txn.originator !== 'User') return;
    const evicted: { collection: string; id: JsonValue }[] = [];
    for (const change of txn.changes) {
      if (isInternalCollection(change.collection)) continue;
      if (change.kind === 'evict') {
        evicted.push(change);
        continue;
      }
      const state = peer.get(change.collection, change.id);
      if (state === undefined) continue;
      this.writes.push({
        peer: peer.name,
        identity: peer.identity,
        txnId: txn.txnId,
        step,
        collection: change.collection,
        id: change.id,
        state,
        certain: true,
      });
      if (change.collection === COUNTER_COLLECTION) this.#counted(peer, txn.txnId, step, change.id, state);
    }
    if (evicted.length > 0) this.#lost(peer, evicted, peer.acknowledgedUpTo());
  }

  #counted(peer: LedgerPeer, txnId: number, step: number, id: JsonValue, state: DocumentState): void {
    const counter = state.meta.n?.[COUNTER_PATH];
    if (counter === undefined) return;
    const key = `${peer.name}|${peer.identity}|${docKey(COUNTER_COLLECTION, id)}|${counter.s.join('|')}`;
    const now = counter.t[peer.peerKey] ?? [0, 0];
    const before = this.#tallies.get(key) ?? [0, 0];
    this.#tallies.set(key, now);
    const inc = now[0] - before[0];
    const dec = now[1] - before[1];
    if (inc !== 0 || dec !== 0) this.increments.push({ peer: peer.name, identity: peer.identity, txnId, step, id, inc, dec, certain: true });
  }

  /** The peer evicted these documents: its writes of them the Big Peer had not acknowledged may be gone. */
  #lost(peer: LedgerPeer, docs: readonly { collection: string; id: JsonValue }[], acknowledged: number): void {
    const keys = new Set(docs.map((d) => docKey(d.collection, d.id)));
    for (const w of this.writes) {
      if (w.peer === peer.name && w.identity === peer.identity && w.txnId > acknowledged && keys.has(docKey(w.collection, w.id))) w.certain = false;
    }
    for (const i of this.increments) {
      if (i.peer === peer.name && i.identity === peer.identity && i.txnId > acknowledged && keys.has(docKey(COUNTER_COLLECTION, i.id))) i.certain = false;
    }
  }

  /** The peer's store is gone: what the Big Peer had not acknowledged may be gone with it. */
  wiped(peer: string, identity: number, acknowledged: number): void {
    for (const w of this.writes) if (w.peer === peer && w.identity === identity && w.txnId > acknowledged) w.certain = false;
    for (const i of this.increments) if (i.peer === peer && i.identity === identity && i.txnId > acknowledged) i.certain = false;
  }

  /** The range a counter must read in: exact when every increment is certain. */
  expectedCounter(id: JsonValue): { readonly min: number; readonly max: number; readonly exact: boolean } {
    let certain = 0;
    let upside = 0;
    let downside = 0;
    let exact = true;
    const key = JSON.stringify(id);
    for (const i of this.increments) {
      if (JSON.stringify(i.id) !== key) continue;
      if (i.certain) {
        certain += i.inc - i.dec;
      } else {
        exact = false;
        upside += i.inc;
        downside += i.dec;
      }
    }
    return { min: certain - downside, max: certain + upside, exact };
  }
}
