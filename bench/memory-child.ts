/**
 * A child process of the store suite's memory row: stores a data set through our store or the
 * raw baseline, then reads it all back and holds the result, and prints one JSON line with its
 * resident memory. Run by `store.bench.ts` as
 * `node --expose-gc bench/memory-child.ts <ours|raw> <dir> <count> <batch> <seed>`.
 */
import { resourceUsage } from 'node:process';
import { Sync } from '../src/peer/host.ts';
import { documentBatches } from './documents.ts';
import { RawStore } from './raw-store.ts';

const MB = 1024 * 1024;
const [kind, dir, countArg, batchArg, seedArg] = process.argv.slice(2);
const count = Number(countArg);
const batch = Number(batchArg);
const seed = Number(seedArg);
if ((kind !== 'ours' && kind !== 'raw') || dir === undefined || !(count > 0) || !(batch > 0) || !Number.isInteger(seed)) {
  throw new Error('usage: memory-child.ts <ours|raw> <dir> <count> <batch> <seed>');
}

/** The highest resident set size so far: the kernel's high-water mark, never below a sample. */
function peakRss(samples: readonly number[]): number {
  return Math.max(resourceUsage().maxRSS * 1024, ...samples);
}

const gc = (globalThis as { gc?: () => void }).gc;

interface Measured {
  readonly peakInsert: number;
  readonly afterSelect: number;
  readonly documents: number;
}

/** Resident memory after reading everything back, with the store still open and the items held. */
function afterSelect(items: readonly unknown[]): number {
  // What the process holds, not garbage the collector has yet to reach.
  gc?.();
  const rss = process.memoryUsage().rss;
  if (items.length === 0) throw new Error('the SELECT found nothing');
  return rss;
}

async function ours(): Promise<Measured> {
  const samples: number[] = [process.memoryUsage().rss];
  const sync = new Sync({ persistenceDirectory: dir as string });
  try {
    for (const docs of documentBatches(count, batch, seed)) {
      await sync.store.execute('INSERT INTO docs DOCUMENTS (:docs)', { docs });
      samples.push(process.memoryUsage().rss);
    }
    const peakInsert = peakRss(samples);
    const items = (await sync.store.execute('SELECT * FROM docs')).items;
    return { peakInsert, afterSelect: afterSelect(items), documents: items.length };
  } finally {
    sync.close();
  }
}

function raw(): Measured {
  const samples: number[] = [process.memoryUsage().rss];
  const store = new RawStore(dir as string);
  try {
    for (const docs of documentBatches(count, batch, seed)) {
      store.insertMany(docs);
      samples.push(process.memoryUsage().rss);
    }
    const peakInsert = peakRss(samples);
    const items = store.selectAll();
    return { peakInsert, afterSelect: afterSelect(items), documents: items.length };
  } finally {
    store.close();
  }
}

const m = kind === 'ours' ? await ours() : raw();
const report = { peakInsertMb: m.peakInsert / MB, afterSelectMb: m.afterSelect / MB, documents: m.documents };
process.stdout.write(`${JSON.stringify(report)}\n`);
