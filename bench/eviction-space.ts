/**
 * The eviction suite's space tables: where the pages of 100,000 evicted documents go, for each
 * kind of store. On a copy of each template (untimed): the store's size on disk (database,
 * -wal and -shm, `store.sizeOnDisk()`) before the EVICT of all 100,000, right after it, after
 * `store.reclaimSpace()`, and after 100,000 new documents are inserted (then reclaimSpace again,
 * so the WAL is written back and truncated); and the free pages the file keeps
 * (`store.freeBytes()`). Raw better-sqlite3 with the same auto_vacuum mode does the same. The
 * second table divides each size by the size before the EVICT and says, from the figures,
 * whether the space went back to the file system or stayed in the file for reuse.
 */
import { cpSync, rmSync } from 'node:fs';
import type { Row, SuiteContext } from './harness.ts';
import { RawEvictStore } from './eviction-raw.ts';
import {
  ALL,
  DOCS,
  EVICT,
  Logs,
  bytesText,
  documentsIn,
  expectCount,
  fillRaw,
  fillStore,
  megabytes,
  openStore,
  templates,
  thousands,
  type StoreKind,
  type StoreTemplate,
} from './eviction-common.ts';

/** Sizes on disk (bytes) at each step, and the free pages' bytes after the reclaim. */
interface Steps {
  readonly before: number;
  readonly afterEvict: number;
  readonly afterReclaim: number;
  readonly freeAfterEvict: number;
  readonly freeAfterReclaim: number;
  readonly afterRefill: number;
  readonly freeAfterRefill: number;
}

interface SpaceReport {
  readonly store: StoreTemplate;
  readonly ours: Steps;
  readonly raw: Steps;
}

async function oursSteps(context: SuiteContext, template: StoreTemplate, logs: Logs): Promise<Steps> {
  const dir = context.tempDir(`space-${template.kind}`);
  cpSync(template.dir, dir, { recursive: true });
  const sync = openStore(dir, logs);
  try {
    const store = sync.store;
    expectCount('ours before the EVICT', documentsIn(sync), DOCS);
    const before = store.sizeOnDisk();
    expectCount('ours, evicted', (await store.execute(EVICT, { ttl: ALL.ttl })).mutatedDocumentIds.length, ALL.expected);
    const afterEvict = store.sizeOnDisk();
    const freeAfterEvict = store.freeBytes();
    await store.reclaimSpace();
    const afterReclaim = store.sizeOnDisk();
    const freeAfterReclaim = store.freeBytes();
    // New documents (ids after the data set's), as many as were evicted.
    await fillStore(sync, DOCS, DOCS);
    expectCount('ours after re-inserting', documentsIn(sync), DOCS);
    await store.reclaimSpace();
    return { before, afterEvict, afterReclaim, freeAfterEvict, freeAfterReclaim, afterRefill: store.sizeOnDisk(), freeAfterRefill: store.freeBytes() };
  } finally {
    sync.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function rawSteps(context: SuiteContext, templateDir: string, store: StoreTemplate): Steps {
  const dir = context.tempDir(`space-raw-${store.kind}`);
  cpSync(templateDir, dir, { recursive: true });
  const raw = new RawEvictStore(dir, store.autoVacuum);
  try {
    expectCount('raw before the DELETE', raw.count(), DOCS);
    const before = raw.sizeOnDisk();
    expectCount('raw, deleted', raw.deleteUpTo(ALL.ttl), ALL.expected);
    const afterEvict = raw.sizeOnDisk();
    const freeAfterEvict = raw.freeBytes();
    raw.reclaim();
    const afterReclaim = raw.sizeOnDisk();
    const freeAfterReclaim = raw.freeBytes();
    fillRaw(raw, DOCS, DOCS);
    raw.reclaim();
    return { before, afterEvict, afterReclaim, freeAfterEvict, freeAfterReclaim, afterRefill: raw.sizeOnDisk(), freeAfterRefill: raw.freeBytes() };
  } finally {
    raw.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const measured = new WeakMap<SuiteContext, Promise<SpaceReport[]>>();
const KINDS: readonly StoreKind[] = ['new', 'old', 'incremental'];

/** The three kinds of store, measured once per run and shared by both tables. */
function spaceReports(context: SuiteContext): Promise<SpaceReport[]> {
  let promise = measured.get(context);
  if (promise === undefined) {
    promise = (async () => {
      const t = await templates(context);
      const logs = new Logs();
      const reports: SpaceReport[] = [];
      for (const kind of KINDS) {
        const store = t.stores[kind];
        context.log(`space: ${store.label}`);
        const ours = await oursSteps(context, store, logs);
        const raw = rawSteps(context, t.raw(store.autoVacuum), store);
        logs.checkpoint(context, `space, ${kind}`);
        const line = (s: Steps): string =>
          `before ${bytesText(s.before)}, after EVICT ${bytesText(s.afterEvict)} (free ${bytesText(s.freeAfterEvict)}), after reclaimSpace ${bytesText(s.afterReclaim)} (free ${bytesText(s.freeAfterReclaim)}), after re-inserting ${bytesText(s.afterRefill)} (free ${bytesText(s.freeAfterRefill)})`;
        context.log(`  ours: ${line(ours)}`);
        context.log(`  raw:  ${line(raw)}`);
        reports.push({ store, ours, raw });
      }
      return reports;
    })();
    measured.set(context, promise);
  }
  return promise;
}

const SHORT: Record<StoreKind, string> = { new: 'new store', old: 'store made without auto-vacuum', incremental: 'store made incremental' };

/** Table 2: the sizes, ours against raw. */
export async function sizeRows(context: SuiteContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { store, ours, raw } of await spaceReports(context)) {
    const name = `${SHORT[store.kind]} (${store.autoVacuum})`;
    const row = (step: string, pick: (s: Steps) => number): Row => ({
      name: `${name}: ${step}`,
      kind: 'memory',
      ours: megabytes(pick(ours)),
      raw: megabytes(pick(raw)),
      repetitions: 1,
    });
    // A row of free pages alone would divide 0 by 0 where the pages went back: they go in the name.
    rows.push(
      row(`before the EVICT of ${thousands(DOCS)}`, (s) => s.before),
      row(`right after the EVICT, free pages in it: ours ${bytesText(ours.freeAfterEvict)}, raw ${bytesText(raw.freeAfterEvict)}`, (s) => s.afterEvict),
      row(`after reclaimSpace(), free pages in it: ours ${bytesText(ours.freeAfterReclaim)}, raw ${bytesText(raw.freeAfterReclaim)}`, (s) => s.afterReclaim),
      row(`after re-inserting ${thousands(DOCS)}`, (s) => s.afterRefill),
    );
  }
  return rows;
}

/**
 * What became of the freed pages, from the figures: returned when the file shrank by at least
 * half of the space the EVICT freed; kept for reuse when the free pages hold at least half of it.
 */
function fate(s: Steps): string {
  const freed = s.before - s.afterReclaim;
  if (freed >= 0.5 * s.freeAfterEvict && s.freeAfterEvict > 0) return 'returned to the file system';
  if (s.freeAfterReclaim >= 0.5 * s.freeAfterEvict && s.freeAfterEvict > 0) return 'kept in the file as free pages';
  return `neither (free pages ${bytesText(s.freeAfterReclaim)})`;
}

/**
 * Table 3: each store's size ÷ its size before the EVICT (ours = after, raw = before). A store
 * made with incremental auto-vacuum should give the space back (target: the file at most a
 * tenth of what it was); every store should take 100,000 new documents into what it has or had
 * without growing past its size before (target 1.1×), which is what "reusable" means.
 */
export async function fateRows(context: SuiteContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { store, ours } of await spaceReports(context)) {
    const name = `${SHORT[store.kind]} (${store.autoVacuum})`;
    const returnedExpected = store.kind !== 'old';
    rows.push(
      {
        name: `${name}: after reclaimSpace(): ${fate(ours)}`,
        kind: 'memory',
        ours: megabytes(ours.afterReclaim),
        raw: megabytes(ours.before),
        repetitions: 1,
        ...(returnedExpected ? { target: 0.1 } : {}),
      },
      {
        name: `${name}: after re-inserting ${thousands(DOCS)}`,
        kind: 'memory',
        ours: megabytes(ours.afterRefill),
        raw: megabytes(ours.before),
        repetitions: 1,
        target: 1.1,
      },
    );
  }
  return rows;
}
