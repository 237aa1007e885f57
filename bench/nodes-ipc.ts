/**
 * The `nodes` suite's child processes (bench/nodes-host.ts: a Big Peer node or a raw `ws`
 * server; bench/nodes-peers.ts: 200 small peers or 200 raw clients) and how the suite talks to
 * them: requests over Node's IPC channel, one answer each, every wait bounded. A child is a
 * process of its own so that its resident set is its own (the memory rows) and its CPU is
 * scheduled apart, as a node or a client machine would be.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { generateDocuments, type BenchDocument } from './documents.ts';

/** Milliseconds on a clock that processes of one host share (performance.now() is per process). */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Bound on a child's start (its modules, its setup) and on most requests. */
export const CHILD_TIMEOUT_MS = 60_000;
/** After asking a child to close, it is killed if it has not exited within this. */
const EXIT_TIMEOUT_MS = 15_000;
/** Lines of a child's stdout and stderr kept for error messages. */
const OUTPUT_LINES = 40;

interface Request {
  readonly id: number;
  readonly type: string;
  readonly payload: unknown;
}

type Reply = { readonly id: number; readonly ok: true; readonly result: unknown } | { readonly id: number; readonly ok: false; readonly error: string };
type Ready = { readonly ready: true } | { readonly failed: string };

// ---- what the requests carry ----

export interface WritePlan {
  readonly collection: string;
  /** `_id`s are this and a number. */
  readonly prefix: string;
  readonly count: number;
  readonly seed: number;
}

/** The span of a write loop, on the host's shared clock (wallNow). */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export interface Memory {
  /** Resident set of the whole process (its threads included), bytes. */
  readonly rss: number;
  /** The main thread's V8 heap in use, bytes. */
  readonly heapUsed: number;
}

export interface NodeLogs {
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

/** `count` benchmark documents (bench/documents.ts), each with an `_id` of its own. */
export function writeDocuments(plan: WritePlan): BenchDocument[] {
  return generateDocuments(plan.count, { seed: plan.seed }).map((doc, i) => ({ ...doc, _id: `${plan.prefix}${String(i).padStart(5, '0')}` }));
}

// ---- the suite's side ----

export class Child {
  readonly label: string;
  readonly #process: ChildProcess;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly #output: string[] = [];
  readonly #exited: Promise<void>;
  #exit: string | undefined;
  #nextId = 1;

  /** Forks `file` with `setup` (JSON) and waits until its setup is done. */
  static async start(file: URL, label: string, setup: unknown): Promise<Child> {
    const child = new Child(file, label, setup);
    try {
      await child.#ready();
    } catch (error) {
      await child.close();
      throw error;
    }
    return child;
  }

  private constructor(file: URL, label: string, setup: unknown) {
    this.label = label;
    // --expose-gc: a child collects its garbage before it is timed or its memory read.
    // SYNCMESH_BENCH_CPU_PROF=<folder>: each child writes a CPU profile there when it exits (not a suite's figures: profiling costs time).
    const profiles = process.env.SYNCMESH_BENCH_CPU_PROF;
    const execArgv = [
      '--expose-gc',
      ...(profiles === undefined || profiles === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${profiles}`, `--cpu-prof-name=${label}-${Date.now()}.cpuprofile`]),
    ];
    this.#process = fork(file, [JSON.stringify(setup)], { execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'advanced' });
    const keep = (chunk: Buffer): void => {
      this.#output.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line.trim() !== ''),
      );
      this.#output.splice(0, Math.max(0, this.#output.length - OUTPUT_LINES));
    };
    this.#process.stdout?.on('data', keep);
    this.#process.stderr?.on('data', keep);
    this.#process.on('message', (message: Reply | Ready) => {
      if (!('id' in message)) return;
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.ok) pending?.resolve(message.result);
      else pending?.reject(new Error(`${label}: ${message.error}`));
    });
    this.#exited = new Promise((resolve) => {
      this.#process.once('exit', (code, signal) => {
        this.#exit = `${label} exited (${signal ?? `code ${code}`})`;
        const error = new Error(this.#describe(this.#exit));
        for (const pending of this.#pending.values()) pending.reject(error);
        this.#pending.clear();
        resolve();
      });
    });
  }

  #ready(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(this.#describe(`${this.label} did not start within ${CHILD_TIMEOUT_MS} ms`))), CHILD_TIMEOUT_MS);
      const done = (error?: Error): void => {
        clearTimeout(timer);
        this.#process.removeListener('message', onMessage);
        if (error === undefined) resolve();
        else reject(error);
      };
      const onMessage = (message: Reply | Ready): void => {
        if ('ready' in message) done();
        else if ('failed' in message) done(new Error(`${this.label} failed to start: ${message.failed}`));
      };
      this.#process.on('message', onMessage);
      void this.#exited.then(() => done(new Error(this.#describe(this.#exit ?? `${this.label} exited`))));
    });
  }

  get pid(): number | undefined {
    return this.#process.pid;
  }

  /** Sends a request; its answer, or a rejection after `timeoutMs` or when the child exits. */
  request<T>(type: string, payload: unknown = {}, timeoutMs = CHILD_TIMEOUT_MS): Promise<T> {
    if (this.#exit !== undefined) return Promise.reject(new Error(this.#describe(this.#exit)));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(this.#describe(`${this.label}: ${type} not answered within ${timeoutMs} ms`)));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.#process.send({ id, type, payload } satisfies Request);
    });
  }

  /** Asks the child to close (its `close` handler), then waits for it to exit; kills it (by its pid) if it does not. */
  async close(): Promise<void> {
    if (this.#exit === undefined) {
      try {
        await this.request('close', {}, EXIT_TIMEOUT_MS);
      } catch {
        // It is killed below if it does not exit.
      }
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      this.#exited.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), EXIT_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    if (!exited) {
      this.#process.kill('SIGKILL');
      await this.#exited;
    }
  }

  #describe(what: string): string {
    return this.#output.length === 0 ? what : `${what}; its last output:\n${this.#output.join('\n')}`;
  }
}

// ---- the child's side ----

export type Handlers = Record<string, (payload: any) => unknown>;

/**
 * In a child: reads its setup from argv, runs `start(setup)` for its request handlers, tells
 * the suite it is ready, then answers requests one after another in their order. `close` is
 * the last: after its answer the process exits. The child also exits when the suite is gone.
 */
export async function serveChild(start: (setup: any) => Promise<Handlers>): Promise<void> {
  const send = (message: Reply | Ready): Promise<void> =>
    new Promise((resolve) => {
      if (process.send === undefined || !process.connected) return resolve();
      process.send(message, undefined, undefined, () => resolve());
    });
  process.on('disconnect', () => process.exit(1));
  let handlers: Handlers;
  try {
    handlers = await start(JSON.parse(process.argv[2] ?? '{}'));
  } catch (error) {
    await send({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  }
  let chain = Promise.resolve();
  process.on('message', (request: Request) => {
    chain = chain.then(async () => {
      const handler = handlers[request.type];
      try {
        if (handler === undefined) throw new Error(`no request ${request.type}`);
        const result = await handler(request.payload);
        await send({ id: request.id, ok: true, result: result ?? null });
      } catch (error) {
        await send({ id: request.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
      if (request.type === 'close') process.exit(0);
    });
  });
  await send({ ready: true });
}

/** CPU time this process has used so far (user and system, all its threads), milliseconds. */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** A full garbage collection in a child started by Child (with --expose-gc). */
export function childGc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
