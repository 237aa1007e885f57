import type { MessagePort } from 'node:worker_threads';

/**
 * The messages between the PostgreSQL storage (main thread) and its worker thread, which owns
 * the `pg` connections. The storage interface is synchronous (the store reads and writes inside
 * one turn of the event loop, as with SQLite), so most calls wait for their answer with
 * `Atomics.wait`; the few that may wait long (the cluster write lock, polling) are asynchronous.
 */

/** One SQL statement; `params` bind `$1`, `$2`, …. Without params, `sql` may hold several statements. */
export interface Statement {
  readonly sql: string;
  readonly params?: readonly unknown[];
  /** A text of several statements answers with the result of its last, or of the one at this place (from 0). */
  readonly resultOf?: number;
}

/** A statement's rows, each an array of column values (`bytea` arrives as a Uint8Array). */
export interface StatementResult {
  readonly rows: unknown[][];
  readonly rowCount: number;
}

/** What the worker needs to connect. */
export interface WorkerSetup {
  readonly url: string;
  readonly schema: string;
  readonly applicationName: string;
  /** A connection attempt fails after this long. */
  readonly connectTimeoutMs: number;
  /** The main thread waits on index 0 for answers to synchronous calls. */
  readonly signal: SharedArrayBuffer;
  /** Where answers to synchronous calls go. */
  readonly syncPort: MessagePort;
}

export type WorkerRequest =
  /**
   * Runs statements in order on the session's connection (taking one when it has none); stops at
   * the first error. `rollbackOnError`: after an error, ROLLBACK at once, before any later request
   * of the session runs (a failed group commit must not leave its transaction open to the next).
   */
  | { readonly kind: 'run'; readonly session: number; readonly statements: readonly Statement[]; readonly rollbackOnError?: boolean }
  /** Runs `sql` (COMMIT, ROLLBACK) if given, and gives the session's connection back for reuse. */
  | { readonly kind: 'end'; readonly session: number; readonly sql?: string }
  /**
   * LISTENs on a channel on a connection of its own, reconnecting while the worker runs. With
   * `prefetch`, a notification that another server process sent (not a connection of this
   * worker) comes with the rows of that statement, run with its payload as `$1` (none if it fails),
   * unless its payload carries them already (a JSON object with `r`).
   */
  | { readonly kind: 'listen'; readonly channel: string; readonly prefetch?: string }
  /** Closes every connection. */
  | { readonly kind: 'close' };

/** An error from PostgreSQL (`code` is its SQLSTATE) or from the connection (`code` undefined). */
export interface WorkerError {
  readonly message: string;
  readonly code: string | undefined;
}

export type WorkerOutcome = { readonly ok: true; readonly results: StatementResult[] } | { readonly ok: false; readonly error: WorkerError };

/** A request as posted: `seq` names it; synchronous ones are answered on the sync port. */
export interface PostedRequest {
  readonly seq: number;
  readonly sync: boolean;
  readonly request: WorkerRequest;
}

export type WorkerEvent =
  | { readonly kind: 'reply'; readonly seq: number; readonly outcome: WorkerOutcome }
  | { readonly kind: 'notification'; readonly channel: string; readonly payload: string; readonly rows?: unknown[][] }
  | { readonly kind: 'listening'; readonly channel: string }
  | { readonly kind: 'listen-lost'; readonly channel: string; readonly error: string };
