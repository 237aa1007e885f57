/**
 * The store suite: `sync.store.execute` on a SQLite persistence directory against the same work
 * done with raw better-sqlite3 (`raw-store.ts`), each in its own temporary directory, in the same
 * process and run. Targets come from the benchmark issue; docs/benchmarks.md explains each row.
 */
import { execFile } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Sync } from '../src/peer/host.ts';
import { generateDocuments, ttlSelecting, type BenchDocument } from './documents.ts';
import { compare, median, type Comparison, type Row, type Side, type Suite, type SuiteContext } from './harness.ts';
import { RawStore } from './raw-store.ts';

/** Documents in the small data set (the INSERT, SELECT * and UPDATE rows) and in the large one (the rows after). */
const SMALL = 10_000;
const LARGE = 100_000;
const BATCH = 10_000;
const SMALL_SEED = 1;
const LARGE_SEED = 7;
/** Shares of the large data set the selective SELECT and the EVICT match. */
const SELECT_SHARE = 0.05;
const EVICT_SHARE = 0.1;
/** The UPDATE's condition, `quantity < 335`, matches about two documents in three (quantity is uniform in 0–499). */
const UPDATE_BELOW = 335;
const MEMORY_CHILD = fileURLToPath(new URL('./memory-child.ts', import.meta.url));
const MEMORY_RUNS = 3;
const CHILD_TIMEOUT_MS = 120_000;

const thousands = (n: number): string => n.toLocaleString('en-US');

const INSERT_ONE = 'INSERT INTO docs DOCUMENTS (:doc)';
const INSERT_MANY = 'INSERT INTO docs DOCUMENTS (:docs)';
const SELECT_ALL = 'SELECT * FROM docs';
const EXPIRED = 'createdAt <= :ttl AND evictionFlag = false';
const UPDATE_WHERE = 'UPDATE docs SET status = :status, price = price + 1 WHERE quantity < :below';
const COUNT_ALL = 'SELECT COUNT(*) AS n FROM docs';

interface Fixture<T> {
  readonly dir: string;
  readonly store: T;
}

function expectCount(what: string, found: number, expected: number): void {
  if (found !== expected) throw new Error(`${what}: found ${found} documents, expected ${expected}`);
}

function liveDocuments(sync: Sync): number {
  return sync.store.collections().find((c) => c.name === 'docs')?.documents ?? 0;
}

/** Ours: a fresh store per repetition, closed and removed after it. */
function oursOnFreshStore(context: SuiteContext, run: (sync: Sync) => Promise<unknown>, expected: number): Side<Fixture<Sync>> {
  return {
    setup: () => {
      const dir = context.tempDir('ours');
      return { dir, store: new Sync({ persistenceDirectory: dir }) };
    },
    run: (f) => run(f.store),
    teardown: (f) => {
      expectCount('ours', liveDocuments(f.store), expected);
      f.store.close();
      rmSync(f.dir, { recursive: true, force: true });
    },
  };
}

/** Raw: a fresh database per repetition, closed and removed after it. */
function rawOnFreshStore(context: SuiteContext, run: (raw: RawStore) => void, expected: number): Side<Fixture<RawStore>> {
  return {
    setup: () => {
      const dir = context.tempDir('raw');
      return { dir, store: new RawStore(dir) };
    },
    run: (f) => run(f.store),
    teardown: (f) => {
      expectCount('raw', f.store.count(), expected);
      f.store.close();
      rmSync(f.dir, { recursive: true, force: true });
    },
  };
}

async function singleInserts(context: SuiteContext, docs: readonly BenchDocument[]): Promise<Row> {
  const ours = oursOnFreshStore(
    context,
    async (sync) => {
      for (const doc of docs) await sync.store.execute(INSERT_ONE, { doc });
    },
    docs.length,
  );
  const raw = rawOnFreshStore(context, (r) => docs.forEach((doc) => r.insertOne(doc)), docs.length);
  const c = await compare(ours, raw, { warmup: 1, repeat: 15, budgetMs: 30_000 });
  return { name: `INSERT ${thousands(SMALL)} docs, one transaction each`, kind: 'throughput', items: docs.length, ...c, target: 40 };
}

async function bulkInsert(context: SuiteContext, docs: BenchDocument[]): Promise<Row> {
  const ours = oursOnFreshStore(context, (sync) => sync.store.execute(INSERT_MANY, { docs }), docs.length);
  const raw = rawOnFreshStore(context, (r) => r.insertMany(docs), docs.length);
  const c = await compare(ours, raw, { warmup: 2, repeat: 25, budgetMs: 20_000 });
  return { name: `INSERT ${thousands(SMALL)} docs in one statement`, kind: 'throughput', items: docs.length, ...c, target: 50 };
}

async function selectAll(context: SuiteContext, docs: BenchDocument[]): Promise<Row> {
  const sync = new Sync({ persistenceDirectory: context.tempDir('ours') });
  const raw = new RawStore(context.tempDir('raw'));
  try {
    await sync.store.execute(INSERT_MANY, { docs });
    raw.insertMany(docs);
    const c = await compare(
      { run: async () => expectCount('ours', (await sync.store.execute(SELECT_ALL)).items.length, docs.length) },
      { run: () => expectCount('raw', raw.selectAll().length, docs.length) },
      { warmup: 3, repeat: 31, budgetMs: 15_000 },
    );
    return { name: `SELECT * of ${thousands(SMALL)} docs`, kind: 'throughput', items: docs.length, ...c, target: 50 };
  } finally {
    sync.close();
    raw.close();
  }
}

/**
 * UPDATE by condition on a store of 10,000 (kept from one repetition to the next): both sides
 * set `status` (a new value each repetition) and add 1 to `price` where `quantity < 335`.
 */
async function updateWhere(context: SuiteContext, docs: BenchDocument[]): Promise<Row> {
  const expected = docs.filter((d) => d.quantity < UPDATE_BELOW).length;
  const sync = new Sync({ persistenceDirectory: context.tempDir('ours') });
  const raw = new RawStore(context.tempDir('raw'));
  let round = 0;
  try {
    await sync.store.execute(INSERT_MANY, { docs });
    raw.insertMany(docs);
    const c = await compare(
      {
        run: async () => {
          const result = await sync.store.execute(UPDATE_WHERE, { status: `s${++round}`, below: UPDATE_BELOW });
          expectCount('ours', result.mutatedDocumentIds.length, expected);
        },
      },
      { run: () => expectCount('raw', raw.updateBelow(UPDATE_BELOW, `s${round}`), expected) },
      { warmup: 2, repeat: 21, budgetMs: 20_000 },
    );
    return { name: `UPDATE WHERE, ${thousands(expected)} of ${thousands(SMALL)} docs`, kind: 'throughput', items: expected, ...c, target: 50 };
  } finally {
    sync.close();
    raw.close();
  }
}

function expectCounted(what: string, items: readonly { n?: unknown }[], expected: number): void {
  if (items.length !== 1 || items[0]?.n !== expected) throw new Error(`${what}: counted ${JSON.stringify(items)}, expected ${expected}`);
}

/** Ours on a copy of a closed store's directory, closed and removed after the repetition. */
function oursOnCopyOf(context: SuiteContext, template: string): Pick<Side<Fixture<Sync>>, 'setup' | 'teardown'> {
  return {
    setup: () => {
      const dir = context.tempDir('ours');
      cpSync(template, dir, { recursive: true });
      const sync = new Sync({ persistenceDirectory: dir });
      expectCount('ours before EVICT', liveDocuments(sync), LARGE);
      return { dir, store: sync };
    },
    teardown: (f) => {
      f.store.close();
      rmSync(f.dir, { recursive: true, force: true });
    },
  };
}

function rawOnCopyOf(context: SuiteContext, template: string): Pick<Side<Fixture<RawStore>>, 'setup' | 'teardown'> {
  return {
    setup: () => {
      const dir = context.tempDir('raw');
      cpSync(template, dir, { recursive: true });
      const raw = new RawStore(dir);
      expectCount('raw before DELETE', raw.count(), LARGE);
      return { dir, store: raw };
    },
    teardown: (f) => {
      f.store.close();
      rmSync(f.dir, { recursive: true, force: true });
    },
  };
}

/**
 * The rows over the large data set (SELECT WHERE, the COUNTs, EVICT), built once per side. Each
 * EVICT runs on a fresh copy of the closed data set (the untimed rebuild), so that every
 * repetition deletes from the same pages: re-inserting what was evicted would put the raw
 * table's rows at the end of its rowid order and flatter its DELETE.
 */
async function overLargeDataSet(context: SuiteContext): Promise<Row[]> {
  const selected = ttlSelecting(SELECT_SHARE, LARGE, BATCH, LARGE_SEED);
  const evicted = ttlSelecting(EVICT_SHARE, LARGE, BATCH, LARGE_SEED);
  const oursDir = context.tempDir('ours-large');
  const rawDir = context.tempDir('raw-large');
  const sync = new Sync({ persistenceDirectory: oursDir });
  const raw = new RawStore(rawDir);
  let select: Comparison;
  let countAll: Comparison;
  let countWhere: Comparison;
  try {
    context.log(`building ${thousands(LARGE)} documents on each side`);
    for (let first = 0; first < LARGE; first += BATCH) {
      const docs = generateDocuments(BATCH, { seed: LARGE_SEED, first });
      await sync.store.execute(INSERT_MANY, { docs });
      raw.insertMany(docs);
    }
    context.log('selective SELECT');
    select = await compare(
      {
        run: async () =>
          expectCount('ours', (await sync.store.execute(`SELECT * FROM docs WHERE ${EXPIRED}`, { ttl: selected.ttl })).items.length, selected.expected),
      },
      { run: () => expectCount('raw', raw.selectExpired(selected.ttl).length, selected.expected) },
      { warmup: 2, repeat: 21, budgetMs: 20_000 },
    );
    context.log('COUNT(*) and COUNT WHERE');
    countAll = await compare(
      { run: async () => expectCounted('ours', (await sync.store.execute(COUNT_ALL)).items, LARGE) },
      { run: () => expectCount('raw', raw.count(), LARGE) },
      { warmup: 5, repeat: 101, budgetMs: 10_000 },
    );
    countWhere = await compare(
      {
        run: async () => expectCounted('ours', (await sync.store.execute(`${COUNT_ALL} WHERE ${EXPIRED}`, { ttl: selected.ttl })).items, selected.expected),
      },
      { run: () => expectCount('raw', raw.countExpired(selected.ttl), selected.expected) },
      { warmup: 2, repeat: 21, budgetMs: 20_000 },
    );
  } finally {
    sync.close();
    raw.close();
  }

  context.log('EVICT');
  const evict = await compare(
    {
      ...oursOnCopyOf(context, oursDir),
      run: async (f) =>
        expectCount(
          'ours',
          (await f.store.store.execute(`EVICT FROM docs WHERE ${EXPIRED}`, { ttl: evicted.ttl })).mutatedDocumentIds.length,
          evicted.expected,
        ),
    },
    { ...rawOnCopyOf(context, rawDir), run: (f) => expectCount('raw', f.store.deleteExpired(evicted.ttl), evicted.expected) },
    { warmup: 1, repeat: 11, budgetMs: 30_000 },
  );
  rmSync(oursDir, { recursive: true, force: true });
  rmSync(rawDir, { recursive: true, force: true });
  return [
    { name: `SELECT WHERE, ${thousands(selected.expected)} of ${thousands(LARGE)} docs`, kind: 'time', ...select, target: 3 },
    { name: `COUNT(*) of ${thousands(LARGE)} docs`, kind: 'time', ...countAll, target: 3 },
    { name: `COUNT WHERE, ${thousands(selected.expected)} of ${thousands(LARGE)} docs`, kind: 'time', ...countWhere, target: 3 },
    { name: `EVICT WHERE, ${thousands(evicted.expected)} of ${thousands(LARGE)} docs`, kind: 'time', ...evict, target: 2 },
  ];
}

interface MemoryReport {
  readonly peakInsertMb: number;
  readonly afterSelectMb: number;
  readonly documents: number;
}

async function memoryOf(context: SuiteContext, kind: 'ours' | 'raw'): Promise<MemoryReport> {
  const dir = context.tempDir(`memory-${kind}`);
  try {
    const args = ['--expose-gc', MEMORY_CHILD, kind, dir, String(LARGE), String(BATCH), String(LARGE_SEED)];
    const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: CHILD_TIMEOUT_MS });
    const report = JSON.parse(stdout) as MemoryReport;
    expectCount(`${kind} memory child`, report.documents, LARGE);
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The memory rows: resident memory of a child process that stores 100,000 documents, then reads them all. */
async function memory(context: SuiteContext): Promise<Row[]> {
  const ours: MemoryReport[] = [];
  const raw: MemoryReport[] = [];
  for (let i = 0; i < MEMORY_RUNS; i++) {
    context.log(`memory children, run ${i + 1} of ${MEMORY_RUNS}`);
    ours.push(await memoryOf(context, 'ours'));
    raw.push(await memoryOf(context, 'raw'));
  }
  const of = (reports: MemoryReport[], pick: (r: MemoryReport) => number): number => median(reports.map(pick));
  return [
    {
      name: `RSS peak, inserting ${thousands(LARGE)} docs`,
      kind: 'memory',
      ours: of(ours, (r) => r.peakInsertMb),
      raw: of(raw, (r) => r.peakInsertMb),
      repetitions: MEMORY_RUNS,
    },
    {
      name: `RSS after SELECT * of ${thousands(LARGE)}, held`,
      kind: 'memory',
      ours: of(ours, (r) => r.afterSelectMb),
      raw: of(raw, (r) => r.afterSelectMb),
      repetitions: MEMORY_RUNS,
    },
  ];
}

export const storeSuite: Suite = {
  name: 'store',
  title: 'Store: sync.store.execute vs raw better-sqlite3 (WAL, synchronous=NORMAL)',
  summary: 'INSERT, SELECT, UPDATE, COUNT, EVICT and memory through sync.store.execute vs raw better-sqlite3',
  durationSeconds: 178, // measured: one run of both store suites on the 2-core VM, 2026-11-27 (load 2.5–3.1)
  async run(context) {
    const docs = generateDocuments(SMALL, { seed: SMALL_SEED });
    const rows: Row[] = [];
    context.log('single-document INSERTs');
    rows.push(await singleInserts(context, docs));
    context.log('bulk INSERT');
    rows.push(await bulkInsert(context, docs));
    context.log('SELECT *');
    rows.push(await selectAll(context, docs));
    context.log('UPDATE WHERE');
    rows.push(await updateWhere(context, docs));
    rows.push(...(await overLargeDataSet(context)));
    rows.push(...(await memory(context)));
    return rows;
  },
};
