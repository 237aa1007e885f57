/**
 * The messages between the query threads (query-thread.ts, each a worker thread with a read-only
 * connection to a SQLite store) and their pool (query-threads.ts) in the store's thread.
 */
import type { ErrorValue } from '../../shared/error-codes.ts';
import type { JsonValue } from '../../shared/json.ts';

/** What a thread is started with. */
export interface QueryThreadSetup {
  readonly role: 'syncmesh-query-thread';
  /** The store's persistence directory. */
  readonly directory: string;
}

/**
 * A job: `select` runs a SELECT and answers its items as JSON text; `targets` finds the `_id`s of
 * the documents an UPDATE, DELETE or EVICT selects, without writing anything.
 */
export interface QueryJob {
  readonly id: number;
  readonly kind: 'select' | 'targets';
  readonly statement: string;
  readonly args: Record<string, unknown> | undefined;
  /** When the job's budget is spent: `performance.timeOrigin + performance.now()` milliseconds, the same in every thread. */
  readonly deadline: number;
  /** The budget in full, as the error names it. */
  readonly budgetMs: number;
  /** The snapshot must hold this transaction (read-your-writes): the store's last txn_id when the job was made. */
  readonly minTxnId: number;
}

export type QueryThreadMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly error: ErrorValue }
  | { readonly type: 'answer'; readonly id: number; readonly snapshotTxnId: number; readonly itemsJson: string }
  | { readonly type: 'answer'; readonly id: number; readonly snapshotTxnId: number; readonly ids: JsonValue[] }
  | { readonly type: 'error'; readonly id: number; readonly error: ErrorValue };

/** Milliseconds on a clock every thread of the process shares. */
export function sharedNow(): number {
  return performance.timeOrigin + performance.now();
}
