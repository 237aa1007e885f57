/**
 * The nodes-million suite (issue 23): one Big Peer node on PostgreSQL (a process of its own,
 * bench/nodes-million-host.ts) holding a million orders of about 300 bytes (bench/orders.ts),
 * against raw `pg` doing the same work on a hand-made table `raw.orders (id text PRIMARY KEY,
 * doc jsonb)` in the same database. docs/benchmarks.md explains each row.
 *
 * - Load: the node inserts the orders through its store (`INSERT INTO orders DOCUMENTS (:docs)`,
 *   LOAD_BATCH per transaction). Raw: the same batches as one `INSERT … SELECT FROM unnest($1,
 *   $2)` each (what the store's own batched writes send), and `COPY … FROM STDIN` through `psql`
 *   (`\copy`: the `pg` client has no COPY without pg-copy-streams, which is not a dependency).
 * - Selective SELECT over HTTP `store/execute` finding 0.5% of the orders (5,000 of 1,000,000),
 *   without and with a DQL index on (store, status). Raw: the equivalent SQL without and with an
 *   expression index. Goal: ≤ 3× raw with the index.
 * - The TTL job's update (ttl-job.ts `ttlStatement`) as an Internal transaction flagging 1% of
 *   the orders (10,000 of 1,000,000) per run, without and with a DQL index on createdAt; each
 *   run's cut-off is later than the last, so every run flags a fresh 1%. Raw: the same UPDATE
 *   with jsonb_set, without and with an expression index.
 * - The node's resident set after the load and after the queries, against the idle node's.
 *
 * SYNCMESH_BENCH_MILLION_DOCS sets the number of orders (default 1,000,000; a multiple of
 * 10,000), for a quicker run at a smaller scale.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_KEY } from '../src/testing/big-peer/test-helpers.ts';
import { alternate, check, median, type Row, type Suite, type SuiteContext } from './harness.ts';
import { Child, type Memory, type NodeLogs } from './nodes-ipc.ts';
import type { LoadPlan, MillionHostSetup, Timed } from './nodes-million-host.ts';
import { generateOrders, orderAt, ordersPerStoreAndStatus, storeName, ORDER_STORES } from './orders.ts';
import { inFreshDatabase, postgresServer, type Database } from './postgres-server.ts';

const HOST = new URL('./nodes-million-host.ts', import.meta.url);

const DOCS = Number(process.env.SYNCMESH_BENCH_MILLION_DOCS ?? 1_000_000);
const SEED = 53;
const COLLECTION = 'orders';
const LOAD_BATCH = 5_000;
/** Each load (ours, raw INSERT, raw COPY) fails past this. */
const LOAD_LIMIT_MS = 15 * 60_000;
/** The node's statement budget: a SELECT or UPDATE without an index reads the whole collection. */
const STATEMENT_TIMEOUT_MS = 120_000;
/** Bound on one step the node or raw pg is asked for (a SELECT, an UPDATE, a CREATE INDEX). */
const STEP_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 10_000;

const SELECT_STATEMENT = "SELECT * FROM orders WHERE store = :s AND status = 'closed'";
const RAW_SELECT = `SELECT doc::text FROM raw.orders WHERE doc -> 'store' = $1::jsonb AND doc -> 'status' = '"closed"'`;
/** Per index state: SELECTs per repetition, warm-up and timed repetitions, and the time budget. */
const SELECT_PLANS = {
  none: { rounds: 1, warmup: 1, repeat: 3, budgetMs: 120_000 },
  indexed: { rounds: 5, warmup: 1, repeat: 5, budgetMs: 60_000 },
} as const;

/** One TTL run flags this share of the orders. */
const TTL_SHARE = 0.01;
const TTL_WARMUP = 1;
const TTL_REPEAT = 3;
const TTL_BUDGET_MS = 120_000;
const RAW_TTL = "UPDATE raw.orders SET doc = jsonb_set(doc, '{evictionFlag}', 'true') WHERE doc ->> 'createdAt' <= $1 AND doc -> 'evictionFlag' = 'false'";

const ms = (value: number): string => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const mb = (bytes: number): number => bytes / (1024 * 1024);
const count = (n: number): string => n.toLocaleString('en-US');

/** The node process and what the suite asks of it. */
class MillionNode {
  static async start(db: Database): Promise<MillionNode> {
    const setup: MillionHostSetup = {
      url: db.url,
      schema: `bench_${randomBytes(4).toString('hex')}`,
      name: 'node-1',
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    };
    const child = await Child.start(HOST, 'Big Peer node-1', setup);
    try {
      const { url } = await child.request<{ url: string }>('info');
      return new MillionNode(child, url, setup.schema);
    } catch (error) {
      await child.close();
      throw error;
    }
  }

  readonly child: Child;
  readonly url: string;
  readonly schema: string;

  private constructor(child: Child, url: string, schema: string) {
    this.child = child;
    this.url = url;
    this.schema = schema;
  }

  load(plan: LoadPlan): Promise<Timed> {
    return this.child.request('load', plan, plan.limitMs + 60_000);
  }

  execute(statement: string): Promise<Timed> {
    return this.child.request('execute', { statement }, STEP_TIMEOUT_MS);
  }

  ttl(ttl: string): Promise<Timed> {
    return this.child.request('ttl', { collection: COLLECTION, field: 'createdAt', ttl }, STEP_TIMEOUT_MS);
  }

  memory(): Promise<Memory> {
    return this.child.request('memory');
  }

  logs(): Promise<NodeLogs> {
    return this.child.request('logs');
  }
}

/**
 * A POST of the selective SELECT to the node's store/execute. Timed until the answer's text has
 * arrived; its parse and the check of its count are not (the raw side's rows arrive as text too).
 */
async function httpSelect(url: string, store: string, expected: number): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${url}/api/v4/store/execute`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ statement: SELECT_STATEMENT, args: { s: store } }),
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
  });
  const text = await response.text();
  const elapsed = performance.now() - start;
  const body = JSON.parse(text) as { items?: unknown[] };
  check(response.status === 200 && Array.isArray(body.items), () => `store/execute answered ${response.status}: ${text.slice(0, 200)}`);
  check(body.items?.length === expected, () => `a SELECT found ${body.items?.length} documents, expected ${expected}`);
  return elapsed;
}

async function timedQuery(client: pg.Client, text: string, values?: unknown[]): Promise<{ ms: number; result: pg.QueryResult }> {
  const start = performance.now();
  const result = await client.query({ text, ...(values === undefined ? {} : { values }) });
  return { ms: performance.now() - start, result };
}

// ---- load ----

/** Raw: the orders in LOAD_BATCH batches, each one `INSERT … SELECT FROM unnest` in its own transaction. */
async function rawInsert(client: pg.Client): Promise<number> {
  await client.query('CREATE TABLE raw.orders (id text PRIMARY KEY, doc jsonb NOT NULL)');
  const start = performance.now();
  for (let first = 0; first < DOCS; first += LOAD_BATCH) {
    check(performance.now() - start <= LOAD_LIMIT_MS, () => `the raw INSERT load passed ${LOAD_LIMIT_MS} ms after ${first} documents`);
    const docs = generateOrders(Math.min(LOAD_BATCH, DOCS - first), first, SEED);
    await client.query('INSERT INTO raw.orders SELECT i, d::jsonb FROM unnest($1::text[], $2::text[]) AS u(i, d)', [
      docs.map((d) => d._id),
      docs.map((d) => JSON.stringify(d)),
    ]);
  }
  return performance.now() - start;
}

/** Raw: the orders through `psql`'s `\copy … FROM pstdin` (COPY's text format) into `table`, created here. */
async function rawCopy(client: pg.Client, url: string, table: string): Promise<number> {
  await client.query(`CREATE TABLE ${table} (id text PRIMARY KEY, doc jsonb NOT NULL)`);
  const start = performance.now();
  const psql = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', `\\copy ${table} (id, doc) FROM pstdin`], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  psql.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  // psql missing, or gone before reading everything: said by the check of how it ended, below.
  psql.stdin.on('error', () => undefined);
  const exited = new Promise<[number | null, string | null]>((resolve) => {
    psql.once('exit', (code, signal) => resolve([code, signal]));
    psql.once('error', (error) => resolve([null, `${error.message} (the COPY row needs PostgreSQL's client, psql, on the PATH)`]));
  });
  const timer = setTimeout(() => psql.kill('SIGKILL'), LOAD_LIMIT_MS);
  try {
    for (let first = 0; first < DOCS; first += LOAD_BATCH) {
      const docs = generateOrders(Math.min(LOAD_BATCH, DOCS - first), first, SEED);
      // Text format: a tab between columns, a backslash doubled (JSON has no raw tab or newline).
      const chunk = docs.map((d) => `${d._id}\t${JSON.stringify(d).replaceAll('\\', '\\\\')}\n`).join('');
      if (!psql.stdin.write(chunk)) await Promise.race([once(psql.stdin, 'drain').catch(() => undefined), exited]);
      if (psql.exitCode !== null) break;
    }
    psql.stdin.end();
    const [code, signal] = await exited;
    check(code === 0, () => `psql \\copy ended with ${signal ?? `code ${code}`}: ${stderr.trim().slice(0, 300)}`);
  } finally {
    clearTimeout(timer);
  }
  return performance.now() - start;
}

async function loadRows(context: SuiteContext, node: MillionNode, raw: pg.Client, db: Database): Promise<Row[]> {
  context.log(`load: ${count(DOCS)} orders through the node's store, ${count(LOAD_BATCH)} per transaction (bound ${LOAD_LIMIT_MS / 60_000} min)`);
  const ours = await node.load({ collection: COLLECTION, total: DOCS, batch: LOAD_BATCH, seed: SEED, limitMs: LOAD_LIMIT_MS });
  context.log(`  ours ${ms(ours.ms)} (${count(Math.round(DOCS / (ours.ms / 1000)))} docs/s)`);
  const live = await raw.query(`SELECT count(*)::integer AS n FROM ${node.schema}.documents WHERE collection = $1 AND NOT deleted`, [COLLECTION]);
  check(live.rows[0]?.n === DOCS, () => `the node's store holds ${live.rows[0]?.n} orders, expected ${DOCS}`);
  await raw.query('CREATE SCHEMA raw');
  const copy = await rawCopy(raw, db.url, 'raw.orders_copy');
  context.log(`  raw COPY ${ms(copy)} (${count(Math.round(DOCS / (copy / 1000)))} docs/s)`);
  const copied = await raw.query('SELECT count(*)::integer AS n FROM raw.orders_copy');
  check(copied.rows[0]?.n === DOCS, () => `COPY loaded ${copied.rows[0]?.n} orders, expected ${DOCS}`);
  await raw.query('DROP TABLE raw.orders_copy');
  const insert = await rawInsert(raw);
  context.log(`  raw INSERT … unnest ${ms(insert)} (${count(Math.round(DOCS / (insert / 1000)))} docs/s)`);
  // As autovacuum would soon after a bulk load: the planner's statistics, on both sides alike (untimed).
  await raw.query(`VACUUM ANALYZE ${node.schema}.documents`);
  await raw.query('VACUUM ANALYZE raw.orders');
  const name = (baseline: string): string => `load ${count(DOCS)} orders of ~300 B through the store, ${count(LOAD_BATCH)} per txn (raw: ${baseline})`;
  return [
    {
      name: name(`pg INSERT … SELECT FROM unnest, ${count(LOAD_BATCH)} per statement`),
      kind: 'throughput',
      ours: ours.ms,
      raw: insert,
      items: DOCS,
      repetitions: 1,
    },
    { name: name('COPY FROM STDIN through psql \\copy'), kind: 'throughput', ours: ours.ms, raw: copy, items: DOCS, repetitions: 1 },
  ];
}

// ---- selective SELECT ----

async function selectRows(context: SuiteContext, node: MillionNode, raw: pg.Client): Promise<Row[]> {
  const expected = ordersPerStoreAndStatus(DOCS);
  const rows: Row[] = [];
  for (const indexed of [false, true]) {
    const plan = indexed ? SELECT_PLANS.indexed : SELECT_PLANS.none;
    if (indexed) {
      const ours = await node.execute('CREATE INDEX by_store_status ON orders (store, status)');
      const rawIndex = await timedQuery(raw, "CREATE INDEX raw_orders_store_status ON raw.orders ((doc -> 'store'), (doc -> 'status'))");
      await raw.query('ANALYZE raw.orders');
      await raw.query(`ANALYZE ${node.schema}.documents`);
      context.log(`CREATE INDEX (store, status): ours ${ms(ours.ms)}, raw ${ms(rawIndex.ms)}`);
      rows.push({
        name: `CREATE INDEX (store, status) on ${count(DOCS)} orders, through the store (raw: pg, expression index)`,
        kind: 'time',
        ours: ours.ms,
        raw: rawIndex.ms,
        repetitions: 1,
      });
    }
    const storeOf = (repetition: number, k: number): string => storeName((repetition * plan.rounds + k) % ORDER_STORES);
    const oursSide = async (repetition: number): Promise<number> => {
      let total = 0;
      for (let k = 0; k < plan.rounds; k++) total += await httpSelect(node.url, storeOf(repetition, k), expected);
      return total;
    };
    const rawSide = async (repetition: number): Promise<number> => {
      let total = 0;
      for (let k = 0; k < plan.rounds; k++) {
        const { ms: elapsed, result } = await timedQuery(raw, RAW_SELECT, [JSON.stringify(storeOf(repetition, k))]);
        check(result.rows.length === expected, () => `the raw SELECT found ${result.rows.length} documents, expected ${expected}`);
        total += elapsed;
      }
      return total;
    };
    context.log(
      `select, ${indexed ? 'with' : 'without'} an index: ${plan.warmup} warm-up, then up to ${plan.repeat} repetitions of ${plan.rounds} SELECT(s) per side`,
    );
    const [o, r] = (await alternate([oursSide, rawSide], plan)) as [number[], number[]];
    context.log(`  ours ${o.map(ms).join(', ')}; raw ${r.map(ms).join(', ')}`);
    rows.push({
      name: `selective SELECT over HTTP, ${count(expected)} of ${count(DOCS)} orders, ${indexed ? 'DQL index (store, status)' : 'no index'} (raw: pg, same SQL${indexed ? ', expression index' : ''})`,
      kind: 'time',
      ours: median(o) / plan.rounds,
      raw: median(r) / plan.rounds,
      repetitions: o.length,
      ...(indexed ? { target: 3 } : {}),
    });
  }
  return rows;
}

// ---- the TTL job's update ----

async function ttlRows(context: SuiteContext, node: MillionNode, raw: pg.Client): Promise<Row[]> {
  const perRun = Math.round(DOCS * TTL_SHARE);
  // Run k (each side counts its own) flags orders k·perRun … (k + 1)·perRun − 1: its cut-off is
  // the createdAt of the last, and every earlier order is already flagged (bench/orders.ts).
  const cutoff = (run: number): string => orderAt((run + 1) * perRun - 1, SEED).createdAt;
  let oursRuns = 0;
  let rawRuns = 0;
  const oursSide = async (): Promise<number> => {
    const { ms: elapsed, count: flagged } = await node.ttl(cutoff(oursRuns++));
    check(flagged === perRun, () => `the TTL update flagged ${flagged} orders, expected ${perRun}`);
    return elapsed;
  };
  const rawSide = async (): Promise<number> => {
    const { ms: elapsed, result } = await timedQuery(raw, RAW_TTL, [cutoff(rawRuns++)]);
    check(result.rowCount === perRun, () => `the raw TTL update flagged ${result.rowCount} orders, expected ${perRun}`);
    return elapsed;
  };
  const rows: Row[] = [];
  for (const indexed of [false, true]) {
    if (indexed) {
      const ours = await node.execute('CREATE INDEX by_created ON orders (createdAt)');
      const rawIndex = await timedQuery(raw, "CREATE INDEX raw_orders_created ON raw.orders ((doc ->> 'createdAt'))");
      await raw.query('ANALYZE raw.orders');
      await raw.query(`ANALYZE ${node.schema}.documents`);
      context.log(`CREATE INDEX (createdAt): ours ${ms(ours.ms)}, raw ${ms(rawIndex.ms)}`);
    }
    context.log(`TTL update, ${indexed ? 'with' : 'without'} an index: ${TTL_WARMUP} warm-up, then up to ${TTL_REPEAT} repetitions per side`);
    const [o, r] = (await alternate([oursSide, rawSide], { warmup: TTL_WARMUP, repeat: TTL_REPEAT, budgetMs: TTL_BUDGET_MS })) as [number[], number[]];
    context.log(`  ours ${o.map(ms).join(', ')}; raw ${r.map(ms).join(', ')}`);
    rows.push({
      name: `TTL job's update, ${count(perRun)} of ${count(DOCS)} orders flagged, Internal txn, ${indexed ? 'DQL index (createdAt)' : 'no index'} (raw: pg UPDATE … jsonb_set${indexed ? ', expression index' : ''})`,
      kind: 'time',
      ours: median(o),
      raw: median(r),
      repetitions: o.length,
    });
  }
  return rows;
}

// ---- the suite ----

async function millionRows(context: SuiteContext, db: Database): Promise<Row[]> {
  const node = await MillionNode.start(db);
  const raw = new pg.Client({ connectionString: db.url });
  try {
    await raw.connect();
    const idle = await node.memory();
    const rows = await loadRows(context, node, raw, db);
    const loaded = await node.memory();
    rows.push(...(await selectRows(context, node, raw)));
    rows.push(...(await ttlRows(context, node, raw)));
    const queried = await node.memory();
    context.log(
      `node memory: idle rss ${mb(idle.rss).toFixed(1)} MB heap ${mb(idle.heapUsed).toFixed(1)} MB; after the load rss ${mb(loaded.rss).toFixed(1)} MB heap ${mb(loaded.heapUsed).toFixed(1)} MB; ` +
        `after the queries rss ${mb(queried.rss).toFixed(1)} MB heap ${mb(queried.heapUsed).toFixed(1)} MB`,
    );
    rows.push(
      {
        name: `RSS of the node process after loading ${count(DOCS)} orders (raw: the same node idle, before the load)`,
        kind: 'memory',
        ours: mb(loaded.rss),
        raw: mb(idle.rss),
      },
      {
        name: `RSS of the node process after the SELECTs and TTL updates (raw: the same node idle, before the load)`,
        kind: 'memory',
        ours: mb(queried.rss),
        raw: mb(idle.rss),
      },
    );
    const logs = await node.logs();
    check(logs.errors.length === 0, () => `the node logged ${logs.errors.length} ERROR entr(y/ies): ${logs.errors.slice(0, 3).join(' | ')}`);
    if (logs.warnings.length > 0) context.log(`the node logged ${logs.warnings.length} WARN entr(y/ies), e.g. ${logs.warnings[0]}`);
    return rows;
  } finally {
    await raw.end().catch(() => undefined);
    await node.child.close();
  }
}

export const nodesMillionSuite: Suite = {
  name: 'nodes-million',
  summary: 'A Big Peer node on PostgreSQL with 1,000,000 orders: load, selective SELECT over HTTP, TTL update vs raw pg and COPY (needs PostgreSQL)',
  durationSeconds: 655, // measured: 653 s, one run on the 2-core VM shared with other work (load 5–9), 2026-11-27, throwaway cluster
  title:
    'A Big Peer node on PostgreSQL with a million orders of ~300 B (issue 23) · the node a process of its own; raw = pg on a table (id text, doc jsonb) in the same database',
  async run(context) {
    check(Number.isInteger(DOCS) && DOCS >= 10_000 && DOCS % 10_000 === 0, () => `SYNCMESH_BENCH_MILLION_DOCS must be a multiple of 10,000, not ${DOCS}`);
    const server = await postgresServer(context);
    try {
      return await inFreshDatabase(server, 'million', (db) => millionRows(context, db));
    } finally {
      await server.stop();
    }
  },
};
