/**
 * What the eviction suite's tables share: the data set (100,000 benchmark documents), the TTLs
 * that select all or half of it, the log hub every peer of the suite uses, and the closed
 * stores each repetition starts from a copy of: SyncMesh stores of three kinds (as a new store
 * is made today, made without auto-vacuum as stores were before, made with incremental
 * auto-vacuum) and the raw tables of each auto_vacuum mode. They are built once per run.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Sync, type EvictionOptions } from '../src/peer/host.ts';
import { CREATED_FROM_MS, CREATED_SPAN_MS, documentBatches, generateDocuments } from './documents.ts';
import { check, type SuiteContext } from './harness.ts';
import { AUTO_VACUUM, RawEvictStore, type AutoVacuum } from './eviction-raw.ts';
import { Logs } from './peers.ts';

export { Logs };

/** Documents in the data set, and in the batches it is written in. */
export const DOCS = 100_000;
export const BATCH = 10_000;
export const SEED = 31;
export const COLLECTION = 'docs';
const STORE_FILE = 'store.sqlite';

export const thousands = (n: number): string => n.toLocaleString('en-US');
export const megabytes = (bytes: number): number => bytes / 1024 / 1024;

/** `1536` → `1.5 KB`. */
export function bytesText(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs < 1024) return `${Math.round(bytes)} B`;
  if (abs < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The EVICT every row runs (the local strategy's, with its default field). */
export const EVICT = `EVICT FROM ${COLLECTION} WHERE createdAt <= :ttl`;

export interface Cut {
  readonly ttl: string;
  /** Documents of the data set with createdAt <= ttl. */
  readonly expected: number;
}

/** A TTL after every createdAt of the data set: the EVICT selects all of it. */
export const ALL: Cut = { ttl: new Date(CREATED_FROM_MS + CREATED_SPAN_MS).toISOString(), expected: DOCS };

/** The median createdAt: the EVICT selects half the data set (exactly counted: equal times would select more). */
export function half(): Cut {
  const times: string[] = [];
  for (const batch of documentBatches(DOCS, BATCH, SEED)) for (const doc of batch) times.push(doc.createdAt);
  times.sort();
  const ttl = times[DOCS / 2 - 1] as string;
  return { ttl, expected: times.filter((t) => t <= ttl).length };
}

/** A SyncMesh store on SQLite in `dir`, logging into `logs`. */
export function openStore(dir: string, logs: Logs, eviction?: EvictionOptions): Sync {
  return new Sync({ persistenceDirectory: dir, logHub: logs.hub, ...(eviction === undefined ? {} : { eviction }) });
}

/** Live documents of the collection. */
export function documentsIn(sync: Sync): number {
  return sync.store.collections().find((c) => c.name === COLLECTION)?.documents ?? 0;
}

export function expectCount(what: string, found: number, expected: number): void {
  check(found === expected, () => `${what}: ${thousands(found)} documents, expected ${thousands(expected)}`);
}

/** Inserts documents `first` … `first + count - 1` of the data set's seed, a batch per statement. */
export async function fillStore(sync: Sync, first: number, count: number): Promise<void> {
  for (let i = first; i < first + count; i += BATCH) {
    await sync.store.execute(`INSERT INTO ${COLLECTION} DOCUMENTS (:docs)`, {
      docs: generateDocuments(Math.min(BATCH, first + count - i), { seed: SEED, first: i }),
    });
  }
}

export function fillRaw(raw: RawEvictStore, first: number, count: number): void {
  for (let i = first; i < first + count; i += BATCH) raw.insertMany(generateDocuments(Math.min(BATCH, first + count - i), { seed: SEED, first: i }));
}

/** The auto_vacuum mode of a closed store's database file, read from the file itself. */
export function autoVacuumOf(storeDir: string): AutoVacuum {
  const db = new Database(join(storeDir, STORE_FILE), { readonly: true, fileMustExist: true });
  try {
    return AUTO_VACUUM[db.pragma('auto_vacuum', { simple: true }) as 0 | 1 | 2];
  } finally {
    db.close();
  }
}

/**
 * Rewrites a closed store's file with another auto_vacuum mode (`PRAGMA auto_vacuum = …;
 * VACUUM`), its schema and data unchanged, and checks the mode took.
 */
function setAutoVacuum(storeDir: string, mode: AutoVacuum): void {
  const db = new Database(join(storeDir, STORE_FILE), { fileMustExist: true });
  try {
    db.pragma(`auto_vacuum = ${mode}`);
    db.exec('VACUUM');
  } finally {
    db.close();
  }
  const found = autoVacuumOf(storeDir);
  check(found === mode, () => `the store in ${storeDir} has auto_vacuum ${found} after VACUUM, expected ${mode}`);
}

/** How the SyncMesh store of a template was made. */
export type StoreKind = 'new' | 'old' | 'incremental';

export interface StoreTemplate {
  readonly kind: StoreKind;
  /** A closed store directory holding the data set. */
  readonly dir: string;
  /** Its database file's auto_vacuum mode, read from the file. */
  readonly autoVacuum: AutoVacuum;
  /** Who made it, for the tables. */
  readonly label: string;
}

export interface Templates {
  readonly stores: Readonly<Record<StoreKind, StoreTemplate>>;
  /** A closed raw database directory holding the data set, per auto_vacuum mode. */
  raw(mode: AutoVacuum): string;
}

const LABELS: Record<StoreKind, (mode: AutoVacuum) => string> = {
  new: (mode) => `new store, as SyncMesh makes it (auto_vacuum ${mode})`,
  old: (mode) => `store made without auto-vacuum (auto_vacuum ${mode})`,
  incremental: (mode) => `store made with incremental auto-vacuum (auto_vacuum ${mode})`,
};

/**
 * A closed store of the data set. `new`: a fresh directory opened by `Sync`, as any new store
 * is made. `old`: the same, then rewritten with auto_vacuum NONE before it is filled, which is
 * what a store made before auto-vacuum was chosen at creation holds (the same schema). `incremental`:
 * rewritten with auto_vacuum INCREMENTAL, what the schema intends for new stores.
 */
async function buildStore(context: SuiteContext, logs: Logs, kind: StoreKind): Promise<StoreTemplate> {
  const dir = context.tempDir(`template-${kind}`);
  openStore(dir, logs).close();
  if (kind === 'old') setAutoVacuum(dir, 'NONE');
  if (kind === 'incremental') setAutoVacuum(dir, 'INCREMENTAL');
  const sync = openStore(dir, logs);
  try {
    await fillStore(sync, 0, DOCS);
    expectCount(`the ${kind} template`, documentsIn(sync), DOCS);
  } finally {
    sync.close();
  }
  const autoVacuum = autoVacuumOf(dir);
  return { kind, dir, autoVacuum, label: LABELS[kind](autoVacuum) };
}

function buildRaw(context: SuiteContext, mode: AutoVacuum): string {
  const dir = context.tempDir(`template-raw-${mode.toLowerCase()}`);
  const raw = new RawEvictStore(dir, mode);
  try {
    check(raw.autoVacuum === mode, () => `the raw template has auto_vacuum ${raw.autoVacuum}, expected ${mode}`);
    fillRaw(raw, 0, DOCS);
    expectCount('the raw template', raw.count(), DOCS);
  } finally {
    raw.close();
  }
  return dir;
}

const built = new WeakMap<SuiteContext, Promise<Templates>>();

/** The templates of this run, built at the first call (untimed) and shared by the tables. */
export function templates(context: SuiteContext): Promise<Templates> {
  let promise = built.get(context);
  if (promise === undefined) {
    promise = (async () => {
      const logs = new Logs();
      context.log(`building the templates: ${thousands(DOCS)} documents in 3 stores and 2 raw tables`);
      const stores = {
        new: await buildStore(context, logs, 'new'),
        old: await buildStore(context, logs, 'old'),
        incremental: await buildStore(context, logs, 'incremental'),
      };
      const raws = new Map<AutoVacuum, string>();
      logs.checkpoint(context, 'templates');
      context.log(`  ${stores.new.label}`);
      return {
        stores,
        raw(mode) {
          let dir = raws.get(mode);
          if (dir === undefined) {
            dir = buildRaw(context, mode);
            raws.set(mode, dir);
          }
          return dir;
        },
      };
    })();
    built.set(context, promise);
  }
  return promise;
}
