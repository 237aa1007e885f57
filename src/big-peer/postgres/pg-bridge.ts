/**
 * The main thread's side of the PostgreSQL worker (pg-worker.ts): synchronous calls that block
 * until the worker answers (Atomics.wait, then the answer read off a MessagePort with
 * receiveMessageOnPort), asynchronous calls for what may wait long, and the notifications of
 * the worker's LISTEN connection. A call not answered in time fails with `store/unavailable`.
 */
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { StoreError } from '../../peer/host.ts';
import type { PostedRequest, Statement, StatementResult, WorkerEvent, WorkerOutcome, WorkerRequest, WorkerSetup } from './pg-protocol.ts';
import { siblingModule } from '../../shared/module-url.ts';

export interface PgBridgeOptions {
  readonly url: string;
  readonly schema: string;
  readonly applicationName: string;
  /** A synchronous call not answered within this fails (default 30 s). */
  readonly callTimeoutMs?: number;
  /** A connection attempt fails after this long (default 10 s). */
  readonly connectTimeoutMs?: number;
}

export interface Notifications {
  /** `rows`: what the listen's `prefetch` read for it, when it did. */
  notification(channel: string, payload: string, rows: unknown[][] | undefined): void;
  listening(channel: string): void;
  lost(channel: string, error: string): void;
}

/** The server's address as logs show it: the URL without its password. */
export function describeServer(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** The statements of a text without parameters: its `;`-separated parts, outside quoted literals. */
function statementsIn(sql: string): number {
  return sql
    .replace(/'(?:[^']|'')*'/g, "''")
    .split(';')
    .filter((t) => t.trim() !== '').length;
}

export class PgBridge {
  readonly #worker: Worker;
  readonly #signal: Int32Array;
  readonly #answers: MessagePort;
  readonly #timeoutMs: number;
  readonly #server: string;
  readonly #pending = new Map<number, { resolve: (r: StatementResult[]) => void; reject: (e: Error) => void }>();
  #notifications: Notifications | undefined;
  #seq = 0;
  #nextSession = 1;
  #statements = 0;
  #roundTrips = 0;
  #closed = false;

  constructor(options: PgBridgeOptions) {
    const signal = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const setup: WorkerSetup = {
      url: options.url,
      schema: options.schema,
      applicationName: options.applicationName,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      signal,
      syncPort: port2,
    };
    this.#worker = new Worker(siblingModule(new URL('./pg-worker.ts', import.meta.url), import.meta.url), { workerData: setup, transferList: [port2] });
    // The worker never keeps the process alive on its own: close() ends it.
    this.#worker.unref();
    this.#signal = new Int32Array(signal);
    this.#answers = port1;
    this.#timeoutMs = options.callTimeoutMs ?? 30_000;
    this.#server = describeServer(options.url);
    this.#worker.on('message', (event: WorkerEvent) => this.#event(event));
    this.#worker.on('error', (error) => this.#failAll(error));
    this.#worker.on('exit', () => this.#failAll(new Error('the PostgreSQL worker thread stopped')));
  }

  /** A new session id: a connection of its own while it is used. */
  newSession(): number {
    return this.#nextSession++;
  }

  /** Runs statements on a session, blocking until they ran. @throws StoreError */
  runSync(session: number, statements: readonly Statement[]): StatementResult[] {
    return this.#unwrap(this.#callSync({ kind: 'run', session, statements }));
  }

  /** Runs statements on a session without blocking. @throws StoreError (rejects) */
  run(session: number, statements: readonly Statement[], options: { readonly rollbackOnError?: boolean } = {}): Promise<StatementResult[]> {
    return this.#callAsync(
      options.rollbackOnError === true ? { kind: 'run', session, statements, rollbackOnError: true } : { kind: 'run', session, statements },
    );
  }

  /** Ends a session (running `sql` first, as COMMIT or ROLLBACK), without waiting. */
  end(session: number, sql?: string): void {
    if (this.#closed) return;
    void this.#callAsync(sql === undefined ? { kind: 'end', session } : { kind: 'end', session, sql }).catch(() => {
      // Its connection is dropped; nothing waits for it.
    });
  }

  /** Ends a session, blocking until it has ended. @throws StoreError */
  endSync(session: number, sql?: string): void {
    this.#unwrap(this.#callSync(sql === undefined ? { kind: 'end', session } : { kind: 'end', session, sql }));
  }

  /**
   * LISTENs on `channel`; `events` hear of its notifications, and of the connection lost and
   * back. `prefetch`: a statement the worker runs with another process's notification's payload
   * as `$1` before passing it on, with its rows (pg-protocol.ts).
   */
  listen(channel: string, prefetch: string | undefined, events: Notifications): void {
    this.#notifications = events;
    void this.#callAsync(prefetch === undefined ? { kind: 'listen', channel } : { kind: 'listen', channel, prefetch }).catch(() => {});
  }

  /** Closes the connections and ends the worker. */
  close(): void {
    if (this.#closed) return;
    try {
      this.#callSync({ kind: 'close' }, 5_000);
    } catch {
      // Closing anyway.
    }
    this.#closed = true;
    void this.#worker.terminate();
    this.#answers.close();
  }

  /** SQL statements sent so far (a text of several counts each): what the statement counts of docs/benchmarks.md measure. */
  get statementsSent(): number {
    return this.#statements;
  }

  /** Round trips to the server so far: one per text sent, however many statements it holds. */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  #count(request: WorkerRequest): void {
    if (request.kind === 'run') {
      for (const s of request.statements) this.#statements += s.params === undefined ? statementsIn(s.sql) : 1;
      this.#roundTrips += request.statements.length;
    } else if (request.kind === 'end' && request.sql !== undefined) {
      this.#statements++;
      this.#roundTrips++;
    }
  }

  #callSync(request: WorkerRequest, timeoutMs = this.#timeoutMs): WorkerOutcome {
    this.#assertOpen();
    this.#count(request);
    const seq = ++this.#seq;
    const posted: PostedRequest = { seq, sync: true, request };
    this.#worker.postMessage(posted);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const seen = Atomics.load(this.#signal, 0);
      if (seen === seq) break;
      const left = deadline - performance.now();
      if (left <= 0 || Atomics.wait(this.#signal, 0, seen, left) === 'timed-out') {
        if (Atomics.load(this.#signal, 0) === seq) break;
        throw new StoreError('store/unavailable', `PostgreSQL at ${this.#server} did not answer within ${timeoutMs} ms; nothing was committed`);
      }
    }
    for (let answer = receiveMessageOnPort(this.#answers); answer !== undefined; answer = receiveMessageOnPort(this.#answers)) {
      const message = answer.message as { seq: number; outcome: WorkerOutcome };
      // Answers to calls that timed out before are dropped.
      if (message.seq === seq) return message.outcome;
    }
    throw new StoreError('store/unavailable', 'the PostgreSQL worker signalled an answer it did not send');
  }

  #callAsync(request: WorkerRequest): Promise<StatementResult[]> {
    if (this.#closed) return Promise.reject(new StoreError('store/closed', 'the store is closed; open a new one'));
    this.#count(request);
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#pending.set(seq, { resolve, reject });
      const posted: PostedRequest = { seq, sync: false, request };
      this.#worker.postMessage(posted);
    });
  }

  #event(event: WorkerEvent): void {
    switch (event.kind) {
      case 'reply': {
        const pending = this.#pending.get(event.seq);
        this.#pending.delete(event.seq);
        if (pending === undefined) return;
        if (event.outcome.ok) pending.resolve(event.outcome.results);
        else pending.reject(this.#error(event.outcome.error));
        return;
      }
      case 'notification':
        return this.#notifications?.notification(event.channel, event.payload, event.rows);
      case 'listening':
        return this.#notifications?.listening(event.channel);
      case 'listen-lost':
        return this.#notifications?.lost(event.channel, event.error);
    }
  }

  #unwrap(outcome: WorkerOutcome): StatementResult[] {
    if (outcome.ok) return outcome.results;
    throw this.#error(outcome.error);
  }

  #error(error: { message: string; code: string | undefined }): StoreError {
    // No SQLSTATE: the server could not be reached or the connection dropped. Class 08 and
    // 57P01–57P03 (the server ending the connection: shutdown, termination) say the same.
    if (error.code === undefined || error.code.startsWith('08') || /^57P0[123]$/.test(error.code))
      return new StoreError('store/unavailable', `PostgreSQL at ${this.#server} cannot be reached: ${error.message}`, { details: { server: this.#server } });
    return new StoreError('store/io', `PostgreSQL refused a statement: ${error.message} (SQLSTATE ${error.code})`, { details: { sqlstate: error.code } });
  }

  #failAll(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(new StoreError('store/unavailable', `the PostgreSQL worker failed: ${error.message}`));
    this.#pending.clear();
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreError('store/closed', 'the store is closed; open a new one');
  }
}
