/**
 * A query thread: a worker thread with its own read-only connection to a SQLite store, running
 * one job at a time (query-thread-protocol.ts) with the store's own DQL code, under the job's
 * budget (checked at every row: a spent budget ends the job with `query/timeout`, and the thread
 * goes on to the next one). Started by QueryThreads (query-threads.ts), never imported.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { JsonValue } from '../../shared/json.ts';
import { Budget } from '../budget.ts';
import { StoreError, UnsupportedQueryError, toErrorValue } from '../errors.ts';
import { SqliteReadOnly } from '../storage/sqlite-storage.ts';
import type { DocumentQuery, StorageReader } from '../storage/types.ts';
import { prepareWithArgs } from './prepare.ts';
import { sharedNow, type QueryJob, type QueryThreadMessage, type QueryThreadSetup } from './query-thread-protocol.ts';
import { documentQueryOf, runSelect } from './select.ts';

/** The documents a mutation selects, as `runMutation` finds them. */
function targetsQuery(job: QueryJob, budget: Budget): DocumentQuery {
  const { prepared, params } = prepareWithArgs(job.statement, job.args);
  const ast = prepared.ast;
  switch (ast.kind) {
    case 'update':
    case 'delete':
      return { collection: ast.collection, where: ast.where, params, orderBy: [], limit: undefined, offset: 0, budget };
    case 'evict':
      return { ...documentQueryOf(ast, params), budget };
    default:
      throw new UnsupportedQueryError(`a query thread finds the documents of UPDATE, DELETE or EVICT, not ${ast.kind.toUpperCase()}`);
  }
}

function run(db: SqliteReadOnly, job: QueryJob): QueryThreadMessage {
  const budget = new Budget(job.deadline - sharedNow(), 'the statement');
  const limited = new Budget(job.budgetMs); // only to name the whole budget in the error
  try {
    return db.read((reader: StorageReader) => {
      const snapshotTxnId = reader.clock().lastTxnId;
      if (snapshotTxnId < job.minTxnId) {
        throw new StoreError('store/io', `the query thread's snapshot holds txn_id ${snapshotTxnId}, not ${job.minTxnId} committed before`);
      }
      if (job.kind === 'select') {
        const { prepared, params } = prepareWithArgs(job.statement, job.args);
        if (prepared.ast.kind !== 'select') throw new UnsupportedQueryError(`a query thread runs a SELECT, not ${prepared.ast.kind.toUpperCase()}`);
        const items = runSelect(reader, prepared, params, undefined, budget);
        budget.check();
        return { type: 'answer', id: job.id, snapshotTxnId, itemsJson: JSON.stringify(items) };
      }
      const ids: JsonValue[] = reader.findValues(targetsQuery(job, budget)).map((doc) => doc._id as JsonValue);
      return { type: 'answer', id: job.id, snapshotTxnId, ids };
    });
  } catch (error) {
    const value = toErrorValue(error);
    // The budget the caller gave, not what was left of it when the thread took the job.
    return { type: 'error', id: job.id, error: value.code === 'query/timeout' ? limited.error().toValue() : value };
  }
}

function serve(setup: QueryThreadSetup): void {
  const port = parentPort;
  if (port === null) return;
  let db: SqliteReadOnly;
  try {
    db = SqliteReadOnly.open(setup.directory);
  } catch (error) {
    port.postMessage({ type: 'failed', error: toErrorValue(error) } satisfies QueryThreadMessage);
    return;
  }
  port.on('message', (job: QueryJob) => port.postMessage(run(db, job)));
  port.postMessage({ type: 'ready' } satisfies QueryThreadMessage);
}

if ((workerData as Partial<QueryThreadSetup> | null)?.role === 'syncmesh-query-thread') serve(workerData as QueryThreadSetup);
