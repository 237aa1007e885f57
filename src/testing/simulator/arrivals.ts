/**
 * "An evicted document comes back only if a subscription still matches it", checked at every
 * commit of a small peer, in its general form: a document that arrives by replication at a peer
 * that does not hold it (never did, or evicted it) must be one its subscriptions ask for now:
 * a value that one of its queries of that collection matches, or a tombstone of a collection it
 * subscribes to. (Documents a peer holds are also sent when they change and leave its queries:
 * those are updates of what it holds, not arrivals.)
 */
import type { JsonObject } from '../../shared/json.ts';
import { compileSubscriptions, safeMatches } from '../../peer/replication/matching.ts';
import { docKey } from '../../peer/replication/update-builder.ts';
import { isInternalCollection, type CommittedTransaction, type Store } from '../../peer/store/store.ts';

export class ArrivalWatch {
  readonly #store: Store;
  readonly #report: (problem: string) => void;
  /** Documents (tombstones too) this store holds, by docKey. */
  readonly #held = new Set<string>();

  constructor(store: Store, report: (problem: string) => void) {
    this.#store = store;
    this.#report = report;
    store.readNow((reader) => {
      for (const { name } of reader.collections()) {
        if (isInternalCollection(name)) continue;
        const upto = reader.clock().lastTxnId;
        let cursor: Parameters<typeof reader.changedSince>[0]['cursor'];
        do {
          const page = reader.changedSince({ collection: name, afterTxnId: 0, uptoTxnId: upto, cursor, limit: 1000 });
          for (const doc of page.documents) this.#held.add(docKey(name, doc.id));
          cursor = page.next;
        } while (cursor !== undefined);
      }
    });
  }

  committed(txn: CommittedTransaction): void {
    for (const change of txn.changes) {
      if (isInternalCollection(change.collection)) continue;
      const key = docKey(change.collection, change.id);
      if (change.kind === 'evict') {
        this.#held.delete(key);
        continue;
      }
      if (txn.originator === 'Replication' && !this.#held.has(key)) this.#arrived(change.collection, change.id, change.after, txn.txnId);
      this.#held.add(key);
    }
  }

  #arrived(collection: string, id: unknown, value: JsonObject | null, txnId: number): void {
    const queries = compileSubscriptions(this.#store.subscriptionSet()).byCollection.get(collection) ?? [];
    const wanted = queries.length > 0 && (value === null || queries.some((q) => safeMatches(q.where, value)));
    if (!wanted) {
      const what = value === null ? 'a tombstone' : JSON.stringify(value);
      this.#report(`${collection} ${JSON.stringify(id)} arrived by replication (txn_id ${txnId}) as ${what}, which no subscription of the peer asks for`);
    }
  }
}
