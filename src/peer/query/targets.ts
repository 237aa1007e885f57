/**
 * The documents a mutation's condition selects, found beforehand off the event loop (a query
 * thread, on a snapshot of committed data) and brought up to date inside the write transaction:
 * a document unchanged since that snapshot is selected as it was; one written since (or new) is
 * checked again with the reference evaluator. The result is what evaluating the condition on
 * every document now gives, but the event loop pays only for the documents written meanwhile.
 */
import type { JsonValue } from '../../shared/json.ts';
import type { Expr } from '../dql/ast.ts';
import type { Params } from '../dql/evaluate.ts';
import { parseCondition } from '../dql/parser.ts';
import { sortKey } from '../dql/sort-key.ts';
import type { Budget } from '../budget.ts';
import { runQuery } from '../storage/js-query.ts';
import type { ChangeCursor, DocumentQuery, StorageReader, StoredDocument } from '../storage/types.ts';

/** What a query thread found: the `_id`s a mutation selects in the snapshot of `snapshotTxnId`. */
export interface MutationTargets {
  readonly ids: readonly JsonValue[];
  readonly snapshotTxnId: number;
}

const PAGE = 500;

function changedAfter(reader: StorageReader, collection: string, afterTxnId: number, budget: Budget | undefined): StoredDocument[] {
  const out: StoredDocument[] = [];
  let cursor: ChangeCursor | undefined;
  do {
    budget?.check();
    const page = reader.changedSince({ collection, afterTxnId, uptoTxnId: Number.MAX_SAFE_INTEGER, cursor, limit: PAGE });
    out.push(...page.documents);
    cursor = page.next;
  } while (cursor !== undefined);
  return out;
}

const keyOf = (id: JsonValue): string => sortKey(id).toString('latin1');

/** Has any document of the collection been written (or deleted) since the snapshot? */
export function changedSince(reader: StorageReader, collection: string, targets: MutationTargets): boolean {
  return reader.changedSince({ collection, afterTxnId: targets.snapshotTxnId, uptoTxnId: Number.MAX_SAFE_INTEGER, limit: 1 }).documents.length > 0;
}

/**
 * The live documents of `collection` that `where` selects now, in `_id` order (what
 * `findDocuments` with no ORDER BY gives), from the targets found in an earlier snapshot.
 */
export function selectedNow(
  reader: StorageReader,
  collection: string,
  where: Expr | undefined,
  params: Params,
  targets: MutationTargets,
  budget: Budget | undefined,
): StoredDocument[] {
  const byKey = new Map<string, StoredDocument>();
  for (const id of targets.ids) {
    budget?.check();
    const doc = reader.get(collection, id);
    if (doc !== undefined && doc.value !== null && doc.txnId <= targets.snapshotTxnId) byKey.set(keyOf(doc.id), doc);
  }
  const changed = changedAfter(reader, collection, targets.snapshotTxnId, budget).filter((doc) => doc.value !== null);
  const query: DocumentQuery = { collection, where, params, orderBy: [], limit: undefined, offset: 0, budget };
  for (const doc of runQuery(
    changed,
    (d) => d.value as NonNullable<StoredDocument['value']>,
    (d) => sortKey(d.id),
    query,
  ))
    byKey.set(keyOf(doc.id), doc);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, doc]) => doc);
}

let idInList: Expr | undefined;

/** A storage query of exactly these documents of the collection, by `_id`. */
export function idsQuery(collection: string, ids: readonly JsonValue[], budget: Budget | undefined): DocumentQuery {
  idInList ??= parseCondition('_id IN :ids');
  return { collection, where: idInList, params: { ids: [...ids] }, orderBy: [], limit: undefined, offset: 0, budget };
}
