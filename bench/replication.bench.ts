/**
 * The replication suite: small peers syncing with a Big Peer over real WebSockets on
 * 127.0.0.1, against the same traffic carried by bare `ws` sockets (and, for the initial sync,
 * against raw better-sqlite3 inserting the same documents). It prints three tables, one per
 * group, all under the suite name `replication`; docs/benchmarks.md explains each row.
 *
 * - Initial sync: a new small peer (in memory) subscribes to `orders` and pulls 10,000, then
 *   100,000 documents from the Big Peer (SQLite in a temporary directory). Timed from
 *   `startSync()` (login included) until the small peer has committed the Nth document. Raw:
 *   a `ws` server sending the same documents as JSON frames of 500 to a client that parses
 *   them; and `RawStore.insertMany` (one transaction, WAL) of the same documents.
 * - Latency: small peer A inserts one document; timed until an observer on small peer B, both
 *   synced through the Big Peer, delivers it. Raw: client A → relay server → client B.
 * - Fan-out: one INSERT on the Big Peer, timed until all 50 small peers have committed it.
 *   Raw: a `ws` server sending one frame to 50 clients that parse it.
 *
 * Everything (Big Peer, small peers, raw servers and clients) runs in this one thread, on both
 * sides: a figure is the CPU of both ends of the wire plus the loopback. Every wait is bounded.
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { BigPeer, bigPeerConfig } from '../src/big-peer/index.ts';
import { Sync, onlinePlayground, type CommittedTransaction, type ObserverEvent } from '../src/peer/host.ts';
import { generateDocuments, type BenchDocument } from './documents.ts';
import {
  collectGarbage,
  median,
  percentile,
  timeOnce,
  type CompareOptions,
  type Row,
  type Side,
  type Suite,
  type SuiteContext,
  check,
  within,
} from './harness.ts';
import { RawStore } from './raw-store.ts';
import { Logs, SETUP_TIMEOUT_MS, closePeer, countOf } from './peers.ts';

const APP_ID = 'bench-replication';
const API_KEY = 'smk_bench-replication-key';
const PLAYGROUND_TOKEN = 'bench-playground-token';

// ---- initial sync ----
const SYNC_SEED = 17;
const SMALL = 10_000;
const LARGE = 100_000;
/** Documents per statement when the Big Peer is loaded (untimed). */
const LOAD_BATCH = 1_000;
/** Documents per frame of the raw ws server: the Big Peer's own chunk size (update-builder.ts). */
const RAW_FRAME_DOCS = 500;
const SMALL_OPTIONS: CompareOptions = { warmup: 1, repeat: 9, budgetMs: 30_000 };
const LARGE_OPTIONS: CompareOptions = { warmup: 1, repeat: 3, budgetMs: 90_000 };
/** Bound on one initial sync (the brief's "about 3 minutes"). */
const SYNC_TIMEOUT_MS = 180_000;

// ---- latency ----
const PING_SEED = 19;
const LATENCY_WARMUP = 20;
const LATENCY_REPEAT = 4;
const LATENCY_ROUNDS = 50;
const LATENCY_BUDGET_MS = 60_000;

// ---- fan-out ----
const FAN_SEED = 23;
const FAN_PEERS = 50;
const FAN_WARMUP = 3;
const FAN_REPEAT = 4;
const FAN_ROUNDS = 10;
const FAN_BUDGET_MS = 60_000;

/** Bound on one round (one write until it is seen), on either side. */
const ROUND_TIMEOUT_MS = 10_000;
/** Untimed pause after each round, so that its acknowledgements are not billed to the next. */
const ROUND_GAP_MS = 10;
/** Bound on any setup step: a login, a connection, a server closing. */

const thousands = (n: number): string => n.toLocaleString('en-US');
const ms = (value: number): string => `${value.toFixed(value < 10 ? 2 : 0)} ms`;

const pause = (delayMs: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, delayMs));

/** A promise with its resolve and reject functions. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

// ---- peers ----

async function startBigPeer(context: SuiteContext, logs: Logs, label: string): Promise<BigPeer> {
  const config = bigPeerConfig({
    appID: APP_ID,
    apiKeys: [API_KEY],
    playgroundToken: PLAYGROUND_TOKEN,
    host: '127.0.0.1',
    port: 0,
    dataDir: join(context.tempDir(label), 'data'),
    logLevel: 'WARN',
  });
  return within(BigPeer.start(config, { logHub: logs.hub }), SETUP_TIMEOUT_MS, 'starting the Big Peer');
}

/** A small peer in memory, subscribed to `statement`, not syncing yet. */
function smallPeer(bigPeer: BigPeer, logs: Logs, statement: string): Sync {
  const sync = new Sync({ inMemory: true, logHub: logs.hub, identity: onlinePlayground({ appID: APP_ID, token: PLAYGROUND_TOKEN, bigPeerURL: bigPeer.url }) });
  sync.store.registerSubscription(statement);
  return sync;
}

/** Calls `listener` with each document a commit of `sync` wrote into `collection`. */
function onDocuments(sync: Sync, collection: string, listener: (id: unknown) => void): () => void {
  return sync.store.onCommit((txn: CommittedTransaction) => {
    for (const change of txn.changes) if (change.collection === collection && change.kind === 'put') listener(change.id);
  });
}

// ---- bare ws ----

interface RawServer {
  readonly wss: WebSocketServer;
  readonly url: string;
  close(): Promise<void>;
}

async function startRawServer(onConnection: (socket: WebSocket) => void): Promise<RawServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  wss.on('connection', onConnection);
  await within(
    new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    }),
    SETUP_TIMEOUT_MS,
    'starting a raw ws server',
  );
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  return {
    wss,
    url,
    close: () =>
      within(
        new Promise<void>((resolve) => {
          for (const client of wss.clients) client.terminate();
          wss.close(() => resolve());
        }),
        SETUP_TIMEOUT_MS,
        'closing a raw ws server',
      ),
  };
}

/** An open ws client of `url`. */
function openClient(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  return within(
    new Promise<WebSocket>((resolve, reject) => {
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    }),
    SETUP_TIMEOUT_MS,
    `connecting to ${url}`,
  );
}

const textOf = (data: RawData): string =>
  Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');

// ---- timing several sides, alternated ----

/**
 * `compare` (harness.ts) for more than two sides: each repetition runs every side once, in
 * order, so that all meet the same machine state; returns each side's median and samples.
 */
async function alternate(sides: readonly Side<any>[], options: CompareOptions): Promise<{ medians: number[]; samples: number[][]; repetitions: number }> {
  const started = performance.now();
  for (let i = 0; i < options.warmup; i++) for (const side of sides) await timeOnce(side);
  const samples: number[][] = sides.map(() => []);
  for (let i = 0; i < options.repeat; i++) {
    if (i > 0 && performance.now() - started > options.budgetMs) break;
    for (let s = 0; s < sides.length; s++) samples[s]?.push(await timeOnce(sides[s] as Side<unknown>));
  }
  return { medians: samples.map((values) => median(values)), samples, repetitions: samples[0]?.length ?? 0 };
}

// ---- 1. initial sync ----

interface Arrival {
  readonly sync: Sync;
  /** Resolves when the small peer has committed every document. */
  readonly all: Promise<void>;
  readonly off: () => void;
}

/** Ours: a fresh small peer per repetition; timed from startSync() until it committed all `n` documents. */
function initialSyncSide(bigPeer: BigPeer, logs: Logs, n: number): Side<Arrival> {
  return {
    setup: () => {
      const sync = smallPeer(bigPeer, logs, 'SELECT * FROM orders');
      const done = deferred<void>();
      let received = 0;
      const off = onDocuments(sync, 'orders', () => {
        if (++received === n) done.resolve();
      });
      return { sync, all: done.promise, off };
    },
    run: async ({ sync, all }) => {
      await sync.startSync();
      await within(all, SYNC_TIMEOUT_MS, `the initial sync of ${thousands(n)} documents`);
    },
    teardown: async ({ sync, off }) => {
      off();
      try {
        const held = await countOf(sync, 'orders');
        check(held === n, () => `the small peer holds ${held} orders after its initial sync, expected ${n}`);
      } finally {
        await closePeer(sync);
      }
    },
  };
}

/** Raw: the server sends the documents as JSON frames of RAW_FRAME_DOCS to each client that connects. */
function startRawSyncServer(docs: readonly BenchDocument[]): Promise<RawServer> {
  return startRawServer((socket) => {
    for (let i = 0; i < docs.length; i += RAW_FRAME_DOCS) socket.send(JSON.stringify(docs.slice(i, i + RAW_FRAME_DOCS)));
  });
}

/** Raw ws: timed from connecting until the client has parsed all `n` documents. */
function rawWsSide(server: RawServer, n: number): Side<void> {
  return {
    run: async () => {
      const ws = new WebSocket(server.url, { perMessageDeflate: false });
      const done = deferred<void>();
      let received = 0;
      ws.on('message', (data: RawData) => {
        const docs = JSON.parse(textOf(data)) as BenchDocument[];
        received += docs.length;
        if (received >= n) done.resolve();
      });
      ws.once('error', done.reject);
      try {
        await within(done.promise, SYNC_TIMEOUT_MS, `the raw ws transfer of ${thousands(n)} documents`);
        check(received === n, () => `the raw ws client received ${received} documents, expected ${n}`);
      } finally {
        ws.terminate();
      }
    },
  };
}

/** Raw SQLite: the documents inserted in one transaction into a fresh WAL database. */
function rawSqliteSide(context: SuiteContext, docs: readonly BenchDocument[]): Side<RawStore> {
  return {
    setup: () => new RawStore(context.tempDir('raw-sqlite')),
    run: (raw) => raw.insertMany(docs),
    teardown: (raw) => {
      const held = raw.count();
      raw.close();
      check(held === docs.length, () => `the raw store holds ${held} rows, expected ${docs.length}`);
    },
  };
}

async function initialSyncRows(context: SuiteContext): Promise<Row[]> {
  const logs = new Logs();
  const bigPeer = await startBigPeer(context, logs, 'big-peer-sync');
  const rows: Row[] = [];
  try {
    let loaded = 0;
    for (const [n, options] of [
      [SMALL, SMALL_OPTIONS],
      [LARGE, LARGE_OPTIONS],
    ] as const) {
      context.log(`loading the Big Peer up to ${thousands(n)} orders`);
      for (let first = loaded; first < n; first += LOAD_BATCH) {
        const batch = generateDocuments(Math.min(LOAD_BATCH, n - first), { seed: SYNC_SEED, first });
        await bigPeer.sync.store.execute('INSERT INTO orders DOCUMENTS (:docs)', { docs: batch });
      }
      loaded = n;
      const held = await countOf(bigPeer.sync, 'orders');
      check(held === n, () => `the Big Peer holds ${held} orders, expected ${n}`);
      const docs = generateDocuments(n, { seed: SYNC_SEED });
      const server = await startRawSyncServer(docs);
      try {
        context.log(`initial sync of ${thousands(n)} documents`);
        const c = await alternate([initialSyncSide(bigPeer, logs, n), rawWsSide(server, n), rawSqliteSide(context, docs)], options);
        const [ours, ws, sqlite] = c.medians as [number, number, number];
        context.log(`  ours ${c.samples[0]?.map(ms).join(', ')}; raw ws ${c.samples[1]?.map(ms).join(', ')}; raw SQLite ${c.samples[2]?.map(ms).join(', ')}`);
        const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
        context.log(`  RSS now ${mb(process.memoryUsage().rss)}, peak of the run so far ${mb(process.resourceUsage().maxRSS * 1024)}`);
        const name = `initial sync, ${thousands(n)} docs`;
        rows.push(
          { name: `${name} (raw: ws frames of ${RAW_FRAME_DOCS})`, kind: 'throughput', items: n, ours, raw: ws, repetitions: c.repetitions },
          { name: `${name} (raw: SQLite INSERT, 1 txn)`, kind: 'throughput', items: n, ours, raw: sqlite, repetitions: c.repetitions },
        );
      } finally {
        await server.close();
      }
      logs.checkpoint(context, `initial sync of ${thousands(n)}`);
    }
  } finally {
    await bigPeer.close();
  }
  logs.checkpoint(context, 'initial sync, Big Peer closed');
  return rows;
}

// ---- 2. latency, small peer → Big Peer → small peer ----

/** The document of round `seq`: a benchmark document with its own `_id` and the sequence number. */
function ping(seq: number): BenchDocument & { seq: number } {
  const doc = generateDocuments(1, { seed: PING_SEED, first: seq })[0] as BenchDocument;
  return { ...doc, _id: `ping-${String(seq).padStart(6, '0')}`, seq };
}

interface Rounds {
  /** One round: the write, and its latency in milliseconds. */
  round(seq: number): Promise<number>;
}

/** Runs warm-up rounds of each side, then alternates `repeat` batches of `rounds` rounds; returns every timed latency, sorted, per side. */
async function alternateRounds(
  sides: readonly Rounds[],
  options: { warmup: number; repeat: number; rounds: number; budgetMs: number; firstSeq: number },
): Promise<{ latencies: number[][]; repetitions: number }> {
  const started = performance.now();
  let seq = options.firstSeq;
  for (const side of sides) {
    for (let i = 0; i < options.warmup; i++) {
      await side.round(seq++);
      await pause(ROUND_GAP_MS);
    }
  }
  const latencies: number[][] = sides.map(() => []);
  let repetitions = 0;
  for (let r = 0; r < options.repeat; r++) {
    if (r > 0 && performance.now() - started > options.budgetMs) break;
    for (let s = 0; s < sides.length; s++) {
      collectGarbage();
      for (let i = 0; i < options.rounds; i++) {
        latencies[s]?.push(await (sides[s] as Rounds).round(seq++));
        await pause(ROUND_GAP_MS);
      }
    }
    repetitions++;
  }
  return { latencies: latencies.map((l) => l.sort((a, b) => a - b)), repetitions };
}

/** Ours: A inserts the ping; timed until B's observer of that `_id` delivers it. */
function latencyOurs(a: Sync, b: Sync): Rounds {
  return {
    async round(seq) {
      const doc = ping(seq);
      const initial = deferred<void>();
      const seen = deferred<number>();
      const observer = b.store.registerObserver(
        'SELECT * FROM pings WHERE _id = :id',
        (event: ObserverEvent) => {
          if (event.isInitial) initial.resolve();
          else if (event.items.length === 1 && event.items[0]?.seq === seq) seen.resolve(performance.now());
        },
        { id: doc._id },
      );
      try {
        await within(initial.promise, ROUND_TIMEOUT_MS, `the initial delivery of the observer of ${doc._id}`);
        const started = performance.now();
        await a.store.execute('INSERT INTO pings DOCUMENTS (:doc)', { doc });
        return (await within(seen.promise, ROUND_TIMEOUT_MS, `${doc._id} reaching peer B`)) - started;
      } finally {
        observer.cancel();
      }
    },
  };
}

/** Raw: client A sends the ping as JSON; the relay forwards the frame to B, which parses it. */
async function latencyRaw(): Promise<{ rounds: Rounds; close: () => Promise<void> }> {
  const sockets: WebSocket[] = [];
  const relay = await startRawServer((socket) => {
    sockets.push(socket);
    socket.on('message', (data: RawData, isBinary: boolean) => {
      for (const other of sockets) if (other !== socket) other.send(data, { binary: isBinary });
    });
  });
  const a = await openClient(relay.url);
  const b = await openClient(relay.url);
  for (let i = 0; i < 100 && sockets.length < 2; i++) await pause(10);
  check(sockets.length === 2, () => `the relay has ${sockets.length} clients, expected 2`);
  let waiting: { seq: number; resolve: (at: number) => void } | undefined;
  b.on('message', (data: RawData) => {
    const doc = JSON.parse(textOf(data)) as { seq?: unknown };
    if (waiting !== undefined && doc.seq === waiting.seq) waiting.resolve(performance.now());
  });
  return {
    rounds: {
      async round(seq) {
        const doc = ping(seq);
        const seen = deferred<number>();
        waiting = { seq, resolve: seen.resolve };
        const started = performance.now();
        a.send(JSON.stringify(doc));
        return (await within(seen.promise, ROUND_TIMEOUT_MS, `${doc._id} through the relay`)) - started;
      },
    },
    close: async () => {
      a.terminate();
      b.terminate();
      await relay.close();
    },
  };
}

async function latencyRows(context: SuiteContext): Promise<Row[]> {
  const logs = new Logs();
  const bigPeer = await startBigPeer(context, logs, 'big-peer-latency');
  const peers: Sync[] = [];
  let raw: Awaited<ReturnType<typeof latencyRaw>> | undefined;
  try {
    const a = smallPeer(bigPeer, logs, 'SELECT * FROM pings');
    peers.push(a);
    const b = smallPeer(bigPeer, logs, 'SELECT * FROM pings');
    peers.push(b);
    await within(Promise.all([a.startSync(), b.startSync()]), SETUP_TIMEOUT_MS, 'starting sync on peers A and B');
    raw = await latencyRaw();
    context.log(`latency: ${LATENCY_WARMUP} warm-up rounds, then ${LATENCY_REPEAT} × ${LATENCY_ROUNDS} rounds per side`);
    const { latencies, repetitions } = await alternateRounds([latencyOurs(a, b), raw.rounds], {
      warmup: LATENCY_WARMUP,
      repeat: LATENCY_REPEAT,
      rounds: LATENCY_ROUNDS,
      budgetMs: LATENCY_BUDGET_MS,
      firstSeq: 0,
    });
    const [ours, bare] = latencies as [number[], number[]];
    const rounds = ours.length;
    context.log(
      `  ours p50 ${ms(percentile(ours, 50))}, p99 ${ms(percentile(ours, 99))}, max ${ms(ours.at(-1) ?? NaN)}; raw p50 ${ms(percentile(bare, 50))}, max ${ms(bare.at(-1) ?? NaN)}`,
    );
    const sent = LATENCY_WARMUP + repetitions * LATENCY_ROUNDS;
    const held = await countOf(b, 'pings');
    check(held === sent, () => `peer B holds ${held} pings, expected ${sent}`);
    const name = `1 write, peer A → Big Peer → observer on B (${rounds} rounds)`;
    logs.checkpoint(context, 'latency');
    return [
      { name: `${name}: p50`, kind: 'time', ours: percentile(ours, 50), raw: percentile(bare, 50), repetitions },
      { name: `${name}: p99`, kind: 'time', ours: percentile(ours, 99), raw: percentile(bare, 99), repetitions },
    ];
  } finally {
    await raw?.close();
    for (const p of peers) await closePeer(p);
    await bigPeer.close();
  }
}

// ---- 3. fan-out, Big Peer → 50 small peers ----

/** Resolves with the time the `count`th listener reported `id`. */
class FanWatch {
  #id: unknown;
  #count = 0;
  #remaining = 0;
  #first = 0;
  #done: ((at: { first: number; last: number }) => void) | undefined;

  expect(id: unknown, count: number): Promise<{ first: number; last: number }> {
    const d = deferred<{ first: number; last: number }>();
    this.#id = id;
    this.#count = count;
    this.#remaining = count;
    this.#done = d.resolve;
    return d.promise;
  }

  seen(id: unknown): void {
    if (id !== this.#id || this.#done === undefined) return;
    const now = performance.now();
    if (this.#remaining === this.#count) this.#first = now;
    if (--this.#remaining === 0) {
      this.#done({ first: this.#first, last: now });
      this.#done = undefined;
    }
  }
}

function fanDoc(seq: number): BenchDocument & { seq: number } {
  const doc = generateDocuments(1, { seed: FAN_SEED, first: seq })[0] as BenchDocument;
  return { ...doc, _id: `fan-${String(seq).padStart(6, '0')}`, seq };
}

async function fanOutRows(context: SuiteContext): Promise<Row[]> {
  const logs = new Logs();
  const bigPeer = await startBigPeer(context, logs, 'big-peer-fan-out');
  const peers: Sync[] = [];
  const ours = new FanWatch();
  const bare = new FanWatch();
  const firsts: number[][] = [[], []];
  let server: RawServer | undefined;
  const clients: WebSocket[] = [];
  try {
    context.log(`fan-out: starting ${FAN_PEERS} small peers and ${FAN_PEERS} raw clients`);
    for (let i = 0; i < FAN_PEERS; i++) {
      const sync = smallPeer(bigPeer, logs, 'SELECT * FROM fanout');
      peers.push(sync);
      onDocuments(sync, 'fanout', (id) => ours.seen(id));
      await within(sync.startSync(), SETUP_TIMEOUT_MS, `starting sync on small peer ${i}`);
    }
    server = await startRawServer(() => {});
    for (let i = 0; i < FAN_PEERS; i++) {
      const ws = await openClient(server.url);
      ws.on('message', (data: RawData) => bare.seen((JSON.parse(textOf(data)) as { _id?: unknown })._id));
      clients.push(ws);
    }
    for (let i = 0; i < 100 && server.wss.clients.size < FAN_PEERS; i++) await pause(10);
    check(server.wss.clients.size === FAN_PEERS, () => `the raw server has ${server?.wss.clients.size} clients, expected ${FAN_PEERS}`);
    const rawServer = server;

    const oursRounds: Rounds = {
      async round(seq) {
        const doc = fanDoc(seq);
        const arrived = ours.expect(doc._id, FAN_PEERS);
        const started = performance.now();
        await bigPeer.sync.store.execute('INSERT INTO fanout DOCUMENTS (:doc)', { doc });
        const at = await within(arrived, ROUND_TIMEOUT_MS, `${doc._id} reaching all ${FAN_PEERS} small peers`);
        firsts[0]?.push(at.first - started);
        return at.last - started;
      },
    };
    const rawRounds: Rounds = {
      async round(seq) {
        const doc = fanDoc(seq);
        const arrived = bare.expect(doc._id, FAN_PEERS);
        const started = performance.now();
        const text = JSON.stringify(doc);
        for (const client of rawServer.wss.clients) client.send(text);
        const at = await within(arrived, ROUND_TIMEOUT_MS, `${doc._id} reaching all ${FAN_PEERS} raw clients`);
        firsts[1]?.push(at.first - started);
        return at.last - started;
      },
    };
    // The first write reaches a peer only once its subscription has reached the Big Peer: an
    // untimed write (seq 0), waited for with the round bound, before the warm-up.
    await oursRounds.round(0);
    firsts[0]?.pop();
    const { latencies, repetitions } = await alternateRounds([oursRounds, rawRounds], {
      warmup: FAN_WARMUP,
      repeat: FAN_REPEAT,
      rounds: FAN_ROUNDS,
      budgetMs: FAN_BUDGET_MS,
      firstSeq: 1,
    });
    const [o, r] = latencies as [number[], number[]];
    const firstMedian = (i: number): number => median((firsts[i] as number[]).slice(FAN_WARMUP));
    context.log(`  first peer: ours p50 ${ms(firstMedian(0))}, raw p50 ${ms(firstMedian(1))}; all: ours ${o.map(ms).join(', ')}`);
    for (const [i, sync] of peers.entries()) {
      const held = await countOf(sync, 'fanout');
      const expected = 1 + FAN_WARMUP + repetitions * FAN_ROUNDS;
      check(held === expected, () => `small peer ${i} holds ${held} fan-out documents, expected ${expected}`);
    }
    logs.checkpoint(context, 'fan-out');
    const name = `1 Big Peer write → all ${FAN_PEERS} small peers (${o.length} writes)`;
    return [
      { name: `${name}: p50`, kind: 'time', ours: percentile(o, 50), raw: percentile(r, 50), repetitions },
      { name: `${name}: max`, kind: 'time', ours: o.at(-1) ?? NaN, raw: r.at(-1) ?? NaN, repetitions },
    ];
  } finally {
    for (const ws of clients) ws.terminate();
    await server?.close();
    for (const p of peers) await closePeer(p);
    await bigPeer.close();
  }
}

function suite(title: string, run: (context: SuiteContext) => Promise<Row[]>): Suite {
  return {
    name: 'replication',
    title,
    summary: 'initial sync, latency and fan-out through a Big Peer over WebSocket vs raw ws (and raw SQLite)',
    durationSeconds: 49, // measured: one run on the 2-core VM, 2026-11-26
    run,
  };
}

export const replicationSuites: readonly Suite[] = [
  suite(
    'Replication · initial sync, Big Peer (SQLite) → new small peer (in memory) over loopback WebSocket, from startSync() to the last doc committed (raw = ws frames of 500 docs, parsed; SQLite = one-transaction INSERT)',
    initialSyncRows,
  ),
  suite(
    'Replication · one write on small peer A until the observer on small peer B sees it, through the Big Peer (raw = ws client → relay server → ws client)',
    latencyRows,
  ),
  suite(
    `Replication · fan-out of one Big Peer write to ${FAN_PEERS} small peers, until all committed it (raw = ws server sending one frame to ${FAN_PEERS} clients)`,
    fanOutRows,
  ),
];
