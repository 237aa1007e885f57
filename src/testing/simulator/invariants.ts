/**
 * The checks once the mesh has healed and gone quiet:
 * - every small peer holds, exactly as the Big Peer holds them (value and merge state), the
 *   documents its subscriptions match and its permissions let it read there;
 * - every live document it holds of a collection it subscribes to is the Big Peer's state of it,
 *   where it may read that state (changes and deletions reach what a peer holds even when they
 *   take the document out of its queries; the rest of what it holds may be stale, as it asked
 *   for nothing more);
 * - nothing certain in the ledger is lost: the Big Peer's state contains every certain write's
 *   state, and each counter reads the sum of its increments.
 * A peer that may not write a collection and holds a document of it ahead of the Big Peer holds
 * an orphaned relay: counted, not a violation (see SimStats).
 */
import { jsonEqual, type JsonValue } from '../../shared/json.ts';
import { mergeDocumentStates, type DocumentState } from '../../peer/crdt/merge.ts';
import { allowsDocument, compileRules, compileSubscriptions, safeMatches } from '../../peer/replication/matching.ts';
import type { StorageReader, StoredDocument } from '../../peer/storage/types.ts';
import { COUNTER_COLLECTION, COUNTER_FIELD, type Ledger } from './ledger.ts';
import { ALL_COLLECTIONS, COUNTER_IDS, mayWrite } from './menus.ts';
import type { SimAuth } from './sim-auth.ts';
import type { SimPeer } from './sim-peer.ts';
import type { ViolationKind } from './world.ts';

export interface Problem {
  readonly kind: ViolationKind;
  readonly message: string;
}

const same = (a: DocumentState, b: DocumentState): boolean => jsonEqual(a.value, b.value) && jsonEqual(a.meta, b.meta);

/** Does `state` already contain `part` (merging it in changes nothing)? */
export function contains(state: DocumentState, part: DocumentState): boolean {
  const merged = mergeDocumentStates(state, part);
  return same(merged, state) || same(merged, mergeDocumentStates(state, state));
}

const equivalent = (a: DocumentState, b: DocumentState): boolean => contains(a, b) && contains(b, a);

/** Every document of a collection, tombstones included. */
export function allDocuments(reader: StorageReader, collection: string): StoredDocument[] {
  const out: StoredDocument[] = [];
  const upto = reader.clock().lastTxnId;
  let cursor: Parameters<StorageReader['changedSince']>[0]['cursor'];
  do {
    const page = reader.changedSince({ collection, afterTxnId: 0, uptoTxnId: upto, cursor, limit: 1000 });
    out.push(...page.documents);
    cursor = page.next;
  } while (cursor !== undefined);
  return out;
}

const show = (doc: StoredDocument | DocumentState | undefined): string => (doc === undefined ? 'nothing' : JSON.stringify(doc.value));

function checkPeer(big: SimPeer, peer: SimPeer, auth: SimAuth, problems: Problem[], orphaned: { count: number }): void {
  const bigSync = big.sync;
  const sync = peer.sync;
  if (bigSync === undefined || sync === undefined) return void problems.push({ kind: 'quiescence', message: `${peer.name} is not running after healing` });
  const session = bigSync.sessions.find((s) => s.remote.peerKey === sync.peerKey);
  if (session === undefined) return void problems.push({ kind: 'quiescence', message: `${peer.name} has no session with the Big Peer after healing` });
  const read = compileRules(session.remote.permissions.read);
  const subscriptions = compileSubscriptions(sync.store.subscriptionSet());
  for (const collection of ALL_COLLECTIONS) {
    const queries = subscriptions.byCollection.get(collection);
    if (queries === undefined) continue;
    const bigDocs = bigSync.store.readNow((r) => allDocuments(r, collection));
    const seen = new Set<string>();
    const writable = mayWrite(auth.granted(peer.user).write, collection);
    /** A peer that may not write the collection, ahead of the Big Peer: an orphaned relay (see SimStats). */
    const orphan = (mine: StoredDocument, b: StoredDocument): boolean => !writable && contains(mine, b) && (orphaned.count++, true);
    for (const b of bigDocs) {
      const key = JSON.stringify(b.id);
      seen.add(key);
      const mine = sync.store.readNow((r) => r.get(collection, b.id));
      const where = `${peer.name} ${collection} ${key}`;
      const entitled = b.value !== null && allowsDocument(read, collection, b.value) && queries.some((q) => safeMatches(q.where, b.value as never));
      if (entitled) {
        if (mine === undefined || (!equivalent(mine, b) && !orphan(mine, b))) {
          problems.push({
            kind: 'entitlement',
            message: `${where}: its subscriptions and permissions entitle it to ${show(b)} (the Big Peer's), it holds ${show(mine)}`,
          });
        }
      } else if (mine !== undefined && mine.value !== null && allowsDocument(read, collection, b.value) && !equivalent(mine, b) && !orphan(mine, b)) {
        problems.push({
          kind: 'freshness',
          message: `${where}: holds ${show(mine)}, the Big Peer ${b.value === null ? 'deleted it' : `holds ${show(b)}`}, and that change did not reach it`,
        });
      }
    }
    if (!writable) continue;
    for (const mine of sync.store.readNow((r) => allDocuments(r, collection))) {
      if (mine.value !== null && !seen.has(JSON.stringify(mine.id))) {
        problems.push({
          kind: 'unreached',
          message: `${peer.name} ${collection} ${JSON.stringify(mine.id)}: holds ${show(mine)}, which never reached the Big Peer`,
        });
      }
    }
  }
}

function checkLedger(big: SimPeer, ledger: Ledger, problems: Problem[]): void {
  const bigSync = big.sync;
  if (bigSync === undefined) return;
  const get = (collection: string, id: JsonValue): StoredDocument | undefined => bigSync.store.readNow((r) => r.get(collection, id));
  let lost = 0;
  for (const w of ledger.writes) {
    if (!w.certain) continue;
    const b = get(w.collection, w.id);
    if (b !== undefined && contains(b, w.state)) continue;
    if (lost++ < 10) {
      problems.push({
        kind: 'lost-write',
        message: `${w.peer} txn_id ${w.txnId} (step ${w.step}) of ${w.collection} ${JSON.stringify(w.id)} made ${show(w.state)}; the Big Peer holds ${show(b)} and does not contain it`,
      });
    }
  }
  if (lost > 10) problems.push({ kind: 'lost-write', message: `… ${lost - 10} more lost writes` });
  for (const id of COUNTER_IDS) {
    const value = bigSync.store.readNow((r) => r.get(COUNTER_COLLECTION, id))?.value?.[COUNTER_FIELD];
    const expected = ledger.expectedCounter(id);
    const n = typeof value === 'number' ? value : Number.NaN;
    if (!(n >= expected.min && n <= expected.max)) {
      const want = expected.exact ? `${expected.min}` : `between ${expected.min} and ${expected.max}`;
      problems.push({ kind: 'counter', message: `counter ${id} reads ${String(value)} at the Big Peer; the increments committed sum to ${want}` });
    }
  }
}

/** Every problem found (none when the run holds), and how many orphaned relays were seen. */
export function checkHealed(big: SimPeer, smalls: readonly SimPeer[], ledger: Ledger, auth: SimAuth): { problems: Problem[]; orphaned: number } {
  const problems: Problem[] = [];
  const orphaned = { count: 0 };
  for (const peer of smalls) checkPeer(big, peer, auth, problems, orphaned);
  checkLedger(big, ledger, problems);
  return { problems, orphaned: orphaned.count };
}
