/**
 * The nodes suite: Big Peer nodes sharing one PostgreSQL database (src/big-peer/postgres/), each
 * node a process of its own (bench/nodes-host.ts), against baselines doing the same work by
 * hand. On a 2-core machine the point is that two nodes work and what they cost, not a
 * speed-up. docs/benchmarks.md explains each row.
 *
 * - Writes: a node's loop of one-document INSERTs through its store (one transaction each),
 *   with one node, and with two nodes writing at once (total throughput). Raw: `pg` running the
 *   same six statements per write as the store did before group commit (BEGIN, the clock row
 *   FOR UPDATE, the document INSERT, the clock UPDATE, pg_notify, COMMIT; the store now sends
 *   them in three round trips), from one client and from two at once.
 * - 64 concurrent HTTP writers: 64 keep-alive clients, each 40 single-document INSERTs through
 *   `store/execute`, spread over 1, 2 and 4 nodes: total writes/s, p50 and p99 of one write.
 *   Raw: 64 `pg` clients running the six statements per write at once.
 * - 200 replicating small peers writing single documents on 1, 2 and 4 nodes
 *   (bench/nodes-peer-writes.ts): committed in PostgreSQL per second, local commit → node
 *   commit p50/p99, CPU per write. Raw: 200 `pg` clients running a replicated write's statements.
 * - Latency: small peer A writes one document; timed until an observer on small peer B delivers
 *   it, with A and B on one node, and with A on node 1 and B on node 2 (the commit crosses
 *   nodes through NOTIFY). Raw: ws client → relay server (a process) → ws client; and, for the
 *   cross-node figure, NOTIFY → LISTEN between two `pg` connections.
 * - 200 small peers (in a process of their own, bench/nodes-peers.ts) through a TCP balancer in
 *   front of two nodes: the time until all have a session, one write's fan-out to all, the CPU
 *   time per write of the peers' process and of the nodes', and the nodes' resident-set growth.
 *   Raw: 200 `ws` clients of one `ws` server process.
 * - Selective SELECT over HTTP store/execute on a collection of SELECT_DOCS documents, without and
 *   with a DQL index on the path (issue 23: the condition runs in PostgreSQL). Raw: `pg` running
 *   the equivalent query on a hand-made table of the same documents (`id text, doc jsonb`),
 *   without and with an expression index on `doc -> 'n'`.
 *
 * PostgreSQL: SYNCMESH_TEST_POSTGRES if set, otherwise one throwaway cluster for the suite
 * (scripts/postgres-cluster.js), stopped at the end; each measurement gets a fresh database,
 * dropped after it. Without PostgreSQL the suite fails with how to get one. Every wait is bounded.
 */
import http from 'node:http';
import pg from 'pg';
import { WebSocket, type RawData } from 'ws';
import { smallPeerOf } from '../src/testing/postgres/pg-nodes.ts';
import { PG_MIGRATIONS } from '../src/big-peer/postgres/pg-schema.ts';
import { TcpBalancer } from '../src/testing/big-peer/tcp-balancer.ts';
import { TEST_KEY } from '../src/testing/big-peer/test-helpers.ts';
import { type ObserverEvent, type Sync } from '../src/peer/host.ts';
import { sortKey } from '../src/peer/dql/sort-key.ts';
import { generateDocuments, type BenchDocument } from './documents.ts';
import { alternate, check, collectGarbage, median, percentile, within, type Row, type Suite, type SuiteContext } from './harness.ts';
import { Child, cpuMs, wallNow, writeDocuments, type Memory, type NodeLogs, type WritePlan } from './nodes-ipc.ts';
import type { HostSetup } from './nodes-host.ts';
import type { Arrival, PeersSetup } from './nodes-peers.ts';
import { peerWriteRows } from './nodes-peer-writes.ts';
import { NodeProcess, checkLogs, closeAll, startNodes, type StorageCounters } from './nodes-process.ts';
import { Logs, SETUP_TIMEOUT_MS, closePeer, countOf } from './peers.ts';
import { inFreshDatabase, postgresCpuRows, postgresServer, serverCpuMs, withClient, type PostgresServer } from './postgres-server.ts';

const HOST = new URL('./nodes-host.ts', import.meta.url);
const PEERS_PROCESS = new URL('./nodes-peers.ts', import.meta.url);

// ---- writes ----
const WRITE_SEED = 31;
/** One-document INSERTs per node (or raw client) per repetition. */
const WRITES = 300;
const WRITE_WARMUP = 1;
const WRITE_REPEAT = 5;
/** Per row, both sides; at least one timed repetition always runs. */
const WRITE_BUDGET_MS = 25_000;

// ---- latency ----
const PING_SEED = 37;
const LATENCY_WARMUP = 10;
const LATENCY_REPEAT = 5;
const LATENCY_ROUNDS = 10;
const LATENCY_BUDGET_MS = 60_000;
/** A cross-node p95 above this looks like the storage's 1 s poll, not a notification: said on stderr. */
const POLL_SUSPECT_MS = 250;

// ---- 200 and 1,000 peers ----
const FAN_SEED = 41;
/**
 * The fan-out rows: how many small peers, repetitions within a budget (each with fresh servers
 * and clients), and how many start at once (more than a node's 256 places for sessions waiting
 * for their announcement would be refused and redial).
 */
interface FanScale {
  readonly peers: number;
  readonly repeat: number;
  readonly budgetMs: number;
  readonly connectBatch: number;
}
const FAN_SCALES: readonly FanScale[] = [
  { peers: 200, repeat: 3, budgetMs: 90_000, connectBatch: 200 },
  { peers: 1_000, repeat: 2, budgetMs: 120_000, connectBatch: 200 },
];
const FAN_WARMUP = 2;
const FAN_ROUNDS = 8;

/** Bound on one round (one write until it is seen), on any side. */
const ROUND_TIMEOUT_MS = 10_000;
/** Untimed pause after each round, so that its acknowledgements are not billed to the next. */
const ROUND_GAP_MS = 10;
/** Bound on setup steps: a connection, a login, a server closing, the sessions counted. */

const ms = (value: number): string => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const pause = (delayMs: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, delayMs));

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Polls `ready` every 10 ms until it holds, for at most `timeoutMs`. */
async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = SETUP_TIMEOUT_MS): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await ready())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await pause(10);
  }
}

// ---- PostgreSQL ----

// postgresServer, withClient and inFreshDatabase: bench/postgres-server.ts.

// ---- the node processes: NodeProcess, startNodes, closeAll, checkLogs (bench/nodes-process.ts) ----

// ---- 1. writes ----

/** The raw side: the database work of one store write, by hand, on the tables of pg-schema.ts. */
class RawWriter {
  readonly #client: pg.Client;
  #hlc = Date.now() * 65_536;

  static async open(url: string, schema: string): Promise<RawWriter> {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, options: `-c search_path=${schema}` });
    await client.connect();
    return new RawWriter(client);
  }

  /** Creates `schema` with the store's tables (migration 1), as a node would. */
  static async createSchema(url: string, schema: string): Promise<void> {
    await withClient(url, async (client) => {
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(`SET search_path TO ${schema}`);
      await client.query(PG_MIGRATIONS[0] as string);
    });
  }

  private constructor(client: pg.Client) {
    this.#client = client;
  }

  /**
   * One document in one transaction, as the store writes it: BEGIN; the clock row FOR UPDATE
   * (the cluster's write lock); the document; the clock; the commit's notification; COMMIT.
   */
  async write(collection: string, doc: BenchDocument): Promise<void> {
    const c = this.#client;
    await c.query('BEGIN');
    const locked = await c.query({ text: 'SELECT txn_id, hlc FROM clock WHERE one = 1 FOR UPDATE', rowMode: 'array' });
    const txnId = Number(locked.rows[0]?.[0]) + 1;
    const hlc = (this.#hlc++).toString(16).padStart(16, '0');
    await c.query({
      text: 'INSERT INTO documents (collection, id, body, meta, deleted, txn_id) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING',
      values: [collection, sortKey(doc._id), JSON.stringify(doc), JSON.stringify({ c: [hlc, 'zUpcn97IwluLK5Nea9rSF0HCOjFg0aDN9pvBvmVfldc'] }), false, txnId],
      rowMode: 'array',
    });
    await c.query({ text: 'UPDATE clock SET txn_id = $1, hlc = $2 WHERE one = 1', values: [txnId, hlc], rowMode: 'array' });
    await c.query({ text: 'SELECT pg_notify($1, $2)', values: ['syncmesh_commit', JSON.stringify({ s: 'raw', t: txnId, c: [collection] })], rowMode: 'array' });
    await c.query('COMMIT');
  }

  async count(): Promise<number> {
    return Number((await this.#client.query({ text: 'SELECT count(*) FROM documents', rowMode: 'array' })).rows[0]?.[0]);
  }

  async close(): Promise<void> {
    await this.#client.end();
  }
}

const writePlan = (repetition: number, writer: number): WritePlan => ({
  collection: 'orders',
  prefix: `w${repetition}-${writer}-`,
  count: WRITES,
  seed: WRITE_SEED,
});

/** One row: `writers` nodes writing WRITES documents each at once, against as many raw clients. */
async function writeRow(context: SuiteContext, server: PostgresServer, writers: number): Promise<Row> {
  return inFreshDatabase(server, `writes${writers}`, (ours) =>
    inFreshDatabase(server, `writes${writers}_raw`, async (raw) => {
      const nodes = await startNodes(ours, writers);
      const rawWriters: RawWriter[] = [];
      try {
        await RawWriter.createSchema(raw.url, 'raw');
        for (let i = 0; i < writers; i++) rawWriters.push(await RawWriter.open(raw.url, 'raw'));
        const perNode: number[][] = nodes.map(() => []);
        const oursSide = async (repetition: number): Promise<number> => {
          await Promise.all(nodes.map((node, i) => node.prepare(writePlan(repetition, i))));
          const spans = await Promise.all(nodes.map((node) => node.go()));
          for (const [i, span] of spans.entries()) perNode[i]?.push(span.end - span.start);
          return Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start));
        };
        const rawSide = async (repetition: number): Promise<number> => {
          const batches = rawWriters.map((_, i) => writeDocuments(writePlan(repetition, i)));
          collectGarbage();
          const start = performance.now();
          await Promise.all(
            rawWriters.map(async (writer, i) => {
              for (const doc of batches[i] as BenchDocument[]) await writer.write('orders', doc);
            }),
          );
          return performance.now() - start;
        };
        context.log(`writes, ${writers} node(s): ${WRITE_WARMUP} warm-up, then up to ${WRITE_REPEAT} repetitions of ${writers} × ${WRITES} INSERTs per side`);
        const [o, r] = (await alternate([oursSide, rawSide], { warmup: WRITE_WARMUP, repeat: WRITE_REPEAT, budgetMs: WRITE_BUDGET_MS })) as [
          number[],
          number[],
        ];
        context.log(`  ours ${o.map(ms).join(', ')}; raw ${r.map(ms).join(', ')}`);
        if (writers > 1)
          context.log(`  each node's own loop (ms): ${perNode.map((p, i) => `node-${i + 1} ${p.map((v) => v.toFixed(0)).join(', ')}`).join('; ')}`);
        const written = (WRITE_WARMUP + o.length) * WRITES * writers;
        const held = await nodes[0]?.count('orders');
        check(held === written, () => `the nodes' store holds ${held} orders, expected ${written}`);
        let rawHeld = 0;
        if (rawWriters[0] !== undefined) rawHeld = await rawWriters[0].count();
        check(rawHeld === written, () => `the raw tables hold ${rawHeld} documents, expected ${written}`);
        await checkLogs(context, `writes, ${writers} node(s)`, nodes);
        const name =
          writers === 1
            ? `writes: 1 node, ${WRITES} INSERTs of 1 doc, 1 txn each (raw: pg, same statements, 1 client)`
            : `writes: ${writers} nodes at once, ${writers} × ${WRITES} INSERTs (raw: pg, ${writers} clients at once)`;
        return { name, kind: 'throughput', items: WRITES * writers, ours: median(o), raw: median(r), repetitions: o.length };
      } finally {
        await Promise.allSettled(rawWriters.map((w) => w.close()));
        await closeAll(nodes);
      }
    }),
  );
}

// ---- 1b. concurrent HTTP writers ----

/** Concurrent HTTP clients, and the one-document writes each makes per repetition. */
const HTTP_CLIENTS = 64;
const HTTP_WRITES_PER_CLIENT = 40;
const HTTP_REPEAT = 3;
const HTTP_BUDGET_MS = 40_000;
const HTTP_NODES = [1, 2, 4] as const;

/** One `INSERT INTO orders DOCUMENTS (:d)` through the HTTP API; resolves with its milliseconds. */
function httpInsert(agent: http.Agent, base: string, doc: BenchDocument): Promise<number> {
  const body = JSON.stringify({ statement: 'INSERT INTO orders DOCUMENTS (:d)', args: { d: doc } });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${base}/api/v4/store/execute`,
      {
        method: 'POST',
        agent,
        timeout: ROUND_TIMEOUT_MS,
        headers: { Authorization: `Bearer ${TEST_KEY}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          if (response.statusCode === 200) resolve(performance.now() - started);
          else reject(new Error(`HTTP ${response.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`));
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${ROUND_TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

/** `clients` loops of `perClient` writes at once, each through `write`; the span and every write's latency. */
async function concurrently(
  clients: number,
  perClient: number,
  write: (client: number, i: number) => Promise<number>,
): Promise<{ ms: number; latencies: number[] }> {
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < perClient; i++) latencies.push(await write(c, i));
    }),
  );
  return { ms: performance.now() - start, latencies };
}

/** Where a repetition's CPU went, milliseconds, and what the nodes sent PostgreSQL. */
interface CpuSpent {
  /** The nodes' processes, summed (undefined on the raw side, which has none). */
  readonly nodes: number | undefined;
  /** The suite's process: the HTTP clients, or the raw `pg` clients. */
  readonly client: number;
  /** PostgreSQL's processes (undefined when they cannot be read: another host). */
  readonly server: number | undefined;
  readonly counters: StorageCounters | undefined;
}

/** What the processes of a measurement have used so far (see CpuSpent). */
async function cpuNow(nodes: readonly NodeProcess[], backendPid: number): Promise<CpuSpent> {
  const [cpus, counters] = await Promise.all([Promise.all(nodes.map((n) => n.cpu())), Promise.all(nodes.map((n) => n.counters()))]);
  const sum = (key: keyof StorageCounters): number => counters.reduce((total, c) => total + c[key], 0);
  return {
    nodes: nodes.length === 0 ? undefined : cpus.reduce((a, b) => a + b, 0),
    client: cpuMs(),
    server: serverCpuMs(backendPid),
    counters: nodes.length === 0 ? undefined : { groups: sum('groups'), writes: sum('writes'), statements: sum('statements'), roundTrips: sum('roundTrips') },
  };
}

/** `after` less `before`, per write. */
function perWrite(before: CpuSpent, after: CpuSpent, writes: number): CpuSpent {
  const less = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined ? undefined : (a - b) / writes);
  const [a, b] = [after.counters, before.counters];
  return {
    nodes: less(after.nodes, before.nodes),
    client: (after.client - before.client) / writes,
    server: less(after.server, before.server),
    counters:
      a === undefined || b === undefined
        ? undefined
        : {
            groups: (a.groups - b.groups) / writes,
            writes: (a.writes - b.writes) / writes,
            statements: (a.statements - b.statements) / writes,
            roundTrips: (a.roundTrips - b.roundTrips) / writes,
          },
  };
}

const totalCpu = (spent: CpuSpent): number => (spent.nodes ?? 0) + spent.client + (spent.server ?? 0);

/**
 * Rows per node count: HTTP_CLIENTS clients (client c on node c mod n, keep-alive) each writing
 * HTTP_WRITES_PER_CLIENT single documents, total throughput and p50/p99 of one write, and where
 * the CPU went per write (the nodes, the clients, PostgreSQL: what bounds the total on a small
 * machine); raw: as many `pg` clients each running the six statements of RawWriter per write.
 */
async function concurrentRows(context: SuiteContext, server: PostgresServer, nodeCount: number): Promise<Row[]> {
  return inFreshDatabase(server, `http${nodeCount}`, (ours) =>
    inFreshDatabase(server, `http${nodeCount}_raw`, async (raw) => {
      const nodes = await startNodes(ours, nodeCount);
      const rawWriters: RawWriter[] = [];
      // A connection of the suite's own, for the process id of a backend: PostgreSQL's processes are its siblings.
      const probe = new pg.Client({ connectionString: raw.url, connectionTimeoutMillis: 10_000 });
      try {
        await probe.connect();
        const backendPid = Number((await probe.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
        await RawWriter.createSchema(raw.url, 'raw');
        for (let i = 0; i < HTTP_CLIENTS; i++) rawWriters.push(await RawWriter.open(raw.url, 'raw'));
        const docs = (repetition: number, side: string): BenchDocument[][] =>
          Array.from({ length: HTTP_CLIENTS }, (_, c) =>
            writeDocuments({ collection: 'orders', count: HTTP_WRITES_PER_CLIENT, seed: WRITE_SEED + c, prefix: `${side}${repetition}-${c}-` }),
          );
        const total = HTTP_CLIENTS * HTTP_WRITES_PER_CLIENT;
        const latencies: [number[], number[]] = [[], []];
        const spent: [CpuSpent[], CpuSpent[]] = [[], []];
        const oursSide = async (repetition: number): Promise<number> => {
          const batch = docs(repetition, 'h');
          // An agent per repetition: a node closes connections idle past its keep-alive timeout while the raw side runs.
          const agent = new http.Agent({ keepAlive: true, maxSockets: HTTP_CLIENTS });
          try {
            const before = await cpuNow(nodes, backendPid);
            const run = await concurrently(HTTP_CLIENTS, HTTP_WRITES_PER_CLIENT, (c, i) =>
              httpInsert(agent, (nodes[c % nodes.length] as NodeProcess).url, batch[c]?.[i] as BenchDocument),
            );
            spent[0].push(perWrite(before, await cpuNow(nodes, backendPid), total));
            latencies[0].push(...run.latencies);
            return run.ms;
          } finally {
            agent.destroy();
          }
        };
        const rawSide = async (repetition: number): Promise<number> => {
          const batch = docs(repetition, 'r');
          const before = await cpuNow([], backendPid);
          const run = await concurrently(HTTP_CLIENTS, HTTP_WRITES_PER_CLIENT, async (c, i) => {
            const started = performance.now();
            await (rawWriters[c] as RawWriter).write('orders', batch[c]?.[i] as BenchDocument);
            return performance.now() - started;
          });
          spent[1].push(perWrite(before, await cpuNow([], backendPid), total));
          latencies[1].push(...run.latencies);
          return run.ms;
        };
        context.log(
          `${HTTP_CLIENTS} HTTP clients, ${nodeCount} node(s): ${WRITE_WARMUP} warm-up, then up to ${HTTP_REPEAT} repetitions of ${HTTP_CLIENTS} × ${HTTP_WRITES_PER_CLIENT} writes per side`,
        );
        const [o, r] = (await alternate([oursSide, rawSide], { warmup: WRITE_WARMUP, repeat: HTTP_REPEAT, budgetMs: HTTP_BUDGET_MS })) as [number[], number[]];
        // The CPU of the timed repetitions only (the warm-up's comes first).
        const [oc, rc] = [spent[0].slice(WRITE_WARMUP), spent[1].slice(WRITE_WARMUP)];
        const us = (value: number | undefined): string => (value === undefined ? '?' : `${(value * 1000).toFixed(0)} µs`);
        const cpuText = (s: CpuSpent): string =>
          `nodes ${us(s.nodes)}, client ${us(s.client)}, PostgreSQL ${us(s.server)}` +
          (s.counters === undefined
            ? ''
            : `; ${s.counters.statements.toFixed(2)} statements, ${s.counters.roundTrips.toFixed(2)} round trips, ${(1 / s.counters.groups).toFixed(1)} writes per group`);
        context.log(
          `  ours ${o.map((v) => `${((total / v) * 1000).toFixed(0)}/s`).join(', ')}; raw ${r.map((v) => `${((total / v) * 1000).toFixed(0)}/s`).join(', ')}`,
        );
        context.log(`  CPU per write, ours: ${oc.map(cpuText).join(' | ')}`);
        context.log(`  CPU per write, raw: ${rc.map(cpuText).join(' | ')}`);
        const written = (WRITE_WARMUP + o.length) * total;
        const held = await nodes[0]?.count('orders');
        check(held === written, () => `the nodes' store holds ${held} orders, expected ${written}`);
        const rawHeld = (await rawWriters[0]?.count()) ?? 0;
        check(rawHeld === written, () => `the raw tables hold ${rawHeld} documents, expected ${written}`);
        await checkLogs(context, `${HTTP_CLIENTS} HTTP clients, ${nodeCount} node(s)`, nodes);
        // Latencies of the timed repetitions only (the warm-up's come first).
        const timed = (all: number[]): number[] => all.slice(WRITE_WARMUP * total).sort((a, b) => a - b);
        const [ol, rl] = [timed(latencies[0]), timed(latencies[1])];
        const where = `${nodeCount} node${nodeCount === 1 ? '' : 's'}`;
        const rawName = `raw: ${HTTP_CLIENTS} pg clients, the six statements each`;
        const rows: Row[] = [
          {
            name: `writes: ${HTTP_CLIENTS} HTTP clients × ${HTTP_WRITES_PER_CLIENT} single-doc INSERTs, ${where}, total (${rawName})`,
            kind: 'throughput',
            items: total,
            ours: median(o),
            raw: median(r),
            repetitions: o.length,
          },
          {
            name: `writes: ${HTTP_CLIENTS} HTTP clients, ${where}: p50 of one write (${rawName})`,
            kind: 'time',
            ours: percentile(ol, 50),
            raw: percentile(rl, 50),
            repetitions: o.length,
          },
          {
            name: `writes: ${HTTP_CLIENTS} HTTP clients, ${where}: p99 of one write (${rawName})`,
            kind: 'time',
            ours: percentile(ol, 99),
            raw: percentile(rl, 99),
            repetitions: o.length,
          },
          {
            name: `writes: ${HTTP_CLIENTS} HTTP clients, ${where}: CPU per write, every process: nodes + clients + PostgreSQL (raw: pg clients + PostgreSQL)`,
            kind: 'time',
            ours: median(oc.map(totalCpu)),
            raw: median(rc.map(totalCpu)),
            repetitions: o.length,
          },
          {
            name: `writes: ${HTTP_CLIENTS} HTTP clients, ${where}: CPU per write of the clients' process (raw: of the ${HTTP_CLIENTS} pg clients')`,
            kind: 'time',
            ours: median(oc.map((c) => c.client)),
            raw: median(rc.map((c) => c.client)),
            repetitions: o.length,
          },
        ];
        rows.push(
          ...postgresCpuRows(
            `writes: ${HTTP_CLIENTS} HTTP clients, ${where}`,
            oc.map((c) => c.server),
            rc.map((c) => c.server),
          ),
        );
        return rows;
      } finally {
        await probe.end().catch(() => undefined);
        await Promise.allSettled(rawWriters.map((w) => w.close()));
        await closeAll(nodes);
      }
    }),
  );
}

// ---- 2. latency ----

interface Rounds {
  /** One round: the write, and its latency in milliseconds. */
  round(seq: number): Promise<number>;
}

function ping(seq: number): BenchDocument & { seq: number } {
  const doc = generateDocuments(1, { seed: PING_SEED, first: seq })[0] as BenchDocument;
  return { ...doc, _id: `ping-${String(seq).padStart(6, '0')}`, seq };
}

/** Warm-up rounds of each side, then `repeat` batches of `rounds` rounds per side, alternated; every timed latency, sorted, per side. */
async function alternateRounds(
  sides: readonly Rounds[],
  options: { warmup: number; repeat: number; rounds: number; budgetMs: number },
): Promise<{ latencies: number[][]; repetitions: number }> {
  const started = performance.now();
  let seq = 0;
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
    for (const [s, side] of sides.entries()) {
      collectGarbage();
      for (let i = 0; i < options.rounds; i++) {
        latencies[s]?.push(await side.round(seq++));
        await pause(ROUND_GAP_MS);
      }
    }
    repetitions++;
  }
  return { latencies: latencies.map((l) => l.sort((a, b) => a - b)), repetitions };
}

/** Ours: A inserts the ping into `collection`; timed until B's observer of that `_id` delivers it. */
function peerRounds(a: Sync, b: Sync, collection: string, written: string[]): Rounds {
  return {
    async round(seq) {
      const doc = ping(seq);
      const initial = deferred<void>();
      const seen = deferred<number>();
      const observer = b.store.registerObserver(
        `SELECT * FROM ${collection} WHERE _id = :id`,
        (event: ObserverEvent) => {
          if (event.isInitial) initial.resolve();
          else if (event.items.length === 1 && event.items[0]?.seq === seq) seen.resolve(performance.now());
        },
        { id: doc._id },
      );
      try {
        await within(initial.promise, ROUND_TIMEOUT_MS, `the initial delivery of the observer of ${doc._id}`);
        const started = performance.now();
        await a.store.execute(`INSERT INTO ${collection} DOCUMENTS (:doc)`, { doc });
        written.push(doc._id);
        return (await within(seen.promise, ROUND_TIMEOUT_MS, `${doc._id} reaching peer B (${collection})`)) - started;
      } finally {
        observer.cancel();
      }
    },
  };
}

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

/** Raw: client A sends the ping as JSON; the relay process forwards the frame to B, which parses it. */
function relayRounds(a: WebSocket, b: WebSocket): Rounds {
  let waiting: { seq: number; resolve: (at: number) => void } | undefined;
  b.on('message', (data: RawData) => {
    const doc = JSON.parse(data.toString()) as { seq?: unknown };
    if (waiting !== undefined && doc.seq === waiting.seq) waiting.resolve(performance.now());
  });
  return {
    async round(seq) {
      const doc = ping(seq);
      const seen = deferred<number>();
      waiting = { seq, resolve: seen.resolve };
      const started = performance.now();
      a.send(JSON.stringify(doc));
      return (await within(seen.promise, ROUND_TIMEOUT_MS, `${doc._id} through the relay`)) - started;
    },
  };
}

/** Raw PostgreSQL: SELECT pg_notify on one connection; timed until the other, LISTENing, is told. */
function notifyRounds(notifier: pg.Client, listener: pg.Client, channel: string): Rounds {
  let waiting: { payload: string; resolve: (at: number) => void } | undefined;
  listener.on('notification', (message) => {
    if (waiting !== undefined && message.channel === channel && message.payload === waiting.payload) waiting.resolve(performance.now());
  });
  return {
    async round(seq) {
      const payload = JSON.stringify({ s: 'raw', t: seq, c: ['pings'] });
      const seen = deferred<number>();
      waiting = { payload, resolve: seen.resolve };
      const started = performance.now();
      const sent = notifier.query('SELECT pg_notify($1, $2)', [channel, payload]);
      const at = await within(seen.promise, ROUND_TIMEOUT_MS, `notification ${seq}`);
      await sent;
      return at - started;
    },
  };
}

async function startPeer(url: string, logs: Logs, collection: string): Promise<Sync> {
  const sync = smallPeerOf(url, { logHub: logs.hub });
  sync.store.registerSubscription(`SELECT * FROM ${collection}`);
  try {
    await within(sync.startSync(), SETUP_TIMEOUT_MS, `starting sync on a small peer of ${url}`);
  } catch (error) {
    sync.close();
    throw error;
  }
  return sync;
}

async function latencyRows(context: SuiteContext, server: PostgresServer): Promise<Row[]> {
  return inFreshDatabase(server, 'latency', async (db) => {
    const nodes = await startNodes(db, 2);
    const [one, two] = nodes as [NodeProcess, NodeProcess];
    const logs = new Logs();
    const peers: Sync[] = [];
    const sockets: WebSocket[] = [];
    const clients: pg.Client[] = [];
    let relay: Child | undefined;
    try {
      // Same node: A and B on node 1. Cross: A on node 1, B on node 2. Each pair has its own
      // collection, so that a write goes to its B only.
      const [aSame, bSame, aCross, bCross] = [
        await startPeer(one.url, logs, 'same_node'),
        await startPeer(one.url, logs, 'same_node'),
        await startPeer(one.url, logs, 'cross_node'),
        await startPeer(two.url, logs, 'cross_node'),
      ];
      peers.push(aSame, bSame, aCross, bCross);
      await until('the four small peers having a session', () => peers.every((p) => p.sessions.length > 0));

      relay = await Child.start(HOST, 'raw ws relay', { role: 'raw-ws' } satisfies HostSetup);
      const { url: relayUrl } = await relay.request<{ url: string }>('info');
      const [ra, rb] = [await openClient(relayUrl), await openClient(relayUrl)];
      sockets.push(ra, rb);
      const relayChild = relay;
      await until('the relay having 2 clients', async () => (await relayChild.request<number>('clients')) === 2);

      const channel = 'bench_latency';
      for (let i = 0; i < 2; i++) {
        const client = new pg.Client({ connectionString: db.url, connectionTimeoutMillis: 10_000 });
        clients.push(client);
        await client.connect();
      }
      const [notifier, listener] = clients as [pg.Client, pg.Client];
      await listener.query(`LISTEN ${channel}`);

      const same: string[] = [];
      const cross: string[] = [];
      context.log(`latency: ${LATENCY_WARMUP} warm-up rounds, then ${LATENCY_REPEAT} × ${LATENCY_ROUNDS} rounds per side`);
      const { latencies, repetitions } = await alternateRounds(
        [
          peerRounds(aSame, bSame, 'same_node', same),
          peerRounds(aCross, bCross, 'cross_node', cross),
          relayRounds(ra, rb),
          notifyRounds(notifier, listener, channel),
        ],
        { warmup: LATENCY_WARMUP, repeat: LATENCY_REPEAT, rounds: LATENCY_ROUNDS, budgetMs: LATENCY_BUDGET_MS },
      );
      const [s, c, w, n] = latencies as [number[], number[], number[], number[]];
      const describe = (values: number[]): string => `p50 ${ms(percentile(values, 50))}, p95 ${ms(percentile(values, 95))}, max ${ms(values.at(-1) ?? NaN)}`;
      context.log(`  same node ${describe(s)}; cross ${describe(c)}; ws relay ${describe(w)}; NOTIFY ${describe(n)}`);
      if (percentile(c, 95) > POLL_SUSPECT_MS)
        context.log(`  WARNING: the cross-node p95 (${ms(percentile(c, 95))}) looks like the storage's 1 s poll, not a notification`);
      check((await countOf(bSame, 'same_node')) === same.length, () => `peer B on node 1 does not hold the ${same.length} same-node pings`);
      check((await countOf(bCross, 'cross_node')) === cross.length, () => `peer B on node 2 does not hold the ${cross.length} cross-node pings`);
      await checkLogs(context, 'latency', [...nodes, logs]);
      const rounds = s.length;
      const name = (what: string): string => `1 write, peer A → observer on peer B, ${what} (${rounds} writes)`;
      return [
        { name: `${name('same node')}: p50 (raw: ws relay)`, kind: 'time', ours: percentile(s, 50), raw: percentile(w, 50), repetitions },
        { name: `${name('same node')}: p95 (raw: ws relay)`, kind: 'time', ours: percentile(s, 95), raw: percentile(w, 95), repetitions },
        { name: `${name('A on node 1, B on node 2')}: p50 (raw: ws relay)`, kind: 'time', ours: percentile(c, 50), raw: percentile(w, 50), repetitions },
        { name: `${name('A on node 1, B on node 2')}: p95 (raw: ws relay)`, kind: 'time', ours: percentile(c, 95), raw: percentile(w, 95), repetitions },
        {
          name: `${name('A on node 1, B on node 2')}: p50 (raw: pg NOTIFY → LISTEN)`,
          kind: 'time',
          ours: percentile(c, 50),
          raw: percentile(n, 50),
          repetitions,
        },
      ];
    } finally {
      await Promise.allSettled(clients.map((client) => client.end()));
      for (const ws of sockets) ws.terminate();
      await Promise.allSettled(peers.map((p) => closePeer(p)));
      await relay?.close();
      await closeAll(nodes);
    }
  });
}

// ---- 3. 200 small peers across two nodes ----

function fanDoc(seq: number): BenchDocument {
  const doc = generateDocuments(1, { seed: FAN_SEED, first: seq })[0] as BenchDocument;
  return { ...doc, _id: `fan-${String(seq).padStart(6, '0')}` };
}

/** What one repetition of a side measured. */
interface PeersSample {
  /** From starting all clients until each has a session (is open). */
  readonly connectMs: number;
  /** Every timed fan-out: from just before the write until the last client had it. */
  readonly fanOut: number[];
  /** The same, until the first client had it. */
  readonly firstArrival: number[];
  /** The same, until the servers had written it to every client (ours: both nodes, to all their sessions). */
  readonly serversSent: number[];
  /** The same, until the write itself returned (ours: the node's `execute`; raw: the broadcast's sends). */
  readonly writeReturned: number[];
  /** Growth of the servers' resident sets, bytes, from before the clients came to after they were all served a first write. */
  readonly rssGrowth: number;
  readonly heapGrowth: number;
  /** Sessions per node once all clients had one. */
  readonly split: number[];
  /** CPU time per timed write of the clients' process: the N clients' own work (ours: merge, commit, acknowledge; raw: parse). */
  readonly clientsCpuMs: number;
  /** The same for the servers' processes, summed (ours: both nodes, their PostgreSQL worker threads included). */
  readonly serversCpuMs: number;
}

/**
 * Fan-out rounds: one untimed write (every subscription in place), FAN_WARMUP untimed, FAN_ROUNDS
 * timed. The CPU time of the clients' process and of the servers' (`serversCpu`: summed) is read
 * before the first timed write and after the last one's pause: per write, the acknowledgements
 * after the last arrival included.
 */
async function fanOut(
  servers: {
    /** Makes the write; answers when the servers take it as made. */
    readonly write: (doc: BenchDocument) => Promise<void>;
    /** Untimed, before the write: the servers start noting its frames. */
    readonly watch: (doc: BenchDocument) => Promise<void>;
    /** When the servers had written the document to every client (the shared clock), once all had it. */
    readonly sent: (doc: BenchDocument) => Promise<number>;
    /** CPU time of the servers' processes so far, summed. */
    readonly cpu: () => Promise<number>;
  },
  peers: Child,
  afterFirst: () => Promise<void>,
): Promise<{ last: number[]; first: number[]; returned: number[]; sent: number[]; clientsCpuMs: number; serversCpuMs: number }> {
  const last: number[] = [];
  const first: number[] = [];
  const returned: number[] = [];
  const sent: number[] = [];
  let cpuFrom = { clients: 0, servers: 0 };
  for (let seq = 0; seq < 1 + FAN_WARMUP + FAN_ROUNDS; seq++) {
    const doc = fanDoc(seq);
    if (seq === FAN_WARMUP + 1) cpuFrom = { clients: await peers.request<number>('cpu'), servers: await servers.cpu() };
    await servers.watch(doc);
    collectGarbage();
    const started = wallNow();
    await servers.write(doc);
    const wrote = wallNow();
    const arrival = await peers.request<Arrival>('wait', { id: doc._id, timeoutMs: ROUND_TIMEOUT_MS }, ROUND_TIMEOUT_MS + 5_000);
    const written = await servers.sent(doc);
    if (seq > FAN_WARMUP) {
      sent.push(written - started);
      last.push(arrival.last - started);
      first.push(arrival.first - started);
      returned.push(wrote - started);
    }
    if (seq === 0) await afterFirst();
    await pause(ROUND_GAP_MS);
  }
  const clientsCpuMs = ((await peers.request<number>('cpu')) - cpuFrom.clients) / FAN_ROUNDS;
  const serversCpuMs = ((await servers.cpu()) - cpuFrom.servers) / FAN_ROUNDS;
  return { last, first, returned, sent, clientsCpuMs, serversCpuMs };
}

const sumOf = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

async function oursPeers(context: SuiteContext, server: PostgresServer, scale: FanScale): Promise<PeersSample> {
  const PEERS = scale.peers;
  return inFreshDatabase(server, 'peers', async (db) => {
    const nodes = await startNodes(db, 2);
    let balancer: TcpBalancer | undefined;
    let peers: Child | undefined;
    try {
      balancer = await TcpBalancer.listen({ backends: nodes.map((n) => ({ host: '127.0.0.1', port: n.port })) });
      const before = await Promise.all(nodes.map((n) => n.memory()));
      peers = await Child.start(PEERS_PROCESS, `${PEERS} small peers`, {
        role: 'small-peers',
        url: balancer.url,
        count: PEERS,
        collection: 'fanout',
        connectBatch: scale.connectBatch,
      } satisfies PeersSetup);
      const { ms: connectMs } = await peers.request<{ ms: number }>('connect', {}, 90_000);
      let split: number[] = [];
      await until(`the nodes counting ${PEERS} sessions`, async () => sumOf((split = await Promise.all(nodes.map((n) => n.sessions())))) === PEERS);
      let after: Memory[] = [];
      const writer = nodes[0] as NodeProcess;
      const times = await fanOut(
        {
          write: (doc) => writer.insert('fanout', doc),
          watch: async (doc) => {
            await Promise.all(nodes.map((n) => n.request('watch', { id: doc._id })));
          },
          sent: async (doc) => {
            const sent = await Promise.all(nodes.map((n) => n.request<{ count: number; last: number }>('sent', {})));
            const frames = sumOf(sent.map((s) => s.count));
            check(frames === PEERS, () => `the nodes wrote ${frames} frames naming ${doc._id} to ${PEERS} sessions`);
            return Math.max(...sent.map((s) => s.last));
          },
          cpu: async () => sumOf(await Promise.all(nodes.map((n) => n.request<number>('cpu', {})))),
        },
        peers,
        async () => {
          after = await Promise.all(nodes.map((n) => n.memory()));
        },
      );
      const counts = await Promise.all(nodes.map((n) => n.fanOut()));
      context.log(
        `  ours: updates built once per shape / sessions served, per node: ${counts.map((c) => (c === null ? 'none' : `${c.built} / ${c.served}`)).join(', ')}`,
      );
      const held = await peers.request<{ min: number; max: number }>('counts', { collection: 'fanout' });
      const expected = 1 + FAN_WARMUP + FAN_ROUNDS;
      check(held.min === expected && held.max === expected, () => `the small peers hold ${held.min}–${held.max} fan-out documents, expected ${expected}`);
      const peerLogs = peers;
      await checkLogs(context, `${PEERS} small peers`, [...nodes, { logs: () => peerLogs.request<NodeLogs>('logs') }]);
      return {
        connectMs,
        fanOut: times.last,
        firstArrival: times.first,
        writeReturned: times.returned,
        serversSent: times.sent,
        rssGrowth: sumOf(after.map((m, i) => m.rss - (before[i] as Memory).rss)),
        heapGrowth: sumOf(after.map((m, i) => m.heapUsed - (before[i] as Memory).heapUsed)),
        split,
        clientsCpuMs: times.clientsCpuMs,
        serversCpuMs: times.serversCpuMs,
      };
    } finally {
      await peers?.close();
      await balancer?.close();
      await closeAll(nodes);
    }
  });
}

async function rawPeers(scale: FanScale): Promise<PeersSample> {
  const PEERS = scale.peers;
  const host = await Child.start(HOST, 'raw ws server', { role: 'raw-ws' } satisfies HostSetup);
  let clients: Child | undefined;
  try {
    const { url } = await host.request<{ url: string }>('info');
    const before = await host.request<Memory>('memory');
    clients = await Child.start(PEERS_PROCESS, `${PEERS} raw ws clients`, { role: 'raw-clients', url, count: PEERS } satisfies PeersSetup);
    const { ms: connectMs } = await clients.request<{ ms: number }>('connect', {}, 90_000);
    await until(`the raw server counting ${PEERS} clients`, async () => (await host.request<number>('clients')) === PEERS);
    let after: Memory | undefined;
    let broadcastEnd = 0;
    const times = await fanOut(
      {
        write: async (doc) => {
          broadcastEnd = await host.request<number>('broadcast', { text: JSON.stringify(doc) });
        },
        watch: async () => {},
        sent: async () => broadcastEnd,
        cpu: () => host.request<number>('cpu'),
      },
      clients,
      async () => {
        after = await host.request<Memory>('memory');
      },
    );
    const grown = after as Memory;
    return {
      connectMs,
      fanOut: times.last,
      firstArrival: times.first,
      writeReturned: times.returned,
      serversSent: times.sent,
      rssGrowth: grown.rss - before.rss,
      heapGrowth: grown.heapUsed - before.heapUsed,
      split: [PEERS],
      clientsCpuMs: times.clientsCpuMs,
      serversCpuMs: times.serversCpuMs,
    };
  } finally {
    await clients?.close();
    await host.close();
  }
}

async function peersRows(context: SuiteContext, server: PostgresServer, scale: FanScale): Promise<Row[]> {
  const PEERS = scale.peers;
  context.log(`${PEERS} peers: up to ${scale.repeat} repetitions per side, each with fresh servers and clients`);
  const started = performance.now();
  const ours: PeersSample[] = [];
  const raw: PeersSample[] = [];
  for (let i = 0; i < scale.repeat; i++) {
    if (i > 0 && performance.now() - started > scale.budgetMs) break;
    collectGarbage();
    const o = await oursPeers(context, server, scale);
    ours.push(o);
    collectGarbage();
    const r = await rawPeers(scale);
    raw.push(r);
    const kb = (bytes: number): string => `${(bytes / 1024 / PEERS).toFixed(0)} KB`;
    const fans = (sample: PeersSample): string =>
      `fan-out ${sample.fanOut.map(ms).join(', ')} (medians: the write returned ${ms(median(sample.writeReturned))}, the first client had it ${ms(median(sample.firstArrival))}, the servers had written it to all ${ms(median(sample.serversSent))}; CPU per write: clients ${ms(sample.clientsCpuMs)}, servers ${ms(sample.serversCpuMs)})`;
    context.log(
      `  ours: connect ${ms(o.connectMs)} (sessions ${o.split.join(' + ')}), ${fans(o)}, RSS +${kb(o.rssGrowth)}/peer, heap +${kb(o.heapGrowth)}/peer`,
    );
    context.log(`  raw:  connect ${ms(r.connectMs)}, ${fans(r)}, RSS +${kb(r.rssGrowth)}/peer, heap +${kb(r.heapGrowth)}/peer`);
  }
  const repetitions = ours.length;
  const all = (samples: PeersSample[]): number[] => samples.flatMap((s) => s.fanOut).sort((a, b) => a - b);
  const [of, rf] = [all(ours), all(raw)];
  const allSent = (samples: PeersSample[]): number[] => samples.flatMap((s) => s.serversSent).sort((a, b) => a - b);
  const [os, rs] = [allSent(ours), allSent(raw)];
  const mb = (bytes: number): number => bytes / 1024 / 1024;
  const splits = [...new Set(ours.map((s) => s.split.join(' + ')))].join(', ');
  return [
    {
      name: `${PEERS} small peers through the TCP balancer to 2 nodes, until all have a session${scale.connectBatch < PEERS ? ` (started ${scale.connectBatch} at a time)` : ''} (sessions per node: ${splits}) (raw: ${PEERS} ws clients open)`,
      kind: 'time',
      ours: median(ours.map((s) => s.connectMs)),
      raw: median(raw.map((s) => s.connectMs)),
      repetitions,
    },
    {
      name: `1 write on node 1 → all ${PEERS} small peers (${of.length} writes): p50 (raw: ws server sends 1 frame to ${PEERS} clients)`,
      kind: 'time',
      ours: percentile(of, 50),
      raw: percentile(rf, 50),
      repetitions,
    },
    {
      name: `1 write on node 1 → all ${PEERS} small peers (${of.length} writes): p99 (raw: the same)`,
      kind: 'time',
      ours: percentile(of, 99),
      raw: percentile(rf, 99),
      repetitions,
    },
    {
      name: `1 write on node 1 → all ${PEERS} small peers (${of.length} writes): max (raw: the same)`,
      kind: 'time',
      ours: of.at(-1) ?? NaN,
      raw: rf.at(-1) ?? NaN,
      repetitions,
    },
    {
      name: `1 write on node 1 → both nodes have written it to all ${PEERS} sessions (${os.length} writes): p50 (raw: the ws server has written it to ${PEERS} clients)`,
      kind: 'time',
      ours: percentile(os, 50),
      raw: percentile(rs, 50),
      repetitions,
    },
    {
      name: `CPU per write of the process of the ${PEERS} small peers (merge, commit, acknowledge) (raw: of the ${PEERS} ws clients' process)`,
      kind: 'time',
      ours: median(ours.map((s) => s.clientsCpuMs)),
      raw: median(raw.map((s) => s.clientsCpuMs)),
      repetitions,
    },
    {
      name: `CPU per write of the 2 nodes' processes, summed (raw: of the ws server's process)`,
      kind: 'time',
      ours: median(ours.map((s) => s.serversCpuMs)),
      raw: median(raw.map((s) => s.serversCpuMs)),
      repetitions,
    },
    {
      name: `RSS growth of the 2 nodes' processes with ${PEERS} small peers (raw: the ws server's, ${PEERS} clients)`,
      kind: 'memory',
      ours: mb(median(ours.map((s) => s.rssGrowth))),
      raw: mb(median(raw.map((s) => s.rssGrowth))),
      repetitions,
    },
    {
      name: `V8 heap growth of the 2 nodes' main threads with ${PEERS} small peers (raw: the ws server's, ${PEERS} clients)`,
      kind: 'memory',
      ours: mb(median(ours.map((s) => s.heapGrowth))),
      raw: mb(median(raw.map((s) => s.heapGrowth))),
      repetitions,
    },
  ];
}

// ---- 4. selective SELECT ----

const SELECT_DOCS = 100_000;
/** Distinct values of `n`: a SELECT of one value finds SELECT_DOCS / SELECT_DISTINCT documents. */
const SELECT_DISTINCT = 10_000;
const SELECT_LOAD_BATCH = 5_000;
const SELECT_ROUNDS = 10;
const SELECT_WARMUP = 1;
const SELECT_REPEAT = 5;
const SELECT_BUDGET_MS = 30_000;
const SELECT_TIMEOUT_MS = 120_000;

/** A POST of `statement` to the node's store/execute: its items, bounded in time. */
async function httpSelect(url: string, statement: string, args: Record<string, unknown>): Promise<unknown[]> {
  const response = await fetch(`${url}/api/v4/store/execute`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ statement, args }),
    signal: AbortSignal.timeout(ROUND_TIMEOUT_MS),
  });
  const body = (await response.json()) as { items?: unknown[] };
  check(response.status === 200 && Array.isArray(body.items), () => `store/execute answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
  return body.items as unknown[];
}

/** Two rows: SELECT_ROUNDS selective SELECTs over HTTP, without and with an index, against raw pg. */
async function selectRows(context: SuiteContext, server: PostgresServer): Promise<Row[]> {
  return inFreshDatabase(server, 'select', async (db) => {
    const [node] = await startNodes(db, 1);
    if (node === undefined) throw new Error('no node started');
    const raw = new pg.Client({ connectionString: db.url });
    await raw.connect();
    try {
      const loadStarted = performance.now();
      await node.request('load', { collection: 'items', count: SELECT_DOCS, distinct: SELECT_DISTINCT, batch: SELECT_LOAD_BATCH }, SELECT_TIMEOUT_MS);
      context.log(`select: ${SELECT_DOCS} documents loaded through the node's store in ${ms(performance.now() - loadStarted)}`);
      await raw.query('CREATE SCHEMA raw; CREATE TABLE raw.items (id text PRIMARY KEY, doc jsonb NOT NULL)');
      await raw.query(
        `INSERT INTO raw.items SELECT 'i' || lpad(i::text, 6, '0'), jsonb_build_object('_id', 'i' || lpad(i::text, 6, '0'), 'n', i % $2, 's', 'item ' || i) FROM generate_series(0, $1 - 1) AS i`,
        [SELECT_DOCS, SELECT_DISTINCT],
      );
      await raw.query('ANALYZE raw.items');
      const expected = SELECT_DOCS / SELECT_DISTINCT;
      const statement = 'SELECT * FROM items WHERE n = :n';
      const oursSide = async (repetition: number): Promise<number> => {
        const start = performance.now();
        for (let k = 0; k < SELECT_ROUNDS; k++) {
          const items = await httpSelect(node.url, statement, { n: (repetition * SELECT_ROUNDS + k) % SELECT_DISTINCT });
          check(items.length === expected, () => `a SELECT found ${items.length} documents, expected ${expected}`);
        }
        return performance.now() - start;
      };
      const rawSide = async (repetition: number): Promise<number> => {
        const start = performance.now();
        for (let k = 0; k < SELECT_ROUNDS; k++) {
          const { rows } = await raw.query("SELECT doc::text FROM raw.items WHERE doc -> 'n' = $1::jsonb", [
            String((repetition * SELECT_ROUNDS + k) % SELECT_DISTINCT),
          ]);
          check(rows.length === expected, () => `the raw SELECT found ${rows.length} documents, expected ${expected}`);
        }
        return performance.now() - start;
      };
      const rows: Row[] = [];
      for (const indexed of [false, true]) {
        if (indexed) {
          await node.request('execute', { statement: 'CREATE INDEX by_n ON items (n)' }, SELECT_TIMEOUT_MS);
          await raw.query("CREATE INDEX raw_items_n ON raw.items ((doc -> 'n')); ANALYZE raw.items");
        }
        context.log(
          `select, ${indexed ? 'with' : 'without'} an index: ${SELECT_WARMUP} warm-up, then up to ${SELECT_REPEAT} repetitions of ${SELECT_ROUNDS} SELECTs per side`,
        );
        const [o, r] = (await alternate([oursSide, rawSide], { warmup: SELECT_WARMUP, repeat: SELECT_REPEAT, budgetMs: SELECT_BUDGET_MS })) as [
          number[],
          number[],
        ];
        context.log(`  ours ${o.map(ms).join(', ')}; raw ${r.map(ms).join(', ')}`);
        rows.push({
          name: `selective SELECT over HTTP, ${SELECT_DOCS.toLocaleString('en-US')} docs, ${expected} found, ${indexed ? 'with a DQL index' : 'no index'} (raw: pg, jsonb table${indexed ? ', expression index' : ''})`,
          kind: 'time',
          ours: median(o) / SELECT_ROUNDS,
          raw: median(r) / SELECT_ROUNDS,
          repetitions: o.length,
        });
      }
      await checkLogs(context, 'select', [node]);
      return rows;
    } finally {
      await raw.end();
      await closeAll([node]);
    }
  });
}

// ---- the suite ----

export const nodesSuite: Suite = {
  name: 'nodes',
  summary:
    'Big Peer nodes on PostgreSQL: writes, 64 HTTP writers, 200 writing small peers, cross-node latency, 200 and 1,000 peers, selective SELECT vs raw pg and ws (needs PostgreSQL)',
  durationSeconds: 590, // estimated from the parts measured on 2026-11-27 (shared machine): 215 s with the 64 HTTP writers, about 165 s of 200 writing small peers, about 105 s of 1,000 peers, about 100 s of SELECT rows
  title:
    'Big Peer nodes on PostgreSQL · each node, raw server and the peers a process of its own; writes through the store (raw = pg running the same statements); small peer → small peer latency (raw = ws relay, pg NOTIFY); 200 and 1,000 small peers through a TCP balancer (raw = ws server and clients)',
  async run(context) {
    const server = await postgresServer(context);
    try {
      const rows: Row[] = [];
      rows.push(await writeRow(context, server, 1));
      rows.push(await writeRow(context, server, 2));
      for (const count of HTTP_NODES) rows.push(...(await concurrentRows(context, server, count)));
      for (const count of HTTP_NODES) rows.push(...(await peerWriteRows(context, server, count)));
      rows.push(...(await latencyRows(context, server)));
      for (const scale of FAN_SCALES) rows.push(...(await peersRows(context, server, scale)));
      rows.push(...(await selectRows(context, server)));
      return rows;
    } finally {
      await server.stop();
    }
  },
};

/**
 * The node counts of the `nodes-writes` rows: SYNCMESH_BENCH_HTTP_NODES (e.g. `2` or `1,2`),
 * else 1, 2 and 4.
 */
function httpNodeCounts(): readonly number[] {
  const named = process.env.SYNCMESH_BENCH_HTTP_NODES;
  if (named === undefined || named.trim() === '') return HTTP_NODES;
  const counts = named.split(',').map((part) => Number(part.trim()));
  if (counts.some((n) => !Number.isInteger(n) || n < 1 || n > 8)) {
    throw new Error(`SYNCMESH_BENCH_HTTP_NODES must be node counts from 1 to 8, comma-separated, not ${JSON.stringify(named)}`);
  }
  return counts;
}

const WRITERS = ['http', 'peers'] as const;
type Writers = (typeof WRITERS)[number];

/**
 * Which writers' rows `nodes-writes` runs: SYNCMESH_BENCH_WRITERS (`http`: the 64 HTTP clients;
 * `peers`: the 200 replicating small peers; `http,peers`), else both.
 */
function writerKinds(): ReadonlySet<Writers> {
  const named = process.env.SYNCMESH_BENCH_WRITERS;
  if (named === undefined || named.trim() === '') return new Set(WRITERS);
  const kinds = named.split(',').map((part) => part.trim());
  const unknown = kinds.filter((k) => !(WRITERS as readonly string[]).includes(k));
  if (unknown.length > 0 || kinds.length === 0) {
    throw new Error(`SYNCMESH_BENCH_WRITERS must be http, peers or http,peers, not ${JSON.stringify(named)}`);
  }
  return new Set(kinds as Writers[]);
}

/** The writers' rows of the `nodes` suite alone: 64 HTTP clients, and 200 replicating small peers. */
export const nodesWritesSuite: Suite = {
  name: 'nodes-writes',
  summary:
    'Big Peer nodes on PostgreSQL: 64 HTTP writers and 200 replicating small peers on 1, 2 and 4 nodes (SYNCMESH_BENCH_HTTP_NODES, SYNCMESH_BENCH_WRITERS to choose), throughput, p99 and CPU per write vs raw pg (needs PostgreSQL)',
  durationSeconds: 240, // measured: 234 s for one run of both writers on 1, 2 and 4 nodes (the small peers' rows about 165 s) on the 2-core VM shared with other work, 2026-11-27
  title:
    'Big Peer nodes on PostgreSQL · 64 HTTP writers (in the suite’s process) and 200 small peers (in a process of their own) writing single documents, each node and PostgreSQL a process of their own (raw = 64 or 200 pg clients running the same statements)',
  async run(context) {
    const counts = httpNodeCounts();
    const kinds = writerKinds();
    const server = await postgresServer(context);
    try {
      const rows: Row[] = [];
      if (kinds.has('http')) for (const count of counts) rows.push(...(await concurrentRows(context, server, count)));
      if (kinds.has('peers')) for (const count of counts) rows.push(...(await peerWriteRows(context, server, count)));
      return rows;
    } finally {
      await server.stop();
    }
  },
};

/** The fan-out rows of the `nodes` suite alone (200 and 1,000 small peers across two nodes). */
export const nodesFanOutSuite: Suite = {
  name: 'nodes-fan-out',
  summary: 'Big Peer nodes on PostgreSQL: one write fanned out to 200 and 1,000 small peers vs a bare ws broadcast (needs PostgreSQL)',
  durationSeconds: 107, // measured: one run on the 2-core VM shared with other work, 2026-11-27 (throwaway cluster)
  title:
    'Big Peer nodes on PostgreSQL · fan-out of one write to 200 and 1,000 small peers through a TCP balancer to 2 nodes, each node, raw server and the peers a process of its own (raw = ws server and clients)',
  async run(context) {
    const server = await postgresServer(context);
    try {
      const rows: Row[] = [];
      for (const scale of FAN_SCALES) rows.push(...(await peersRows(context, server, scale)));
      return rows;
    } finally {
      await server.stop();
    }
  },
};
