/**
 * The `nodes` suites' rows of issue 23's writes from replicating small peers: 200 small peers
 * (one child process, bench/nodes-peers.ts, role `small-writers`), peer i on node i mod n, each
 * committing one document per transaction in its own store, which replication uploads to its
 * node; the next once the Big Peer has acknowledged the last (a closed loop: at most one write
 * in flight per peer, so the system is saturated but bounded). Over a timed window after a
 * warm-up: documents committed in PostgreSQL per second (count(*) of the collection at both ends
 * of the window), the time from a peer's local commit to its node's commit of the document (each
 * side notes it on the shared clock, joined by `_id`), and the CPU each process spent per write.
 *
 * Raw: as many `pg` clients in the suite's process, each in the same closed loop running the
 * statements a node sends for one replicated write (RawReplicatedWriter), on the same tables.
 * docs/benchmarks.md describes the rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PG_MIGRATIONS } from '../src/big-peer/postgres/pg-schema.ts';
import { sortKey } from '../src/peer/dql/sort-key.ts';
import { generateDocuments, type BenchDocument } from './documents.ts';
import { check, median, percentile, within, type Row, type SuiteContext } from './harness.ts';
import { Child, cpuMs, wallNow, type NodeLogs } from './nodes-ipc.ts';
import type { PeersSetup, WritersStopped } from './nodes-peers.ts';
import { checkLogs, closeAll, startNodes, type NodeProcess, type StorageCounters } from './nodes-process.ts';
import { inFreshDatabase, postgresCpuRows, serverCpuMs, withClient, type PostgresServer } from './postgres-server.ts';

const PEERS_PROCESS = new URL('./nodes-peers.ts', import.meta.url);

/** How much a row set measures. */
export interface PeerWritesScale {
  /** Small peers writing (and raw clients). */
  readonly peers: number;
  /** Each side writes this long before its window opens (sessions, JIT, groups at their steady size). */
  readonly warmupMs: number;
  /** The timed window of each side. */
  readonly windowMs: number;
  /** Windows per side, ours and raw in turn, within the budget (at least one). */
  readonly repeat: number;
  readonly budgetMs: number;
}

/** The suites' scale: about 60 s per node count on the 2-core machine. */
export const PEER_WRITES: PeerWritesScale = { peers: 200, warmupMs: 3_000, windowMs: 8_000, repeat: 2, budgetMs: 40_000 };
const COLLECTION = 'writes';
const SEED = 43;
/** Bound on stopping a side's loops (each write's acknowledgement is bounded to 10 s). */
const STOP_TIMEOUT_MS = 30_000;
/** Bound on the peers connecting. */
const CONNECT_TIMEOUT_MS = 90_000;
/** Raw clients connecting at once. */
const CONNECT_BATCH = 20;

const pause = (delayMs: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, delayMs));

/**
 * The raw side of one replicated write: the statements a node sends for one small peer's
 * document arriving alone (seen with `log_statement = all`, 13 statements in 10 round trips),
 * by hand on the tables of every migration of pg-schema.ts: the session's read of the document
 * (`BEGIN … READ ONLY`, the SELECT by id, `COMMIT`); the merge's transaction (`BEGIN` and the
 * clock row `FOR UPDATE` as one text, the document read again, the INSERT, the clock UPDATE with
 * the NOTIFY and `COMMIT` as one text); then the session's progress (`BEGIN` with the lock, the
 * `settings` upsert, `COMMIT`).
 */
export class RawReplicatedWriter {
  readonly #client: pg.Client;
  readonly #progressKey: string;
  #hlc = Date.now() * 65_536;

  static async open(url: string, schema: string, client: number): Promise<RawReplicatedWriter> {
    const connection = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, options: `-c search_path=${schema}` });
    try {
      await connection.connect();
    } catch (error) {
      await connection.end().catch(() => undefined);
      throw error;
    }
    return new RawReplicatedWriter(connection, `replication/progress/raw-${client}`);
  }

  /** Creates `schema` with the store's tables (every migration, the generated jsonb column included), as a node would. */
  static async createSchema(url: string, schema: string): Promise<void> {
    await withClient(url, async (client) => {
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(`SET search_path TO ${schema}`);
      for (const migration of PG_MIGRATIONS) await client.query(migration);
    });
  }

  private constructor(client: pg.Client, progressKey: string) {
    this.#client = client;
    this.#progressKey = progressKey;
  }

  /** One replicated write of `doc`; resolves, on the shared clock (wallNow), when its merge's COMMIT was answered. */
  async write(collection: string, doc: BenchDocument, seq: number): Promise<number> {
    const c = this.#client;
    const id = sortKey(doc._id);
    const read = {
      text: 'SELECT id, body, meta, deleted, txn_id FROM documents WHERE collection = $1 AND id = $2',
      values: [collection, id],
      rowMode: 'array' as const,
    };
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await c.query(read);
    await c.query('COMMIT');
    const locked = (await c.query('BEGIN; SELECT txn_id, hlc FROM clock WHERE one = 1 FOR UPDATE')) as unknown as pg.QueryResult[];
    const txnId = Number(locked[1]?.rows[0]?.txn_id) + 1;
    const hlc = (this.#hlc++).toString(16).padStart(16, '0');
    await c.query(read);
    await c.query({
      text:
        'INSERT INTO documents (collection, id, body, meta, deleted, txn_id) ' +
        "SELECT c, decode(i, 'hex'), b, m, d, t FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::bigint[]) AS p(c, i, b, m, d, t) " +
        'ON CONFLICT (collection, id) DO UPDATE SET body = excluded.body, meta = excluded.meta, deleted = excluded.deleted, txn_id = excluded.txn_id',
      values: [
        [collection],
        [id.toString('hex')],
        [JSON.stringify(doc)],
        [JSON.stringify({ c: [hlc, 'zUpcn97IwluLK5Nea9rSF0HCOjFg0aDN9pvBvmVfldc'] })],
        [false],
        [txnId],
      ],
      rowMode: 'array',
    });
    const payload = JSON.stringify({ s: 'raw', t: txnId, f: txnId, c: [collection] });
    await c.query(
      `WITH c AS (UPDATE clock SET txn_id = ${txnId}, hlc = ${pg.escapeLiteral(hlc)} WHERE one = 1) SELECT pg_notify('syncmesh_commit', ${pg.escapeLiteral(payload)}); COMMIT`,
    );
    const committed = wallNow();
    await c.query('BEGIN; SELECT txn_id, hlc FROM clock WHERE one = 1 FOR UPDATE');
    await c.query({
      text: 'INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      values: [this.#progressKey, JSON.stringify({ savedAt: Date.now(), progress: { [collection]: seq } })],
      rowMode: 'array',
    });
    await c.query('COMMIT');
    return committed;
  }

  async close(): Promise<void> {
    await this.#client.end();
  }
}

/** CPU time so far of every process of a side, milliseconds, and the nodes' storage counters. */
interface Spent {
  /** The nodes' processes, summed (0 on the raw side: it has none). */
  readonly nodes: number;
  /** The small peers' process (0 on the raw side). */
  readonly peers: number;
  /** The suite's process: on the raw side the `pg` clients; on ours only the suite's own counting and requests. */
  readonly suite: number;
  /** PostgreSQL's processes; undefined when they cannot be read (another host). */
  readonly postgres: number | undefined;
  readonly counters: StorageCounters;
}

const NO_COUNTERS: StorageCounters = { groups: 0, writes: 0, statements: 0, roundTrips: 0 };

/** One window of a side. */
interface Sample {
  /** Documents committed in PostgreSQL per second over the window. */
  readonly perSecond: number;
  /** Of each document the peer (raw: client) started or committed in the window: until its node (raw: its merge) committed it, ms. */
  readonly latencies: number[];
  /** Each write's round in the window's side, until the next could start (ours: the Big Peer's acknowledgement), ms. */
  readonly rounds: readonly number[];
  /** CPU per write over the window, and the counters' statements and round trips per write. */
  readonly perWrite: Spent;
}

/** `after` less `before`, per write. */
function perWrite(before: Spent, after: Spent, writes: number): Spent {
  const d = (key: keyof StorageCounters): number => (after.counters[key] - before.counters[key]) / writes;
  return {
    nodes: (after.nodes - before.nodes) / writes,
    peers: (after.peers - before.peers) / writes,
    suite: (after.suite - before.suite) / writes,
    postgres: after.postgres === undefined || before.postgres === undefined ? undefined : (after.postgres - before.postgres) / writes,
    counters: { groups: d('groups'), writes: d('writes'), statements: d('statements'), roundTrips: d('roundTrips') },
  };
}

const totalOf = (s: Spent): number => s.nodes + s.peers + s.suite + (s.postgres ?? 0);

/** Documents of `collection` in `schema`'s documents table, read by `client`. */
async function countIn(client: pg.Client, schema: string): Promise<number> {
  const { rows } = await client.query({ text: `SELECT count(*) FROM ${schema}.documents WHERE collection = $1`, values: [COLLECTION], rowMode: 'array' });
  return Number(rows[0]?.[0]);
}

/**
 * Runs a side's writers for `warmupMs`, then times a `windowMs` window between two counts of the
 * documents in PostgreSQL, with the CPU read at both ends; then stops the writers.
 */
async function timedWindow(
  scale: PeerWritesScale,
  counter: pg.Client,
  schema: string,
  spent: () => Promise<Spent>,
  start: () => Promise<void>,
  stop: () => Promise<void>,
): Promise<{ perSecond: number; from: number; to: number; before: Spent; after: Spent; written: number }> {
  await start();
  try {
    await pause(scale.warmupMs);
    const before = await spent();
    const first = await countIn(counter, schema);
    const from = wallNow();
    await pause(scale.windowMs);
    const last = await countIn(counter, schema);
    const to = wallNow();
    const after = await spent();
    return { perSecond: ((last - first) * 1000) / (to - from), from, to, before, after, written: last - first };
  } finally {
    await stop();
  }
}

/**
 * Rows for `nodeCount` nodes: `scale.peers` small peers writing single documents that replicate to
 * them, against as many raw clients running the same statements; see the file's comment.
 */
export async function peerWriteRows(context: SuiteContext, server: PostgresServer, nodeCount: number, scale: PeerWritesScale = PEER_WRITES): Promise<Row[]> {
  const PEERS = scale.peers;
  return inFreshDatabase(server, `peerwrites${nodeCount}`, (ours) =>
    inFreshDatabase(server, `peerwrites${nodeCount}_raw`, async (raw) => {
      const schema = `bench_${randomBytes(4).toString('hex')}`;
      const nodes = await startNodes(ours, nodeCount, schema);
      const rawWriters: RawReplicatedWriter[] = [];
      const counters: pg.Client[] = [];
      let peers: Child | undefined;
      try {
        peers = await Child.start(PEERS_PROCESS, `${PEERS} small peers writing`, {
          role: 'small-writers',
          urls: nodes.map((n) => n.url),
          count: PEERS,
          collection: COLLECTION,
          seed: SEED,
        } satisfies PeersSetup);
        const { ms: connectMs } = await peers.request<{ ms: number }>('connect', {}, CONNECT_TIMEOUT_MS);
        const split = await waitForSessions(nodes, PEERS, CONNECT_TIMEOUT_MS);
        await Promise.all(nodes.map((n) => n.request('track', { collection: COLLECTION })));
        await RawReplicatedWriter.createSchema(raw.url, 'raw');
        for (let i = 0; i < PEERS; i += CONNECT_BATCH) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(CONNECT_BATCH, PEERS - i) }, (_, k) => RawReplicatedWriter.open(raw.url, 'raw', i + k)),
          );
          rawWriters.push(...batch);
        }
        for (const url of [ours.url, raw.url]) {
          const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
          counters.push(client);
          await client.connect();
        }
        const [oursCounter, rawCounter] = counters as [pg.Client, pg.Client];
        const backendPid = Number((await rawCounter.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
        context.log(
          `${PEERS} small peers writing, ${nodeCount} node(s): connected in ${connectMs.toFixed(0)} ms (sessions ${split.join(' + ')}); up to ${scale.repeat} windows of ${scale.windowMs} ms per side after ${scale.warmupMs} ms of writes each`,
        );

        const writers = peers;
        const oursSpent = async (): Promise<Spent> => {
          const [cpus, all, peersCpu] = await Promise.all([
            Promise.all(nodes.map((n) => n.cpu())),
            Promise.all(nodes.map((n) => n.counters())),
            writers.request<number>('cpu'),
          ]);
          const sum = (key: keyof StorageCounters): number => all.reduce((total, c) => total + c[key], 0);
          return {
            nodes: cpus.reduce((a, b) => a + b, 0),
            peers: peersCpu,
            suite: cpuMs(),
            postgres: serverCpuMs(backendPid),
            counters: { groups: sum('groups'), writes: sum('writes'), statements: sum('statements'), roundTrips: sum('roundTrips') },
          };
        };
        const rawSpent = async (): Promise<Spent> => ({ nodes: 0, peers: 0, suite: cpuMs(), postgres: serverCpuMs(backendPid), counters: NO_COUNTERS });

        const samples: [Sample[], Sample[]] = [[], []];
        let stopped: WritersStopped | undefined;
        const oursSide = async (repetition: number): Promise<void> => {
          await Promise.all(nodes.map((n) => n.request('tracked', {}))); // forget what came before
          const window = await timedWindow(
            scale,
            oursCounter,
            schema,
            oursSpent,
            () => writers.request('start', { prefix: `o${repetition}-` }),
            async () => {
              stopped = await writers.request<WritersStopped>('stop', {}, STOP_TIMEOUT_MS);
            },
          );
          const done = stopped as WritersStopped;
          check(done.failures.length === 0, () => `${done.failures.length} small peer(s) stopped writing: ${done.failures.slice(0, 3).join(' | ')}`);
          const atNode = new Map<string, number>();
          for (const entries of await Promise.all(nodes.map((n) => n.request<[string, number][]>('tracked', {})))) {
            for (const [id, at] of entries) if (!atNode.has(id)) atNode.set(id, at);
          }
          const latencies: number[] = [];
          for (const [id, at] of done.commits) {
            const committed = atNode.get(id);
            check(committed !== undefined, () => `${id}: acknowledged, but no node noted its commit`);
            if (at >= window.from && at < window.to) latencies.push((committed as number) - at);
          }
          check(atNode.size === done.commits.length, () => `the nodes committed ${atNode.size} documents, the peers ${done.commits.length}`);
          samples[0].push({ perSecond: window.perSecond, latencies, rounds: done.rounds, perWrite: perWrite(window.before, window.after, window.written) });
        };
        const rawSide = async (repetition: number): Promise<void> => {
          let running = true;
          const starts: [number, number][] = [];
          const rounds: number[] = [];
          let loops: Promise<void>[] = [];
          const templates = generateDocuments(64, { seed: SEED });
          const window = await timedWindow(
            scale,
            rawCounter,
            'raw',
            rawSpent,
            async () => {
              loops = rawWriters.map(async (writer, c) => {
                for (let seq = 0; running; seq++) {
                  const doc = { ...(templates[(c + seq) % templates.length] as BenchDocument), _id: `r${repetition}-${c}-${seq}` };
                  const started = wallNow();
                  const committed = await writer.write(COLLECTION, doc, seq);
                  rounds.push(wallNow() - started);
                  starts.push([started, committed]);
                }
              });
            },
            async () => {
              running = false;
              await within(Promise.all(loops), STOP_TIMEOUT_MS, 'the raw clients ending their loops');
            },
          );
          const latencies = starts.filter(([at]) => at >= window.from && at < window.to).map(([at, committed]) => committed - at);
          samples[1].push({ perSecond: window.perSecond, latencies, rounds, perWrite: perWrite(window.before, window.after, window.written) });
        };

        const started = performance.now();
        for (let r = 0; r < scale.repeat; r++) {
          if (r > 0 && performance.now() - started > scale.budgetMs) break;
          await oursSide(r);
          await rawSide(r);
        }
        const us = (value: number | undefined): string => (value === undefined ? '?' : `${(value * 1000).toFixed(0)} µs`);
        const describe = (s: Sample, side: 'ours' | 'raw'): string => {
          const sorted = [...s.latencies].sort((a, b) => a - b);
          const rounds = [...s.rounds].sort((a, b) => a - b);
          const w = s.perWrite;
          const cpu =
            side === 'ours'
              ? `nodes ${us(w.nodes)}, peers ${us(w.peers)}, suite ${us(w.suite)}, PostgreSQL ${us(w.postgres)}; ${w.counters.statements.toFixed(1)} statements, ${w.counters.roundTrips.toFixed(1)} round trips, ${(w.counters.writes / Math.max(w.counters.groups, 1e-9)).toFixed(1)} writes per group (progress rows included)`
              : `pg clients ${us(w.suite)}, PostgreSQL ${us(w.postgres)}`;
          return `${s.perSecond.toFixed(0)}/s; to commit p50 ${percentile(sorted, 50).toFixed(1)} / p99 ${percentile(sorted, 99).toFixed(1)} ms; round p50 ${percentile(rounds, 50).toFixed(1)} / p99 ${percentile(rounds, 99).toFixed(1)} ms; CPU per write: ${cpu}`;
        };
        for (const s of samples[0]) context.log(`  ours: ${describe(s, 'ours')}`);
        for (const s of samples[1]) context.log(`  raw:  ${describe(s, 'raw')}`);
        await checkLogs(context, `${PEERS} small peers writing, ${nodeCount} node(s)`, [...nodes, { logs: () => writers.request<NodeLogs>('logs') }]);

        const [o, r] = samples;
        const all = (side: Sample[]): number[] => side.flatMap((s) => s.latencies).sort((a, b) => a - b);
        const [ol, rl] = [all(o), all(r)];
        const where = `${nodeCount} node${nodeCount === 1 ? '' : 's'}`;
        const rawName = `raw: ${PEERS} pg clients, the 13 statements of a replicated write each`;
        // A throughput row's time is per 1,000 writes, so that its /s is the median rate.
        const perThousand = (side: Sample[]): number => median(side.map((s) => 1_000_000 / s.perSecond));
        const rows: Row[] = [
          {
            name: `writes: ${PEERS} small peers, 1 doc per txn, replicated to ${where}: committed in PostgreSQL, total (${rawName})`,
            kind: 'throughput',
            items: 1_000,
            ours: perThousand(o),
            raw: perThousand(r),
            repetitions: o.length,
          },
          {
            name: `writes: ${PEERS} small peers, ${where}: local commit → node's commit (${ol.length} writes): p50 (raw: write started → its COMMIT answered)`,
            kind: 'time',
            ours: percentile(ol, 50),
            raw: percentile(rl, 50),
            repetitions: o.length,
          },
          {
            name: `writes: ${PEERS} small peers, ${where}: local commit → node's commit: p99 (raw: the same)`,
            kind: 'time',
            ours: percentile(ol, 99),
            raw: percentile(rl, 99),
            repetitions: o.length,
          },
          {
            name: `writes: ${PEERS} small peers, ${where}: CPU per write, every process: nodes + peers + PostgreSQL (raw: pg clients + PostgreSQL)`,
            kind: 'time',
            ours: median(o.map((s) => totalOf(s.perWrite))),
            raw: median(r.map((s) => totalOf(s.perWrite))),
            repetitions: o.length,
          },
          {
            name: `writes: ${PEERS} small peers, ${where}: CPU per write of the peers' process (raw: of the ${PEERS} pg clients')`,
            kind: 'time',
            ours: median(o.map((s) => s.perWrite.peers)),
            raw: median(r.map((s) => s.perWrite.suite)),
            repetitions: o.length,
          },
        ];
        rows.push(
          ...postgresCpuRows(
            `writes: ${PEERS} small peers, ${where}`,
            o.map((s) => s.perWrite.postgres),
            r.map((s) => s.perWrite.postgres),
          ),
        );
        return rows;
      } finally {
        await Promise.allSettled(counters.map((c) => c.end()));
        await Promise.allSettled(rawWriters.map((w) => w.close()));
        await peers?.close();
        await closeAll(nodes);
      }
    }),
  );
}

/** Polls the nodes every 20 ms until their sessions add up to `count`, for at most `timeoutMs`; the sessions per node. */
async function waitForSessions(nodes: readonly NodeProcess[], count: number, timeoutMs: number): Promise<number[]> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const split = await Promise.all(nodes.map((n) => n.sessions()));
    if (split.reduce((a, b) => a + b, 0) === count) return split;
    if (performance.now() > deadline) throw new Error(`the nodes count ${split.join(' + ')} sessions, not ${count}, after ${timeoutMs} ms`);
    await pause(20);
  }
}
