/**
 * Deterministic benchmark documents: the same seed gives the same documents on every machine
 * and in every process (the memory children regenerate them rather than receive them). Each is
 * about 200 bytes of JSON, shaped like the field data the issue describes: `createdAt` spread
 * over ten days with millisecond precision, `evictionFlag` true for about one in ten.
 */
import { seededRandom } from '../src/testing/seeded-random.ts';

/** A benchmark document. A type alias (not an interface) so that it is assignable to JsonObject. */
export type BenchDocument = {
  _id: string;
  createdAt: string;
  evictionFlag: boolean;
  isDeleted: boolean;
  locationId: string;
  sku: string;
  title: string;
  status: string;
  quantity: number;
  price: number;
};

/** The first instant of the ten days the documents' `createdAt` covers. */
export const CREATED_FROM_MS = Date.UTC(2025, 0, 1);
export const CREATED_SPAN_MS = 10 * 24 * 60 * 60 * 1000;
/** Share of documents with `evictionFlag: true`. */
export const EVICTION_FLAG_SHARE = 0.1;

const WORDS = ['pallet', 'crate', 'valve', 'sensor', 'filter', 'gasket', 'bracket', 'hose', 'pump', 'relay', 'fuse', 'cable'];
const STATUSES = ['open', 'picked', 'packed', 'shipped', 'returned'];

export interface GenerateOptions {
  /** PRNG seed; the same seed gives the same documents. */
  readonly seed: number;
  /** Index of the first document, so that batches of one data set have distinct `_id`s. */
  readonly first?: number;
}

/**
 * `count` documents numbered from `first`. `_id`s are `d` and a zero-padded number, so they sort
 * in insertion order, as the store's own time-ordered ids do. Document n draws its fields from a
 * PRNG seeded with (seed, n), so it is the same whichever batch it is generated in.
 */
export function generateDocuments(count: number, options: GenerateOptions): BenchDocument[] {
  const first = options.first ?? 0;
  const docs = new Array<BenchDocument>(count);
  for (let i = 0; i < count; i++) {
    const n = first + i;
    const random = seededRandom(Math.imul(options.seed, 0x9e3779b1) ^ n);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    docs[i] = {
      _id: `d${String(n).padStart(9, '0')}`,
      createdAt: new Date(CREATED_FROM_MS + Math.floor(random() * CREATED_SPAN_MS)).toISOString(),
      evictionFlag: random() < EVICTION_FLAG_SHARE,
      isDeleted: false,
      locationId: `loc-${String(Math.floor(random() * 64)).padStart(3, '0')}`,
      sku: `SKU-${String(Math.floor(random() * 100_000)).padStart(5, '0')}`,
      title: `${pick(WORDS)} ${pick(WORDS)}`,
      status: pick(STATUSES),
      quantity: Math.floor(random() * 500),
      price: Math.round(random() * 100_000) / 100,
    };
  }
  return docs;
}

/** A data set of `total` documents in batches of `batchSize`: in bounded memory. */
export function* documentBatches(total: number, batchSize: number, seed: number): Generator<BenchDocument[]> {
  for (let first = 0; first < total; first += batchSize) {
    yield generateDocuments(Math.min(batchSize, total - first), { seed, first });
  }
}

/**
 * The `createdAt` bound for `createdAt <= ttl AND evictionFlag = false` to match `fraction` of
 * the documents: the createdAt of the k-th matching candidate in time order. Exact for the data
 * set generated with the same arguments, so both sides of a comparison select the same rows.
 */
export function ttlSelecting(fraction: number, total: number, batchSize: number, seed: number): { ttl: string; expected: number } {
  const times: string[] = [];
  for (const batch of documentBatches(total, batchSize, seed)) {
    for (const doc of batch) if (!doc.evictionFlag) times.push(doc.createdAt);
  }
  times.sort();
  const expected = Math.max(1, Math.round(fraction * total));
  const ttl = times[expected - 1] as string;
  // Equal createdAt values would select more than `expected`: count exactly.
  let matched = 0;
  for (const t of times) if (t <= ttl) matched++;
  return { ttl, expected: matched };
}
