/**
 * The store suite's rows with secondary indexes: the back-office statements on 100,000 documents
 * with an index, against raw better-sqlite3 with the equivalent expression index
 * (`raw-indexed-store.ts`), and against our own store without the index (the speed-up an index
 * gives). A second `Suite` named `store`, so that `npm run bench -- store` prints both tables.
 */
import { cpSync, rmSync } from 'node:fs';
import { Sync } from '../src/peer/host.ts';
import { documentBatches, ttlSelecting } from './documents.ts';
import { compare, type Comparison, type Row, type Side, type Suite, type SuiteContext } from './harness.ts';
import { RawIndexedStore } from './raw-indexed-store.ts';
import { storeSuite } from './store.bench.ts';

const LARGE = 100_000;
const BATCH = 10_000;
const SEED = 7;
const SELECT_SHARE = 0.05;
const EVICT_SHARE = 0.1;
const ORDER_LIMIT = 50;

/** The index a TTL job wants: the flag it tests by equality, then the time it bounds. */
const CREATE_INDEX = 'CREATE INDEX by_flag_created ON docs (evictionFlag, createdAt)';
const CREATE_ORDER_INDEX = 'CREATE INDEX by_created ON docs (createdAt)';
const EXPIRED = 'createdAt <= :ttl AND evictionFlag = false';
const SELECT_EXPIRED = `SELECT * FROM docs WHERE ${EXPIRED}`;
const COUNT_EXPIRED = `SELECT COUNT(*) AS n FROM docs WHERE ${EXPIRED}`;
const ORDERED = `SELECT * FROM docs ORDER BY createdAt LIMIT ${ORDER_LIMIT}`;
const UPDATE_EXPIRED = `UPDATE docs SET status = 'archived' WHERE ${EXPIRED}`;
const EVICT_EXPIRED = `EVICT FROM docs WHERE ${EXPIRED}`;

const thousands = (n: number): string => n.toLocaleString('en-US');

function expectCount(what: string, found: number, expected: number): void {
  if (found !== expected) throw new Error(`${what}: found ${found} documents, expected ${expected}`);
}

interface DataSets {
  readonly indexed: string;
  readonly plain: string;
  readonly raw: string;
}

/** Builds the 100,000 documents three times, closed: ours with the indexes, ours without, raw with its expression indexes. */
async function build(context: SuiteContext): Promise<DataSets> {
  const sets = { indexed: context.tempDir('ours-indexed'), plain: context.tempDir('ours-plain'), raw: context.tempDir('raw-indexed') };
  const indexed = new Sync({ persistenceDirectory: sets.indexed });
  const plain = new Sync({ persistenceDirectory: sets.plain });
  const raw = new RawIndexedStore(sets.raw);
  try {
    context.log(`building ${thousands(LARGE)} documents three times`);
    for (const docs of documentBatches(LARGE, BATCH, SEED)) {
      await indexed.store.execute('INSERT INTO docs DOCUMENTS (:docs)', { docs });
      await plain.store.execute('INSERT INTO docs DOCUMENTS (:docs)', { docs });
      raw.insertMany(docs);
    }
    await indexed.store.execute(CREATE_INDEX);
    await indexed.store.execute(CREATE_ORDER_INDEX);
    raw.createIndexes();
    const plan = (await indexed.store.execute(`EXPLAIN ${SELECT_EXPIRED}`, { ttl: '2025' })).items[0];
    if (plan?.access !== 'index') throw new Error(`the indexed store does not use its index: ${JSON.stringify(plan)}`);
  } finally {
    indexed.close();
    plain.close();
    raw.close();
  }
  return sets;
}

/** A side reading one open store for all repetitions. */
function reading<S>(store: S, run: (store: S) => unknown): Side<S> {
  return { setup: () => store, run };
}

/** A side on a fresh copy of a closed data set per repetition (copied untimed): for statements that change it. */
function onCopy<S extends { close(): void }>(
  context: SuiteContext,
  template: string,
  open: (dir: string) => S,
  run: (store: S) => unknown,
): Side<{ dir: string; store: S }> {
  return {
    setup: () => {
      const dir = context.tempDir('copy');
      cpSync(template, dir, { recursive: true });
      return { dir, store: open(dir) };
    },
    run: (f) => run(f.store),
    teardown: (f) => {
      f.store.close();
      rmSync(f.dir, { recursive: true, force: true });
    },
  };
}

const openSync = (dir: string): Sync => new Sync({ persistenceDirectory: dir });

function timeRow(name: string, c: Comparison, target?: number): Row {
  return { name, kind: 'time', ours: c.ours, raw: c.raw, repetitions: c.repetitions, ...(target === undefined ? {} : { target }) };
}

export const storeIndexesSuite: Suite = {
  name: 'store',
  title: 'Store with secondary indexes: ours indexed vs raw better-sqlite3 with expression indexes, and vs ours without the index',
  summary: storeSuite.summary,
  durationSeconds: storeSuite.durationSeconds,
  async run(context) {
    const selected = ttlSelecting(SELECT_SHARE, LARGE, BATCH, SEED);
    const evicted = ttlSelecting(EVICT_SHARE, LARGE, BATCH, SEED);
    const sets = await build(context);
    const indexed = openSync(sets.indexed);
    const plain = openSync(sets.plain);
    const raw = new RawIndexedStore(sets.raw);
    const rows: Row[] = [];
    const selectOurs = async (sync: Sync): Promise<void> =>
      expectCount('ours', (await sync.store.execute(SELECT_EXPIRED, { ttl: selected.ttl })).items.length, selected.expected);
    const orderedOurs = async (sync: Sync): Promise<void> => expectCount('ours', (await sync.store.execute(ORDERED)).items.length, ORDER_LIMIT);
    const countOurs = async (sync: Sync): Promise<void> =>
      expectCount('ours', (await sync.store.execute(COUNT_EXPIRED, { ttl: selected.ttl })).items[0]?.n as number, selected.expected);
    try {
      const select = `SELECT WHERE, ${thousands(selected.expected)} of ${thousands(LARGE)}`;
      context.log('indexed SELECT WHERE');
      const options = { warmup: 2, repeat: 21, budgetMs: 15_000 };
      rows.push(
        timeRow(
          `${select}, indexed`,
          await compare(
            reading(indexed, selectOurs),
            reading(raw, (r) => expectCount('raw', r.selectExpired(selected.ttl).length, selected.expected)),
            options,
          ),
          3,
        ),
      );
      rows.push(timeRow(`${select}: indexed ÷ no index (ours)`, await compare(reading(indexed, selectOurs), reading(plain, selectOurs), options), 0.1));

      context.log('ORDER BY … LIMIT');
      const ordered = `ORDER BY createdAt LIMIT ${ORDER_LIMIT} of ${thousands(LARGE)}`;
      const quick = { warmup: 5, repeat: 101, budgetMs: 10_000 };
      rows.push(
        timeRow(
          `${ordered}, indexed`,
          await compare(
            reading(indexed, orderedOurs),
            reading(raw, (r) => expectCount('raw', r.firstCreated(ORDER_LIMIT).length, ORDER_LIMIT)),
            quick,
          ),
          3,
        ),
      );
      rows.push(timeRow(`${ordered}: indexed ÷ no index (ours)`, await compare(reading(indexed, orderedOurs), reading(plain, orderedOurs), options)));

      context.log('COUNT WHERE');
      const count = `COUNT WHERE, ${thousands(selected.expected)} of ${thousands(LARGE)}`;
      rows.push(
        timeRow(
          `${count}, indexed`,
          await compare(
            reading(indexed, countOurs),
            reading(raw, (r) => expectCount('raw', r.countExpired(selected.ttl), selected.expected)),
            quick,
          ),
          3,
        ),
      );
      rows.push(timeRow(`${count}: indexed ÷ no index (ours)`, await compare(reading(indexed, countOurs), reading(plain, countOurs), options)));
    } finally {
      indexed.close();
      plain.close();
      raw.close();
    }

    const mutating = { warmup: 1, repeat: 9, budgetMs: 30_000 };
    context.log('indexed UPDATE WHERE');
    const updateOurs = async (sync: Sync): Promise<void> =>
      expectCount('ours', (await sync.store.execute(UPDATE_EXPIRED, { ttl: selected.ttl })).mutatedDocumentIds.length, selected.expected);
    const update = `UPDATE WHERE, ${thousands(selected.expected)} of ${thousands(LARGE)}`;
    rows.push(
      timeRow(
        `${update}, indexed`,
        await compare(
          onCopy(context, sets.indexed, openSync, updateOurs),
          onCopy(
            context,
            sets.raw,
            (d) => new RawIndexedStore(d),
            (r) => expectCount('raw', r.updateExpired(selected.ttl), selected.expected),
          ),
          mutating,
        ),
        2,
      ),
    );
    rows.push(
      timeRow(
        `${update}: indexed ÷ no index (ours)`,
        await compare(onCopy(context, sets.indexed, openSync, updateOurs), onCopy(context, sets.plain, openSync, updateOurs), mutating),
      ),
    );

    context.log('indexed EVICT WHERE');
    const evictOurs = async (sync: Sync): Promise<void> =>
      expectCount('ours', (await sync.store.execute(EVICT_EXPIRED, { ttl: evicted.ttl })).mutatedDocumentIds.length, evicted.expected);
    const evict = `EVICT WHERE, ${thousands(evicted.expected)} of ${thousands(LARGE)}`;
    rows.push(
      timeRow(
        `${evict}, indexed`,
        await compare(
          onCopy(context, sets.indexed, openSync, evictOurs),
          onCopy(
            context,
            sets.raw,
            (d) => new RawIndexedStore(d),
            (r) => expectCount('raw', r.deleteExpired(evicted.ttl), evicted.expected),
          ),
          mutating,
        ),
        2,
      ),
    );
    rows.push(
      timeRow(
        `${evict}: indexed ÷ no index (ours)`,
        await compare(onCopy(context, sets.indexed, openSync, evictOurs), onCopy(context, sets.plain, openSync, evictOurs), mutating),
      ),
    );
    for (const dir of Object.values(sets)) rmSync(dir, { recursive: true, force: true });
    return rows;
  },
};
