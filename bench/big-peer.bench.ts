/**
 * The big-peer suite: load on the Big Peer's `POST /api/v4/store/execute` over loopback HTTP,
 * against a bare `node:http` server that answers the same requests with a fixed JSON body the
 * size of our SELECT answer. Point SELECTs and single-document INSERTs, each with 1, 16 and 64
 * keep-alive clients: requests per second, p50/p99 latency, and the server thread's busy time.
 * No targets: the rows show what the Big Peer costs on top of Node's HTTP server.
 * docs/benchmarks.md explains each row.
 *
 * Both servers run in one worker thread (this file, started again as a worker), the load
 * generator in the main thread, so that the clients and the server under load each have one of
 * the benchmark machine's 2 cores, as remote clients would not share the server's. The clients
 * are hand-made keep-alive HTTP/1.1 connections (node:http's client is too slow to load even the
 * bare server). Every answer is read and checked, on both sides: a server that answers fast but
 * wrong crashes the suite.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { performance as nodePerformance, type EventLoopUtilization } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { BigPeer, bigPeerConfig } from '../src/big-peer/index.ts';
import { LogHub } from '../src/peer/host.ts';
import { seededRandom } from '../src/testing/seeded-random.ts';
import { generateDocuments } from './documents.ts';
import { compare, median, type Row, type Side, type Suite, type SuiteContext, percentile, check } from './harness.ts';

const SEED = 13;
/** Documents preloaded into the Big Peer; the SELECTs read them by random `_id`. */
const DOCS = 10_000;
const CONCURRENCY = [1, 16, 64] as const;
/** Requests each side sends per repetition of a row. */
const REQUESTS = 5_000;
const WARMUP = 1;
const REPEAT = 7;
/** Per row (both sides, warm-up included); at least one timed repetition always runs. */
const ROW_BUDGET_MS = 12_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** Bound on every exchange with the server worker (start, preload, close). */
const WORKER_TIMEOUT_MS = 60_000;

const API_KEY = 'smk_bench-key-with-every-permission';
const EXECUTE_PATH = '/api/v4/store/execute';
const SELECT_BY_ID = 'SELECT * FROM docs WHERE _id = :id';
const INSERT_ONE = 'INSERT INTO docs DOCUMENTS (:doc)';
const INSERT_MANY = 'INSERT INTO docs DOCUMENTS (:docs)';
const COUNT_DOCS = 'SELECT COUNT(*) AS n FROM docs';
const WORKER_ROLE = 'big-peer-bench-server';

const thousands = (n: number): string => n.toLocaleString('en-US');

// ---- the server worker ----

interface WorkerSetup {
  readonly role: typeof WORKER_ROLE;
  readonly dataDir: string;
}

type ToWorker = { readonly type: 'raw'; readonly body: string } | { readonly type: 'close' };
type FromWorker =
  | { readonly type: 'ready'; readonly url: string }
  | { readonly type: 'raw-ready'; readonly url: string }
  | { readonly type: 'closed'; readonly errors: readonly string[] }
  | { readonly type: 'failed'; readonly error: string };

/** The bare server: reads and drops the request body, then answers `body`, whatever was asked. */
function startRawServer(body: string): Promise<Server> {
  const length = String(Buffer.byteLength(body));
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': length });
      res.end(body);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** The worker: a Big Peer on a data directory with DOCS documents, then the raw server when asked. */
async function serve(setup: WorkerSetup): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('the server worker has no parent port');
  const send = (message: FromWorker): void => port.postMessage(message);
  // ERROR entries only, no console: any of them fails the suite at the end.
  const hub = new LogHub({ minimumLogLevel: 'ERROR' });
  const errors: string[] = [];
  hub.setCustomLogCallback((entry) => errors.push(entry.message));
  let raw: Server | undefined;
  let peer: BigPeer | undefined;
  try {
    peer = await BigPeer.start(
      bigPeerConfig({ appID: 'bench-app', host: '127.0.0.1', port: 0, dataDir: setup.dataDir, apiKeys: [API_KEY], logLevel: 'ERROR' }),
      { logHub: hub },
    );
    await peer.sync.store.execute(INSERT_MANY, { docs: generateDocuments(DOCS, { seed: SEED }) });
    send({ type: 'ready', url: peer.url });
  } catch (error) {
    send({ type: 'failed', error: String((error as Error).stack ?? error) });
    await peer?.close();
    port.close();
    return;
  }
  port.on('message', (message: ToWorker) => {
    void (async () => {
      try {
        if (message.type === 'raw') {
          raw = await startRawServer(message.body);
          send({ type: 'raw-ready', url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}` });
        } else {
          if (raw !== undefined) await closeServer(raw);
          await peer?.close();
          send({ type: 'closed', errors });
          port.close();
        }
      } catch (error) {
        send({ type: 'failed', error: String((error as Error).stack ?? error) });
      }
    })();
  });
}

if (!isMainThread && (workerData as Partial<WorkerSetup> | null)?.role === WORKER_ROLE) await serve(workerData as WorkerSetup);

/** The main thread's handle on the server worker: one question at a time, each bounded. */
class ServerWorker {
  readonly #worker: Worker;
  readonly #exited: Promise<number>;
  #waiting: { resolve: (m: FromWorker) => void; reject: (e: Error) => void } | undefined;
  #failure: Error | undefined;

  constructor(setup: WorkerSetup) {
    this.#worker = new Worker(new URL(import.meta.url), { workerData: setup });
    const fail = (error: Error): void => {
      this.#failure ??= error;
      this.#waiting?.reject(error);
      this.#waiting = undefined;
    };
    this.#worker.on('message', (message: FromWorker) => {
      if (message.type === 'failed') fail(new Error(`the server worker failed: ${message.error}`));
      else {
        this.#waiting?.resolve(message);
        this.#waiting = undefined;
      }
    });
    this.#worker.on('error', fail);
    this.#exited = new Promise((resolve) =>
      this.#worker.once('exit', (code) => {
        fail(new Error(`the server worker exited (code ${code})`));
        resolve(code);
      }),
    );
  }

  /** Sends `message` (if any) and waits for the worker's next message, of type `expected`. */
  async next<T extends FromWorker['type']>(expected: T, message?: ToWorker): Promise<Extract<FromWorker, { type: T }>> {
    if (this.#failure !== undefined) throw this.#failure;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answer = new Promise<FromWorker>((resolve, reject) => {
      this.#waiting = { resolve, reject };
      timer = setTimeout(
        () => reject(new Error(`the server worker did not answer ${message?.type ?? 'its start'} within ${WORKER_TIMEOUT_MS} ms`)),
        WORKER_TIMEOUT_MS,
      );
    });
    if (message !== undefined) this.#worker.postMessage(message);
    try {
      const got = await answer;
      check(got.type === expected, () => `the server worker answered ${got.type}, expected ${expected}`);
      return got as Extract<FromWorker, { type: T }>;
    } finally {
      clearTimeout(timer);
      this.#waiting = undefined;
    }
  }

  /** The server thread's event-loop utilisation (since `since`, if given): `active` is its busy milliseconds. */
  eventLoopUtilization(since?: EventLoopUtilization): EventLoopUtilization {
    return since === undefined ? this.#worker.performance.eventLoopUtilization() : this.#worker.performance.eventLoopUtilization(since);
  }

  /** Closes both servers; returns the ERROR log entries the Big Peer recorded. The worker is ended in any case. */
  async close(): Promise<readonly string[]> {
    try {
      return (await this.next('closed', { type: 'close' })).errors;
    } finally {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const exited = await Promise.race([this.#exited, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 5_000)))]);
      clearTimeout(timer);
      if (exited === undefined) await this.#worker.terminate();
    }
  }
}

// ---- the load generator ----

interface Answer {
  readonly status: number;
  readonly body: string;
}

/**
 * One keep-alive HTTP/1.1 connection of the load generator. It sends prebuilt requests one at a
 * time and reads each answer, framed by its Content-Length (both servers always send one). A
 * hand-made client, not node:http's: on 2 cores, node:http's client costs about what a bare
 * server does per request, so it could not load even the raw server (see docs/benchmarks.md).
 */
class Client {
  readonly #socket: Socket;
  #buffer: Buffer | undefined;
  #waiting: { resolve: (answer: Answer) => void; reject: (error: Error) => void } | undefined;
  #failure: Error | undefined;
  #closing = false;

  static open(port: number): Promise<Client> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, noDelay: true });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.removeListener('error', reject);
        resolve(new Client(socket));
      });
    });
  }

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => this.#fail(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('the server closed a keep-alive connection')));
  }

  send(request: Buffer): Promise<Answer> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#socket.write(request);
    });
  }

  close(): void {
    this.#closing = true;
    this.#socket.destroy();
  }

  #fail(error: Error): void {
    if (this.#closing) return;
    this.#failure ??= error;
    this.#waiting?.reject(error);
    this.#waiting = undefined;
    this.#socket.destroy();
  }

  #read(chunk: Buffer): void {
    const buffer = this.#buffer === undefined ? chunk : Buffer.concat([this.#buffer, chunk]);
    const waiting = this.#waiting;
    if (waiting === undefined) return this.#fail(new Error('the server sent bytes with no request in flight'));
    const headEnd = buffer.indexOf('\r\n\r\n');
    if (headEnd < 0) {
      this.#buffer = buffer;
      if (buffer.length > 64 * 1024) this.#fail(new Error('an answer head over 64 KiB'));
      return;
    }
    const head = buffer.toString('latin1', 0, headEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!head.startsWith('HTTP/1.1 ') || length === null || /\r\n(connection: *close|transfer-encoding:)/i.test(head)) {
      return this.#fail(new Error(`an answer this client does not frame: ${head.slice(0, 300)}`));
    }
    const end = headEnd + 4 + Number(length[1]);
    if (buffer.length < end) {
      this.#buffer = buffer;
      return;
    }
    if (buffer.length > end) return this.#fail(new Error('the server sent more than one answer to one request'));
    this.#buffer = undefined;
    this.#waiting = undefined;
    waiting.resolve({ status: Number(head.slice(9, 12)), body: buffer.toString('utf8', headEnd + 4, end) });
  }
}

/** A POST of `body` to store/execute, as bytes on the wire. */
function requestBytes(port: number, body: string): Buffer {
  return Buffer.from(
    `POST ${EXECUTE_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${API_KEY}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Checks one answer: its status and body; returns what is wrong with it, or undefined. */
type AnswerCheck = (i: number, answer: Answer) => string | undefined;

interface Batch {
  readonly requests: readonly Buffer[];
  readonly check: AnswerCheck;
}

/**
 * The clients send the batch's requests in all, each client waiting for its answer before it
 * sends its next request; every answer is checked. Returns each request's latency (from the
 * write to the last byte of the answer), in milliseconds, sorted.
 */
async function load(clients: readonly Client[], batch: Batch): Promise<number[]> {
  const total = batch.requests.length;
  const latencies = new Array<number>(total);
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      try {
        while (next < total) {
          const i = next++;
          const started = performance.now();
          const answer = await client.send(batch.requests[i] as Buffer);
          latencies[i] = performance.now() - started;
          const wrong = batch.check(i, answer);
          if (wrong !== undefined) throw new Error(`request ${i}: ${wrong}`);
        }
      } catch (error) {
        next = total; // the other clients stop after their request in flight
        throw error;
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

async function openClients(port: number, count: number): Promise<Client[]> {
  const clients: Client[] = [];
  try {
    for (let i = 0; i < count; i++) clients.push(await Client.open(port));
  } catch (error) {
    for (const c of clients) c.close();
    throw error;
  }
  return clients;
}

/** One request on a connection of its own; 200 or it throws. Returns the body. */
async function single(port: number, body: string): Promise<string> {
  const client = await Client.open(port);
  try {
    const answer = await client.send(requestBytes(port, body));
    check(answer.status === 200, () => `${body} answered ${answer.status}: ${answer.body}`);
    return answer.body;
  } finally {
    client.close();
  }
}

// ---- what the answers must be ----

interface ExecuteAnswer {
  readonly transactionId: number | null;
  readonly queryType: string;
  readonly items: { readonly _id?: unknown; readonly n?: unknown }[];
  readonly mutatedDocumentIds: unknown[];
}

function parse(text: string): ExecuteAnswer | undefined {
  try {
    return JSON.parse(text) as ExecuteAnswer;
  } catch {
    return undefined;
  }
}

/** Ours, a SELECT by `_id`: 200, and the one document with that id. */
function selectCheck(ids: readonly string[]): AnswerCheck {
  return (i, { status, body }) => {
    const answer = parse(body);
    if (status !== 200 || answer === undefined) return `answered ${status}: ${body.slice(0, 200)}`;
    if (answer.queryType !== 'select' || answer.items.length !== 1 || answer.items[0]?._id !== ids[i]) {
      return `a SELECT of ${ids[i]} answered ${answer.items.length} items: ${body.slice(0, 200)}`;
    }
    return undefined;
  };
}

/** Ours, an INSERT of one document: 200, and a committed transaction that wrote that `_id`. */
function insertCheck(ids: readonly string[]): AnswerCheck {
  return (i, { status, body }) => {
    const answer = parse(body);
    if (status !== 200 || answer === undefined) return `answered ${status}: ${body.slice(0, 200)}`;
    const mutated = answer.mutatedDocumentIds;
    if (answer.queryType !== 'mutation' || typeof answer.transactionId !== 'number' || mutated.length !== 1 || mutated[0] !== ids[i]) {
      return `an INSERT of ${ids[i]} answered ${body.slice(0, 200)}`;
    }
    return undefined;
  };
}

/** Raw: 200 and the fixed body, parsed, with its one item (the same client work as ours). */
const rawCheck: AnswerCheck = (_i, { status, body }) => {
  const answer = parse(body);
  if (status !== 200 || answer === undefined || answer.items.length !== 1) return `answered ${status}: ${body.slice(0, 200)}`;
  return undefined;
};

const executeBody = (statement: string, args: object): string => JSON.stringify({ statement, args });

// ---- the rows ----

interface Servers {
  readonly worker: ServerWorker;
  readonly oursPort: number;
  readonly rawPort: number;
}

/** One side's figures per repetition, warm-up repetitions first. */
interface Samples {
  readonly p50: number[];
  readonly p99: number[];
  /** Milliseconds the server thread's event loop was busy. */
  readonly busy: number[];
  /** Share of the repetition the load generator's thread was busy. */
  readonly clientBusy: number[];
}

/** The timed repetitions' median (compare() runs the warm-up first). */
const timedMedian = (values: readonly number[]): number => median(values.slice(WARMUP));

/** A side of a row: connections opened untimed, the batch sent and timed, server load measured. */
function loadSide(servers: Servers, port: number, concurrency: number, batch: () => Batch, samples: Samples): Side<{ clients: Client[]; batch: Batch }> {
  return {
    setup: async () => ({ clients: await openClients(port, concurrency), batch: batch() }),
    run: async ({ clients, batch: b }) => {
      const server = servers.worker.eventLoopUtilization();
      const client = nodePerformance.eventLoopUtilization();
      const latencies = await load(clients, b);
      samples.busy.push(servers.worker.eventLoopUtilization(server).active);
      samples.clientBusy.push(nodePerformance.eventLoopUtilization(client).utilization);
      samples.p50.push(percentile(latencies, 50));
      samples.p99.push(percentile(latencies, 99));
    },
    teardown: ({ clients }) => {
      for (const c of clients) c.close();
    },
  };
}

interface RowSpec {
  readonly label: string;
  readonly concurrency: number;
  /** Our batch for one repetition (REQUESTS requests), built untimed in setup; the same for raw. */
  readonly ours: () => Batch;
  readonly raw: () => Batch;
}

async function loadRows(context: SuiteContext, servers: Servers, spec: RowSpec): Promise<Row[]> {
  const ours: Samples = { p50: [], p99: [], busy: [], clientBusy: [] };
  const raw: Samples = { p50: [], p99: [], busy: [], clientBusy: [] };
  const c = await compare(
    loadSide(servers, servers.oursPort, spec.concurrency, spec.ours, ours),
    loadSide(servers, servers.rawPort, spec.concurrency, spec.raw, raw),
    {
      warmup: WARMUP,
      repeat: REPEAT,
      budgetMs: ROW_BUDGET_MS,
    },
  );
  const share = (s: Samples, ms: number): string =>
    `server ${((100 * timedMedian(s.busy)) / ms).toFixed(0)}%, clients ${(100 * timedMedian(s.clientBusy)).toFixed(0)}%`;
  context.log(`  busy: ours ${share(ours, c.ours)}; raw ${share(raw, c.raw)}`);
  const name = `${spec.label}, ${spec.concurrency} client${spec.concurrency === 1 ? '' : 's'}`;
  const repetitions = c.repetitions;
  return [
    { name: `${name}: requests`, kind: 'throughput', items: REQUESTS, ours: c.ours, raw: c.raw, repetitions },
    { name: `${name}: p50 latency`, kind: 'time', ours: timedMedian(ours.p50), raw: timedMedian(raw.p50), repetitions },
    { name: `${name}: p99 latency`, kind: 'time', ours: timedMedian(ours.p99), raw: timedMedian(raw.p99), repetitions },
    { name: `${name}: server busy`, kind: 'throughput', items: REQUESTS, ours: timedMedian(ours.busy), raw: timedMedian(raw.busy), repetitions },
  ];
}

async function countDocuments(port: number): Promise<number> {
  const body = await single(port, executeBody(COUNT_DOCS, {}));
  const n = parse(body)?.items[0]?.n;
  check(typeof n === 'number', () => `SELECT COUNT(*) answered ${body}`);
  return n as number;
}

const portOf = (url: string): number => Number(new URL(url).port);

async function runSuite(context: SuiteContext): Promise<Row[]> {
  context.log(`starting the Big Peer with ${thousands(DOCS)} documents (worker thread)`);
  const worker = new ServerWorker({ role: WORKER_ROLE, dataDir: join(context.tempDir('big-peer'), 'data') });
  let closed = false;
  try {
    const oursPort = portOf((await worker.next('ready')).url);
    // The raw server's body: a real SELECT answer of ours, byte for byte.
    const sample = await single(oursPort, executeBody(SELECT_BY_ID, { id: 'd000000000' }));
    check(parse(sample)?.items.length === 1, () => `the sample SELECT answered ${sample}`);
    const rawPort = portOf((await worker.next('raw-ready', { type: 'raw', body: sample })).url);
    const servers: Servers = { worker, oursPort, rawPort };
    const before = await countDocuments(oursPort);
    check(before === DOCS, () => `the Big Peer holds ${before} documents before the load, expected ${DOCS}`);
    context.log(`SELECT answer: ${Buffer.byteLength(sample)} bytes`);

    const random = seededRandom(SEED);
    const ids = Array.from({ length: REQUESTS }, () => `d${String(Math.floor(random() * DOCS)).padStart(9, '0')}`);
    const selectBodies = ids.map((id) => executeBody(SELECT_BY_ID, { id }));
    const oursSelects: Batch = { requests: selectBodies.map((b) => requestBytes(oursPort, b)), check: selectCheck(ids) };
    const rawSelects: Batch = { requests: selectBodies.map((b) => requestBytes(rawPort, b)), check: rawCheck };

    let nextInsert = DOCS;
    const insertBatch = (first: number): { bodies: string[]; ids: string[] } => {
      const docs = generateDocuments(REQUESTS, { seed: SEED, first });
      return { bodies: docs.map((doc) => executeBody(INSERT_ONE, { doc })), ids: docs.map((doc) => doc._id) };
    };
    // The raw server stores nothing: the same requests every time.
    const rawInserts: Batch = { requests: insertBatch(DOCS).bodies.map((b) => requestBytes(rawPort, b)), check: rawCheck };
    const oursInserts = (): Batch => {
      // A fresh range of ids for every repetition (compare() calls setup before each run).
      const { bodies, ids: written } = insertBatch(nextInsert);
      nextInsert += REQUESTS;
      return { requests: bodies.map((b) => requestBytes(oursPort, b)), check: insertCheck(written) };
    };

    const rows: Row[] = [];
    for (const concurrency of CONCURRENCY) {
      context.log(`SELECT by _id, ${concurrency} client(s)`);
      rows.push(...(await loadRows(context, servers, { label: 'SELECT by _id', concurrency, ours: () => oursSelects, raw: () => rawSelects })));
    }
    for (const concurrency of CONCURRENCY) {
      context.log(`INSERT one doc, ${concurrency} client(s)`);
      rows.push(...(await loadRows(context, servers, { label: 'INSERT one doc', concurrency, ours: oursInserts, raw: () => rawInserts })));
    }
    const after = await countDocuments(oursPort);
    check(after === nextInsert, () => `the Big Peer holds ${after} documents after the INSERTs, expected ${nextInsert}`);

    closed = true;
    const errors = await worker.close();
    check(errors.length === 0, () => `the Big Peer logged ${errors.length} error(s) under load: ${errors.slice(0, 3).join(' | ')}`);
    return rows;
  } finally {
    if (!closed) await worker.close().catch(() => undefined);
  }
}

export const bigPeerSuite: Suite = {
  name: 'big-peer',
  title: 'Big Peer · POST /api/v4/store/execute over loopback, keep-alive clients (raw = bare node:http, fixed body the size of the SELECT answer)',
  summary: "HTTP load on the Big Peer's POST /api/v4/store/execute vs a bare node:http server",
  durationSeconds: 84, // measured: one run on the 2-core VM, 2026-11-26
  run: runSuite,
};
