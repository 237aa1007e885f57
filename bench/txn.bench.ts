/**
 * The txn suite: what surrounds a commit. Each row compares the store doing a piece of work
 * with something around it (observers, a DEBUG log file, a write transaction holding the slot)
 * against the same store doing the same work without it, in the same run. It prints three
 * tables, one per group, all under the suite name `txn`; docs/benchmarks.md explains each row.
 *
 * - Observers: single-document INSERTs with 10 or 100 observers on another collection or on the
 *   one written, against no observers. Observers re-run after the committing turn
 *   (setImmediate) and coalesce, so each row is taken two ways: a tight `await` loop (which
 *   never yields, so the observers run once, at the end) and a loop that yields after each
 *   write (so they run after every commit). Both include the wait until every observer has
 *   delivered the final state, and both check how many deliveries each observer received.
 * - Logging: single-document INSERTs with a LogHub at DEBUG writing to a rotating file, and at
 *   INFO, against a hub with logging disabled.
 * - Reads: point reads while a write transaction holds the slot (with and without a second
 *   writer queued behind it), against the same reads on an idle store.
 *
 * Every store is SQLite in a temporary directory, with its own LogHub (no console), so that
 * nothing in this suite writes to the process-wide SyncLogger.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogHub, Sync, type ObserverEvent } from '../src/peer/host.ts';
import { seededRandom } from '../src/testing/seeded-random.ts';
import { generateDocuments, type BenchDocument } from './documents.ts';
import { compare, type Row, type Side, type Suite, type SuiteContext, check } from './harness.ts';

const SEED = 11;
const INSERT_ONE = 'INSERT INTO docs DOCUMENTS (:doc)';
const INSERT_MANY = 'INSERT INTO docs DOCUMENTS (:docs)';
const SELECT_BY_ID = 'SELECT * FROM docs WHERE _id = :id';

/** Writes per repetition of the tight observer rows, and of the yielding ones (see the notes in docs/benchmarks.md). */
const TIGHT_WRITES = 3_000;
const YIELD_WRITES = 300;
/** Every 10th observer counts (`SELECT COUNT(*)`); the others select one of the 64 `locationId`s. */
const COUNT_EVERY = 10;
/** Bounds on waiting for observers to settle. */
const SETTLE_TURNS = 10_000;
const SETTLE_MS = 60_000;

/** Writes per repetition of the logging rows. */
const LOG_WRITES = 10_000;
const LOG_MAX_BYTES = 10 * 1024 * 1024;
const LOG_MAX_FILES = 3;
/** The DEBUG log file is pre-filled to this far below its size limit, so that each repetition rotates it once. */
const LOG_HEADROOM = 256 * 1024;
const COMMIT_LINE = 'Write txn committed; txn_id = ';
const NOTIFY_LINE = 'Notifying a database change; transaction = ';
const FILLER_LINE = '[DEBUG] 2025-01-01T00:00:00.000Z: bench filler line, written before the timed run to bring the file near its size limit';

/** Documents in the read rows' store, and how long each side of a read row reads. */
const READ_DOCS = 10_000;
const READ_TARGET_MS = 1_000;
const READ_CALIBRATE_MS = 300;
const READ_MAX = 1_000_000;
/** Reads between two yields to the event loop, on both sides. */
const READ_YIELD_EVERY = 1_000;
/** Documents the long write transaction inserts before it waits. */
const HELD_TXN_DOCS = 100;

const thousands = (n: number): string => n.toLocaleString('en-US');
const oneDecimal = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 1 });
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function liveDocuments(sync: Sync): number {
  return sync.store.collections().find((c) => c.name === 'docs')?.documents ?? 0;
}

/** A store in a fresh directory with a quiet hub of its own (INFO, no console) unless given one. */
function openStore(context: SuiteContext, label: string, hub: LogHub = new LogHub()): { dir: string; sync: Sync; hub: LogHub } {
  const dir = context.tempDir(label);
  return { dir, sync: new Sync({ persistenceDirectory: join(dir, 'db'), logHub: hub }), hub };
}

// ---- observers ----

type Placement = 'other' | 'same';
type LoopMode = 'tight' | 'yield';

interface Watcher {
  readonly kind: 'location' | 'count';
  readonly collection: string;
  readonly loc: string;
  deliveries: number;
  last: ObserverEvent | undefined;
}

/** What the observed collection holds after the writes: documents per location, and in all. */
interface FinalState {
  readonly byLocation: ReadonlyMap<string, number>;
  readonly total: number;
}

function finalStateOf(docs: readonly BenchDocument[]): FinalState {
  const byLocation = new Map<string, number>();
  for (const doc of docs) byLocation.set(doc.locationId, (byLocation.get(doc.locationId) ?? 0) + 1);
  return { byLocation, total: docs.length };
}

function register(sync: Sync, count: number, collection: string): Watcher[] {
  const watchers: Watcher[] = [];
  for (let i = 0; i < count; i++) {
    const kind = i % COUNT_EVERY === COUNT_EVERY - 1 ? 'count' : 'location';
    const loc = `loc-${String((i * 7) % 64).padStart(3, '0')}`;
    const statement = kind === 'count' ? `SELECT COUNT(*) AS n FROM ${collection}` : `SELECT * FROM ${collection} WHERE locationId = :loc`;
    const watcher: Watcher = { kind, collection, loc, deliveries: 0, last: undefined };
    sync.store.registerObserver(
      statement,
      (event) => {
        watcher.deliveries++;
        watcher.last = event;
      },
      kind === 'count' ? undefined : { loc },
    );
    watchers.push(watcher);
  }
  return watchers;
}

/** The result an observer of `docs` shows once it has seen every write; other collections are untouched. */
function hasFinal(w: Watcher, state: FinalState): boolean {
  if (w.last === undefined) return false;
  if (w.collection !== 'docs') return true;
  if (w.kind === 'count') return (w.last.items[0] as { n?: unknown } | undefined)?.n === state.total;
  return w.last.items.length === (state.byLocation.get(w.loc) ?? 0);
}

/** Gives the event loop turns until every observer shows `state` (at least one turn, bounded). */
async function settle(watchers: readonly Watcher[], state: FinalState): Promise<void> {
  const deadline = performance.now() + SETTLE_MS;
  for (let i = 0; i < SETTLE_TURNS; i++) {
    await turn();
    if (watchers.every((w) => hasFinal(w, state))) return;
    if (performance.now() > deadline) break;
  }
  const behind = watchers.filter((w) => !hasFinal(w, state)).length;
  throw new Error(`${behind} of ${watchers.length} observers never delivered the final state`);
}

/** Deliveries each observer must have received during the writes (its initial one not counted). */
function expectedDeliveries(w: Watcher, state: FinalState, mode: LoopMode): number {
  if (w.collection !== 'docs') return 0;
  const changes = w.kind === 'count' ? state.total : (state.byLocation.get(w.loc) ?? 0);
  // Yielding after each write, an observer runs after every commit and delivers each time its
  // result changed; in a tight loop, it runs once after the last write.
  return mode === 'yield' ? changes : Math.min(changes, 1);
}

interface DeliveryStats {
  total: number;
  perLocation: number;
  perCount: number;
}

interface ObservedFixture {
  readonly dir: string;
  readonly sync: Sync;
  readonly watchers: Watcher[];
}

/** Single-document INSERTs of `docs` into a fresh store with `count` observers on `placement`'s collection. */
function observedWrites(
  context: SuiteContext,
  docs: readonly BenchDocument[],
  count: number,
  placement: Placement,
  mode: LoopMode,
  stats?: DeliveryStats,
): Side<ObservedFixture> {
  const state = finalStateOf(docs);
  const collection = placement === 'same' ? 'docs' : 'other';
  return {
    async setup() {
      const { dir, sync } = openStore(context, `observers-${count}`);
      const watchers = register(sync, count, collection);
      await settle(watchers, { byLocation: new Map(), total: 0 }); // the initial deliveries, untimed
      for (const w of watchers) w.deliveries = 0;
      return { dir, sync, watchers };
    },
    async run({ sync, watchers }) {
      if (mode === 'tight') {
        for (const doc of docs) await sync.store.execute(INSERT_ONE, { doc });
      } else {
        for (const doc of docs) {
          await sync.store.execute(INSERT_ONE, { doc });
          await turn();
        }
      }
      await settle(watchers, state);
    },
    teardown({ dir, sync, watchers }) {
      try {
        check(liveDocuments(sync) === docs.length, () => `observers: ${liveDocuments(sync)} documents stored, expected ${docs.length}`);
        for (const w of watchers) {
          const expected = expectedDeliveries(w, state, mode);
          check(w.deliveries === expected, () => `a ${w.kind} observer on ${w.collection} got ${w.deliveries} deliveries (${mode} loop), expected ${expected}`);
        }
        if (stats !== undefined) {
          const of = (kind: Watcher['kind']): number[] => watchers.filter((w) => w.kind === kind).map((w) => w.deliveries);
          const mean = (values: number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
          stats.total = watchers.reduce((sum, w) => sum + w.deliveries, 0);
          stats.perLocation = mean(of('location'));
          stats.perCount = mean(of('count'));
        }
      } finally {
        sync.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

async function observerRow(context: SuiteContext, docs: readonly BenchDocument[], count: number, placement: Placement, mode: LoopMode): Promise<Row> {
  context.log(`${count} observers on the ${placement === 'same' ? 'same' : 'other'} collection, ${mode} loop`);
  const stats: DeliveryStats = { total: 0, perLocation: 0, perCount: 0 };
  // The 100-observer yielding row re-runs 100 queries after every write: seconds per repetition.
  const heavy = mode === 'yield' && placement === 'same' && count >= 100;
  const c = await compare(observedWrites(context, docs, count, placement, mode, stats), observedWrites(context, docs, 0, placement, mode), {
    warmup: heavy ? 0 : 1,
    repeat: heavy ? 3 : 11,
    budgetMs: heavy ? 12_000 : 8_000,
  });
  const loop = mode === 'tight' ? 'tight' : 'yield';
  const where = placement === 'same' ? 'same coll' : 'other coll';
  const delivered =
    placement === 'same'
      ? `, ${thousands(stats.total)} deliv. (loc ${oneDecimal(stats.perLocation)}/obs, COUNT ${oneDecimal(stats.perCount)}/obs)`
      : `, ${thousands(stats.total)} deliv.`;
  return { name: `${thousands(docs.length)} writes, ${loop}: ${count} obs ${where}${delivered}`, kind: 'throughput', items: docs.length, ...c };
}

async function observerRows(context: SuiteContext): Promise<Row[]> {
  const tight = generateDocuments(TIGHT_WRITES, { seed: SEED });
  const yielding = tight.slice(0, YIELD_WRITES);
  const rows: Row[] = [];
  for (const [docs, mode] of [
    [tight, 'tight'],
    [yielding, 'yield'],
  ] as const) {
    rows.push(await observerRow(context, docs, 10, 'other', mode));
    rows.push(await observerRow(context, docs, 100, 'other', mode));
    rows.push(await observerRow(context, docs, 10, 'same', mode));
    rows.push(await observerRow(context, docs, 100, 'same', mode));
  }
  return rows;
}

// ---- logging ----

type LogMode = 'debug' | 'info' | 'off';

interface LogFixture {
  readonly dir: string;
  readonly sync: Sync;
  readonly hub: LogHub;
  readonly logPath: string;
}

interface LogStats {
  commitLines: number;
  files: number;
}

function countLines(paths: readonly string[], needle: string): number {
  let n = 0;
  for (const path of paths) {
    if (!existsSync(path)) continue;
    for (const line of readFileSync(path, 'utf8').split('\n')) if (line.includes(needle)) n++;
  }
  return n;
}

/** Single-document INSERTs into a fresh store whose hub logs at `mode`, to a rotating file. */
function loggedWrites(context: SuiteContext, docs: readonly BenchDocument[], mode: LogMode, stats?: LogStats): Side<LogFixture> {
  return {
    setup() {
      const hub = new LogHub({ minimumLogLevel: mode === 'debug' ? 'DEBUG' : 'INFO' });
      hub.enabled = mode !== 'off';
      const { dir, sync } = openStore(context, `log-${mode}`, hub);
      const logPath = join(dir, 'log', 'sync.log');
      if (mode === 'debug') {
        // Near the size limit, so that the timed writes rotate the file once.
        mkdirSync(join(dir, 'log'));
        const line = `${FILLER_LINE}\n`;
        writeFileSync(logPath, line.repeat(Math.floor((LOG_MAX_BYTES - LOG_HEADROOM) / Buffer.byteLength(line))));
      }
      hub.setLogFile(logPath, { maxBytes: LOG_MAX_BYTES, maxFiles: LOG_MAX_FILES });
      return { dir, sync, hub, logPath };
    },
    async run({ sync }) {
      for (const doc of docs) await sync.store.execute(INSERT_ONE, { doc });
    },
    teardown({ dir, sync, hub, logPath }) {
      try {
        check(liveDocuments(sync) === docs.length, () => `logging: ${liveDocuments(sync)} documents stored, expected ${docs.length}`);
      } finally {
        sync.close();
        hub.close(); // flushes the buffered lines
      }
      try {
        const files = Array.from({ length: LOG_MAX_FILES }, (_, i) => (i === 0 ? logPath : `${logPath}.${i}`));
        const commits = countLines(files, COMMIT_LINE);
        const notified = countLines(files, NOTIFY_LINE);
        const expected = mode === 'debug' ? docs.length : 0;
        check(
          commits === expected && notified === expected,
          () => `logging ${mode}: ${commits} commit and ${notified} change lines in the file, expected ${expected} each`,
        );
        const present = files.filter((f) => existsSync(f)).length;
        if (mode === 'debug') {
          check(present === 2, () => `logging debug: ${present} log files, expected 2 (one rotation)`);
          check(countLines([logPath], FILLER_LINE) === 0, () => 'logging debug: the filler is still in the current file, so the file never rotated');
        }
        if (stats !== undefined) {
          stats.commitLines = commits + notified;
          stats.files = present;
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

async function loggingRows(context: SuiteContext): Promise<Row[]> {
  const docs = generateDocuments(LOG_WRITES, { seed: SEED });
  const rows: Row[] = [];
  for (const mode of ['debug', 'info'] as const) {
    context.log(`logging at ${mode.toUpperCase()} vs disabled`);
    const stats: LogStats = { commitLines: 0, files: 0 };
    const c = await compare(loggedWrites(context, docs, mode, stats), loggedWrites(context, docs, 'off'), { warmup: 1, repeat: 11, budgetMs: 15_000 });
    const name =
      mode === 'debug'
        ? `${thousands(docs.length)} writes, DEBUG to file: ${thousands(stats.commitLines)} commit lines, rotated once`
        : `${thousands(docs.length)} writes, INFO (file set): ${thousands(stats.commitLines)} commit lines`;
    rows.push({ name, kind: 'throughput', items: docs.length, ...c });
  }
  return rows;
}

// ---- reads while the write slot is held ----

interface HeldWrite {
  readonly release: () => void;
  readonly done: Promise<unknown>;
  readonly inserted: readonly BenchDocument[];
  readonly queued: Promise<unknown> | undefined;
  readonly queuedDoc: BenchDocument | undefined;
}

const HOLDER_HINT = 'bench: long write';

async function holdSlot(sync: Sync, first: number, withQueued: boolean): Promise<HeldWrite> {
  const inserted = generateDocuments(HELD_TXN_DOCS, { seed: SEED, first });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const done = sync.store.transaction(
    async (tx) => {
      for (const doc of inserted) await tx.execute(INSERT_ONE, { doc });
      holding();
      await gate;
    },
    { hint: HOLDER_HINT },
  );
  await Promise.race([held, done]);
  let queued: Promise<unknown> | undefined;
  let queuedDoc: BenchDocument | undefined;
  if (withQueued) {
    queuedDoc = generateDocuments(1, { seed: SEED, first: first + HELD_TXN_DOCS })[0] as BenchDocument;
    queued = sync.store.execute(INSERT_ONE, { doc: queuedDoc });
  }
  try {
    assertHeld(sync, withQueued);
  } catch (error) {
    release(); // no teardown follows a failed setup: let the transaction (and the queued writer) finish
    throw error;
  }
  return { release, done, inserted, queued, queuedDoc };
}

function assertHeld(sync: Sync, withQueued: boolean): void {
  const slot = sync.store.writeSlot;
  check(slot.holder?.hint === HOLDER_HINT, () => `reads: the long write transaction does not hold the slot (holder: ${slot.holder?.hint ?? 'none'})`);
  const waiting = withQueued ? 1 : 0;
  check(slot.waiting === waiting, () => `reads: ${slot.waiting} writers waiting, expected ${waiting}`);
}

async function pointReads(sync: Sync, ids: readonly string[], count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const id = ids[i % ids.length] as string;
    const { items } = await sync.store.execute(SELECT_BY_ID, { id });
    if (items.length !== 1 || items[0]?._id !== id) throw new Error(`reads: ${id} returned ${items.length} documents`);
    if (i % READ_YIELD_EVERY === READ_YIELD_EVERY - 1) await turn();
  }
}

async function readRows(context: SuiteContext): Promise<Row[]> {
  const { dir, sync } = openStore(context, 'reads');
  try {
    context.log(`reads: building ${thousands(READ_DOCS)} documents`);
    await sync.store.execute(INSERT_MANY, { docs: generateDocuments(READ_DOCS, { seed: SEED }) });
    const random = seededRandom(SEED);
    const ids = Array.from({ length: 100_000 }, () => `d${String(Math.floor(random() * READ_DOCS)).padStart(9, '0')}`);

    // Reads that take about READ_TARGET_MS on the idle store.
    await pointReads(sync, ids, 2_000);
    const started = performance.now();
    let calibration = 0;
    while (performance.now() - started < READ_CALIBRATE_MS) {
      await pointReads(sync, ids, 500);
      calibration += 500;
    }
    const reads = Math.min(READ_MAX, Math.round((calibration * READ_TARGET_MS) / (performance.now() - started)));
    context.log(`reads: ${thousands(reads)} point reads per side and repetition`);

    let nextFirst = READ_DOCS;
    const rows: Row[] = [];
    for (const withQueued of [false, true]) {
      context.log(`reads while a write transaction holds the slot${withQueued ? ', a second writer queued' : ''}`);
      const held: Side<HeldWrite> = {
        setup: async () => {
          const h = await holdSlot(sync, nextFirst, withQueued);
          nextFirst += HELD_TXN_DOCS + 1;
          return h;
        },
        run: async (h) => {
          await pointReads(sync, ids, reads);
          assertHeld(sync, withQueued); // still held: every read ran during the transaction
          const unseen = h.inserted[0]?._id as string;
          const { items } = await sync.store.execute(SELECT_BY_ID, { id: unseen });
          check(items.length === 0, () => 'reads: a read saw a document of the uncommitted transaction');
        },
        teardown: async (h) => {
          h.release();
          await h.done;
          await h.queued;
          const written = [...h.inserted, ...(h.queuedDoc === undefined ? [] : [h.queuedDoc])].map((d) => d._id);
          const { items } = await sync.store.execute('SELECT * FROM docs WHERE _id IN :ids', { ids: written });
          check(items.length === written.length, () => `reads: ${items.length} of the ${written.length} documents written during the reads were committed`);
        },
      };
      const c = await compare(held, { run: () => pointReads(sync, ids, reads) }, { warmup: 1, repeat: 5, budgetMs: 15_000 });
      const name = withQueued ? 'point reads, slot held + 1 writer queued' : 'point reads, slot held by a write txn';
      rows.push({ name, kind: 'throughput', items: reads, ...c });
    }
    return rows;
  } finally {
    sync.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function suite(title: string, rows: (context: SuiteContext) => Promise<Row[]>): Suite {
  return {
    name: 'txn',
    title,
    summary: 'commits with observers, a DEBUG log file, reads under a held write slot vs the same store without them',
    durationSeconds: 106, // measured: one run on the 2-core VM, 2026-11-26
    run: rows,
  };
}

/**
 * The `txn` suite, as three suites of the same name so that `npm run bench` prints one table
 * per group; `npm run bench -- txn` runs all three.
 */
export const txnSuites: readonly Suite[] = [
  suite('Txn · observers: single-doc INSERTs into an empty store, with observers (raw = same loop, 0 observers)', observerRows),
  suite('Txn · logging: single-doc INSERTs, LogHub with a rotating file (raw = same, hub disabled)', loggingRows),
  suite(`Txn · reads: SELECT by random _id over ${thousands(READ_DOCS)} docs, write slot held (raw = same reads, idle store)`, readRows),
];
