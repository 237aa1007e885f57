/**
 * A small pool of query threads (query-thread.ts) over a SQLite store: SELECTs, and the search
 * for the documents a mutation selects, run there, each on a read-only snapshot of the store's
 * file, so that a long statement never holds the store's event loop. Every job has a budget; the
 * thread stops a job whose budget is spent at its next row (`query/timeout`) and takes the next.
 * A thread that has not answered `graceMs` after its job's deadline (stuck inside one row) is
 * terminated and replaced. Jobs wait in order for a free thread; one whose budget is spent while
 * it waits never runs.
 *
 * Read-your-writes: a job's snapshot is taken when the thread starts it, after every commit the
 * store made before the job was submitted (WAL): the thread checks it holds `minTxnId`.
 */
import { Worker } from 'node:worker_threads';
import type { ErrorValue } from '../../shared/error-codes.ts';
import type { JsonValue } from '../../shared/json.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import { Budget, BudgetExceeded } from '../budget.ts';
import { StoreError, SyncError } from '../errors.ts';
import type { Logger } from '../log/log-hub.ts';
import { systemTimers, type TimerHandle, type Timers } from '../time.ts';
import { sharedNow, type QueryJob, type QueryThreadMessage, type QueryThreadSetup } from './query-thread-protocol.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { siblingModule } from '../../shared/module-url.ts';

/** How long past a job's deadline its thread may take to answer before it is terminated. */
export const QUERY_THREAD_GRACE_MS = 1_000;
/** Consecutive threads that fail to start before the pool gives up (`QueryThreadsUnavailable`). */
const MAX_START_FAILURES = 3;

export interface QueryThreadsOptions {
  /** The store's persistence directory (a SQLite store). */
  readonly directory: string;
  /** At most this many threads (at least 1). */
  readonly threads: number;
  readonly logger: Logger;
  readonly timers?: Timers;
  readonly graceMs?: number;
  /** The thread's code (default query-thread.ts beside this file); tests give one that cannot load. */
  readonly threadUrl?: URL;
}

/** The threads cannot start here (the platform cannot load them): run the statement some other way. */
export class QueryThreadsUnavailable extends StoreError {
  constructor(message: string) {
    super('store/io', message);
  }
}

export interface SelectAnswer {
  /** The SELECT's items, as JSON text (an array). */
  readonly itemsJson: string;
  /** The last txn_id of the snapshot it read. */
  readonly snapshotTxnId: number;
}

export interface TargetsAnswer {
  /** The `_id`s of the documents the mutation selects in that snapshot, in the order it would take them. */
  readonly ids: JsonValue[];
  readonly snapshotTxnId: number;
}

interface Pending {
  readonly job: Omit<QueryJob, 'id' | 'deadline'>;
  readonly budget: Budget;
  readonly resolve: (message: QueryThreadMessage & { type: 'answer' }) => void;
  readonly reject: (error: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  /** Settles once the thread is ready or gone. */
  readonly started: Promise<void>;
  readonly markStarted: () => void;
  ready: boolean;
  running: (Pending & { readonly id: number; readonly timer: TimerHandle }) | undefined;
}

function errorOf(value: ErrorValue): SyncError {
  return value.code === 'query/timeout' ? new BudgetExceeded(value.message) : new SyncError(value.code, value.message, { details: value.details });
}

export class QueryThreads {
  readonly #options: QueryThreadsOptions;
  readonly #timers: Timers;
  readonly #threads = new Set<Thread>();
  readonly #queue: Pending[] = [];
  #nextId = 1;
  #startFailures = 0;
  #unavailable: string | undefined;
  #closed = false;

  constructor(options: QueryThreadsOptions) {
    this.#options = options;
    this.#timers = options.timers ?? systemTimers;
  }

  /** Threads running now (started, or starting). */
  get threads(): number {
    return this.#threads.size;
  }

  /** Jobs waiting for a free thread. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Runs a SELECT in a thread, within `budget`.
   * @throws BudgetExceeded once the budget is spent; the statement's own errors (ParseError, …);
   *   QueryThreadsUnavailable when no thread can start.
   */
  async select(statement: string, args: Record<string, unknown> | undefined, budget: Budget, minTxnId: number): Promise<SelectAnswer> {
    const answer = await this.#submit({ kind: 'select', statement, args, budgetMs: budget.limitMs, minTxnId }, budget);
    if (!('itemsJson' in answer)) throw new Error('a query thread answered a SELECT without items');
    return { itemsJson: answer.itemsJson, snapshotTxnId: answer.snapshotTxnId };
  }

  /** Finds, in a thread and within `budget`, the documents an UPDATE, DELETE or EVICT selects. */
  async findTargets(statement: string, args: Record<string, unknown> | undefined, budget: Budget, minTxnId: number): Promise<TargetsAnswer> {
    const answer = await this.#submit({ kind: 'targets', statement, args, budgetMs: budget.limitMs, minTxnId }, budget);
    if (!('ids' in answer)) throw new Error('a query thread answered a search without ids');
    return { ids: answer.ids, snapshotTxnId: answer.snapshotTxnId };
  }

  /**
   * Starts every thread now, so that the first statements do not wait for one to start;
   * resolves once each is ready or has failed (never rejects).
   */
  warm(): Promise<void> {
    while (!this.#closed && this.#unavailable === undefined && this.#threads.size < Math.max(1, this.#options.threads)) {
      if (this.#start() === undefined) break;
    }
    return Promise.all([...this.#threads].map((t) => t.started)).then(() => undefined);
  }

  /** Ends every thread; jobs waiting or running fail with `store/closed`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const closed = (): StoreError => new StoreError('store/closed', 'the store is closing; the statement was not run');
    for (const pending of this.#queue.splice(0)) pending.reject(closed());
    const ending: Promise<unknown>[] = [];
    for (const thread of [...this.#threads]) {
      if (thread.running !== undefined) {
        this.#timers.clearTimeout(thread.running.timer);
        thread.running.reject(closed());
        thread.running = undefined;
      }
      thread.markStarted();
      this.#threads.delete(thread);
      ending.push(thread.worker.terminate());
    }
    await Promise.allSettled(ending);
  }

  #submit(job: Pending['job'], budget: Budget): Promise<QueryThreadMessage & { type: 'answer' }> {
    if (this.#closed) return Promise.reject(new StoreError('store/closed', 'the store is closed; open a new one'));
    if (this.#unavailable !== undefined) return Promise.reject(new QueryThreadsUnavailable(this.#unavailable));
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, budget, resolve, reject });
      this.#pump();
    });
  }

  /** Gives waiting jobs to idle threads, starting threads up to the limit. */
  #pump(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      const pending = this.#queue[0] as Pending;
      if (pending.budget.isSpent) {
        this.#queue.shift();
        pending.reject(pending.budget.error());
        continue;
      }
      let thread = [...this.#threads].find((t) => t.running === undefined);
      if (thread === undefined && this.#threads.size < Math.max(1, this.#options.threads)) thread = this.#start();
      if (thread === undefined) return;
      this.#queue.shift();
      this.#dispatch(thread, pending);
    }
  }

  #dispatch(thread: Thread, pending: Pending): void {
    const id = this.#nextId++;
    const remaining = pending.budget.remainingMs;
    const job: QueryJob = { ...pending.job, id, deadline: sharedNow() + remaining };
    // The backstop: a thread stuck inside one row past the deadline is ended and replaced.
    const timer = this.#timers.setTimeout(() => this.#overrun(thread, id), remaining + (this.#options.graceMs ?? QUERY_THREAD_GRACE_MS));
    thread.running = { ...pending, id, timer };
    thread.worker.postMessage(job);
  }

  #overrun(thread: Thread, id: number): void {
    const running = thread.running;
    if (running === undefined || running.id !== id) return;
    thread.running = undefined;
    thread.markStarted();
    this.#threads.delete(thread);
    this.#options.logger.warn(LOG_EVENTS.queryThreadTerminated, { reason: 'a job ran past its deadline and did not stop' });
    running.reject(running.budget.error());
    void thread.worker.terminate();
    this.#pump();
  }

  #start(): Thread | undefined {
    const setup: QueryThreadSetup = { role: 'syncmesh-query-thread', directory: this.#options.directory };
    let worker: Worker;
    try {
      // A bundle that leaves this file behind (the desktop app's) fails here or with an 'error' event.
      worker = new Worker(this.#options.threadUrl ?? siblingModule(new URL('./query-thread.ts', import.meta.url), import.meta.url), { workerData: setup });
    } catch (error) {
      this.#unavailable = `query threads cannot start here: ${errorMessage(error)}`;
      this.#options.logger.warn(LOG_EVENTS.queryThreadsUnavailable, { reason: this.#unavailable });
      for (const pending of this.#queue.splice(0)) pending.reject(new QueryThreadsUnavailable(this.#unavailable));
      return undefined;
    }
    // The pool never keeps a process alive: an idle thread waits for work only while the store is open.
    worker.unref();
    let markStarted = (): void => {};
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const thread: Thread = { worker, started, markStarted, ready: false, running: undefined };
    this.#threads.add(thread);
    worker.on('message', (message: QueryThreadMessage) => this.#message(thread, message));
    worker.on('error', (error) => this.#lost(thread, error.message));
    worker.on('exit', (code) => this.#lost(thread, `the query thread exited (code ${code})`));
    return thread;
  }

  #message(thread: Thread, message: QueryThreadMessage): void {
    if (message.type === 'ready') {
      thread.ready = true;
      thread.markStarted();
      this.#startFailures = 0;
      return;
    }
    if (message.type === 'failed') return this.#lost(thread, message.error.message);
    const running = thread.running;
    if (running === undefined || running.id !== message.id) return; // a job it was too late for
    this.#timers.clearTimeout(running.timer);
    thread.running = undefined;
    if (message.type === 'error') running.reject(errorOf(message.error));
    else running.resolve(message);
    this.#pump();
  }

  /** The thread is gone (it failed to start, crashed or was terminated): its job fails, another may start. */
  #lost(thread: Thread, reason: string): void {
    thread.markStarted();
    if (!this.#threads.delete(thread)) return;
    const running = thread.running;
    thread.running = undefined;
    if (running !== undefined) this.#timers.clearTimeout(running.timer);
    void thread.worker.terminate();
    if (this.#closed) return;
    if (!thread.ready && ++this.#startFailures >= MAX_START_FAILURES) {
      this.#unavailable = `query threads cannot start here: ${reason}`;
      this.#options.logger.warn(LOG_EVENTS.queryThreadsUnavailable, { reason });
      running?.reject(new QueryThreadsUnavailable(this.#unavailable));
      for (const pending of this.#queue.splice(0)) pending.reject(new QueryThreadsUnavailable(this.#unavailable));
      return;
    }
    running?.reject(
      thread.ready
        ? new StoreError('store/io', `the query thread failed: ${reason}`)
        : new QueryThreadsUnavailable(`a query thread could not start: ${reason}`),
    );
    this.#pump();
  }
}
