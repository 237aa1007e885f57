/**
 * The eviction suite's first table: how long evicting all or half of 100,000 documents takes on
 * a new SyncMesh store, by `sync.store.execute` and by the local strategy's `runNow` (plan,
 * EVICT, log, reclaimSpace), against raw better-sqlite3 deleting the same rows from a plain
 * table with the same auto_vacuum mode. Every repetition starts from a fresh copy of the closed
 * templates (untimed), so that each deletes the same rows from the same pages.
 */
import { cpSync, rmSync } from 'node:fs';
import type { EvictionRun, Sync } from '../src/peer/host.ts';
import { compare, check, type Row, type Side, type SuiteContext } from './harness.ts';
import { RawEvictStore, type AutoVacuum } from './eviction-raw.ts';
import { ALL, COLLECTION, DOCS, EVICT, Logs, documentsIn, expectCount, half, openStore, templates, thousands, type Cut } from './eviction-common.ts';

const OPTIONS = { warmup: 1, repeat: 5, budgetMs: 20_000 };

interface Copy<T> {
  readonly dir: string;
  readonly store: T;
}

/** Ours: a copy of the template, opened (with the local strategy configured, unscheduled); closed and removed after. */
function oursOnCopy(context: SuiteContext, template: string, logs: Logs, run: (sync: Sync) => Promise<number>, expected: number): Side<Copy<Sync>> {
  return {
    setup: () => {
      const dir = context.tempDir('ours');
      cpSync(template, dir, { recursive: true });
      const sync = openStore(dir, logs, { strategies: [{ kind: 'local', collection: COLLECTION, ttlHours: 24 }], scheduled: false });
      expectCount('ours before the EVICT', documentsIn(sync), DOCS);
      return { dir, store: sync };
    },
    run: async (c) => expectCount('ours, evicted', await run(c.store), expected),
    teardown: (c) => {
      try {
        expectCount('ours after the EVICT', documentsIn(c.store), DOCS - expected);
      } finally {
        c.store.close();
        rmSync(c.dir, { recursive: true, force: true });
      }
    },
  };
}

function rawOnCopy(
  context: SuiteContext,
  template: string,
  mode: AutoVacuum,
  run: (raw: RawEvictStore) => number,
  expected: number,
): Side<Copy<RawEvictStore>> {
  return {
    setup: () => {
      const dir = context.tempDir('raw');
      cpSync(template, dir, { recursive: true });
      const raw = new RawEvictStore(dir, mode);
      expectCount('raw before the DELETE', raw.count(), DOCS);
      return { dir, store: raw };
    },
    run: (c) => expectCount('raw, deleted', run(c.store), expected),
    teardown: (c) => {
      try {
        expectCount('raw after the DELETE', c.store.count(), DOCS - expected);
      } finally {
        c.store.close();
        rmSync(c.dir, { recursive: true, force: true });
      }
    },
  };
}

const execute =
  (cut: Cut) =>
  async (sync: Sync): Promise<number> =>
    (await sync.store.execute(EVICT, { ttl: cut.ttl })).mutatedDocumentIds.length;

/** The local strategy's run with the cut's TTL; forced, as a second run within a day would be refused. */
const strategy =
  (cut: Cut, runs: EvictionRun[]) =>
  async (sync: Sync): Promise<number> => {
    const run = await sync.eviction.runNow(COLLECTION, { force: true, ttl: cut.ttl });
    check(run.outcome === 'evicted', () => `the strategy's run was ${run.outcome}: ${run.reason ?? ''}`);
    runs.push(run);
    return run.evicted;
  };

export async function timeRows(context: SuiteContext): Promise<Row[]> {
  const t = await templates(context);
  const store = t.stores.new;
  const mode = store.autoVacuum;
  const rawTemplate = t.raw(mode);
  const logs = new Logs();
  const rows: Row[] = [];
  for (const cut of [ALL, half()]) {
    const of = `${thousands(cut.expected)} of ${thousands(DOCS)} docs`;
    context.log(`EVICT ${of}: sync.store.execute`);
    const e = await compare(
      oursOnCopy(context, store.dir, logs, execute(cut), cut.expected),
      rawOnCopy(context, rawTemplate, mode, (raw) => raw.deleteUpTo(cut.ttl), cut.expected),
      OPTIONS,
    );
    rows.push({ name: `EVICT ${of}: sync.store.execute (raw: DELETE)`, kind: 'time', ...e, target: 3 });
    logs.checkpoint(context, `EVICT ${of}`);

    context.log(`EVICT ${of}: sync.eviction.runNow`);
    const runs: EvictionRun[] = [];
    const s = await compare(
      oursOnCopy(context, store.dir, logs, strategy(cut, runs), cut.expected),
      rawOnCopy(
        context,
        rawTemplate,
        mode,
        (raw) => {
          const deleted = raw.deleteUpTo(cut.ttl);
          raw.reclaim();
          return deleted;
        },
        cut.expected,
      ),
      OPTIONS,
    );
    const last = runs.at(-1);
    if (last !== undefined)
      context.log(
        `  the strategy's run: ${last.durationMs} ms by its clock, store ${last.storeBytesBefore} → ${last.storeBytesAfter} bytes, ${last.bytesFreed} bytes of documents freed`,
      );
    rows.push({ name: `EVICT ${of}: strategy runNow, with reclaimSpace (raw: DELETE + reclaim)`, kind: 'time', ...s, target: 3 });
    logs.checkpoint(context, `strategy ${of}`);
  }
  return rows;
}
