/**
 * The change pages a node answers after a commit without reading (pg-change-pages.ts): the node
 * that committed cuts them from what its group read back before its COMMIT, another node from
 * what its worker read as the NOTIFY came. Each page must be exactly what a fresh read answers,
 * whatever the writes: several collections, overwrites, deletes, limits smaller than the group,
 * cursors, a writer of the group rolled back to its savepoint, a group larger than a known range.
 * Needs a PostgreSQL server: without one these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChangePage, ChangeQuery, ExternalCommit, GroupedWriteTransaction, StoredDocument } from '../../peer/host.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';
import { seededRandom } from '../../testing/seeded-random.ts';
import { KNOWN_ROWS } from './pg-change-pages.ts';
import { PgStorage } from './pg-storage.ts';

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('pages');
});
afterAll(async () => {
  await database?.drop();
});

const opened: PgStorage[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
});

function open(schema: string): PgStorage {
  if (database === undefined) throw new Error('the test database was not created');
  // Groups end when their writers do (the tests decide); no poll: only the NOTIFY tells.
  const storage = PgStorage.open({ url: database.url, schema, pollIntervalMs: 60_000, groupCommit: { maxOpenMs: 60_000 } });
  opened.push(storage);
  return storage;
}

const HLC = '0000000000010000';
const COLLECTIONS = ['a', 'b', 'c'];

function stored(id: string, txnId: number, value: Record<string, unknown> | null): StoredDocument {
  return { id, value: value === null ? null : { _id: id, ...value }, meta: { n: [HLC, `p${txnId}`] } as never, txnId };
}

/** Every page of `query` from its start, following the cursors. */
function allPages(read: (query: ChangeQuery) => ChangePage, query: ChangeQuery): ChangePage[] {
  const pages: ChangePage[] = [];
  let cursor: ChangeQuery['cursor'];
  do {
    const page = read(cursor === undefined ? query : { ...query, cursor });
    pages.push(page);
    cursor = page.next;
  } while (cursor !== undefined && pages.length < 5_000);
  return pages;
}

/** What a fresh read answers: a write transaction's reader, which never uses the page cache. */
function fresh(storage: PgStorage, queries: readonly ChangeQuery[]): ChangePage[][] {
  const tx = storage.beginWrite();
  try {
    return queries.map((q) => allPages((x) => tx.writer.changedSince(x), q));
  } finally {
    tx.rollback();
  }
}

/** The pages of `queries` as `storage` answers them to its sessions, and the round trips that took. */
function answered(storage: PgStorage, queries: readonly ChangeQuery[]): { pages: ChangePage[][]; roundTrips: number } {
  const before = storage.commitCounters.roundTrips;
  const pages = queries.map((q) => allPages((x) => storage.read((r) => r.changedSince(x)), q));
  return { pages, roundTrips: storage.commitCounters.roundTrips - before };
}

/** The queries a session may make after a commit of (after, upto]: the whole range and ranges inside it, with small limits. */
function queriesOf(collections: readonly string[], after: number, upto: number): ChangeQuery[] {
  const out: ChangeQuery[] = [];
  for (const collection of collections) {
    for (const limit of [1, 2, 3, 7, 500]) {
      out.push({ collection, afterTxnId: after, uptoTxnId: upto, limit });
      if (upto - after > 1) {
        out.push({ collection, afterTxnId: after + 1, uptoTxnId: upto, limit });
        out.push({ collection, afterTxnId: after, uptoTxnId: upto - 1, limit });
      }
    }
  }
  return out;
}

/** The last txn_id `storage` heard of from another node, as it hears them. */
function hearing(storage: PgStorage): { until(txnId: number): Promise<void> } {
  let last = 0;
  storage.onExternalCommit((commit: ExternalCommit) => {
    last = Math.max(last, commit.txnId);
  });
  return {
    async until(txnId) {
      const deadline = Date.now() + 10_000;
      while (last < txnId) {
        if (Date.now() > deadline) throw new Error(`the other node did not hear of txn_id ${txnId}`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    },
  };
}

/**
 * One group of random writers on `storage` (each puts, overwrites and deletes in random
 * collections, some under a savepoint they roll back; a writer after the first may fail and be
 * rolled back to its savepoint). Resolves once the group committed, with its txn_id range.
 */
async function randomGroup(
  storage: PgStorage,
  next: () => number,
  ids: number,
  padding: string,
): Promise<{ after: number; upto: number; written: Set<string> }> {
  const writers = 1 + Math.floor(next() * 6);
  const done: Promise<void>[] = [];
  const written = new Set<string>();
  let after = -1;
  let upto = -1;
  for (let w = 0; w < writers; w++) {
    const tx: GroupedWriteTransaction = await storage.acquireWrite();
    const txnId = tx.writer.clock().lastTxnId + 1;
    if (w === 0) after = txnId - 1;
    const touched = new Set<string>();
    const ops = 1 + Math.floor(next() * 8);
    for (let i = 0; i < ops; i++) {
      const collection = COLLECTIONS[Math.floor(next() * COLLECTIONS.length)] as string;
      const id = `d${Math.floor(next() * ids)}`;
      const kind = next();
      if (kind < 0.1) {
        // Written, then undone by the writer's own savepoint.
        const sp = tx.writer.savepoint();
        tx.writer.put(collection, stored(id, txnId, { undone: true }));
        sp.rollback();
      } else {
        tx.writer.put(collection, stored(id, txnId, kind < 0.3 ? null : { w, i, r: Math.floor(next() * 1000), padding }));
        touched.add(collection);
      }
    }
    tx.writer.setClock({ lastTxnId: txnId, lastHlc: HLC });
    if (w > 0 && next() < 0.25) {
      tx.writer.get('a', 'd0'); // sends what waits: the rollback has something to undo on the server
      tx.rollback();
      continue;
    }
    for (const c of touched) written.add(c);
    upto = txnId;
    done.push(Promise.resolve(tx.commit()));
  }
  await Promise.all(done);
  return { after, upto, written };
}

describe('change pages cut without a read after a commit', () => {
  it('answers, on the node that committed and on the other, exactly the pages a fresh read does, over random groups', async () => {
    const schema = `cp_${randomBytes(6).toString('hex')}`;
    const [one, two, oracle] = [open(schema), open(schema), open(schema)];
    const next = seededRandom(20_261_203);
    const twoHears = hearing(two);
    let groups = 0;
    for (let round = 0; round < 24; round++) {
      const ids = round < 12 ? 6 : 40;
      // Every third group writes large documents: its NOTIFY cannot carry its rows, and the other node's worker reads them.
      const { after, upto, written } = await randomGroup(one, next, ids, round % 3 === 2 ? 'x'.repeat(3_000) : '');
      if (upto < 0) continue;
      groups++;
      await twoHears.until(upto);
      const queries = queriesOf([...COLLECTIONS, 'never'], after, upto);
      const expected = fresh(oracle, queries);
      const cut = queriesOf([...written], after, upto);
      // Every page of the collections the group wrote comes without a round trip, on either node.
      expect(answered(one, cut).roundTrips).toBe(0);
      expect(answered(two, cut).roundTrips).toBe(0);
      // And every page, cut or read, is the fresh read's.
      expect(answered(one, queries).pages).toEqual(expected);
      expect(answered(two, queries).pages).toEqual(expected);
    }
    expect(groups).toBeGreaterThan(15);
  }, 120_000);

  it('knows of a group larger than its read the collections that came whole and a prefix of the one cut short, and reads the rest', async () => {
    const schema = `cp_${randomBytes(6).toString('hex')}`;
    const [one, two, oracle] = [open(schema), open(schema), open(schema)];
    const tx = await one.acquireWrite();
    // In collection order: `a` (whole), `big` (cut short within it), `zz` (after the cut).
    for (let i = 0; i < 3; i++) tx.writer.put('a', stored(`a${i}`, 1, { i }));
    for (let i = 0; i < KNOWN_ROWS + 300; i++) tx.writer.put('big', stored(`b${String(i).padStart(5, '0')}`, 1, i % 7 === 0 ? null : { i }));
    for (let i = 0; i < 2; i++) tx.writer.put('zz', stored(`z${i}`, 1, { i }));
    tx.writer.setClock({ lastTxnId: 1, lastHlc: HLC });
    const twoHears = hearing(two);
    await tx.commit();
    await twoHears.until(1);
    const query = (collection: string): ChangeQuery => ({ collection, afterTxnId: 0, uptoTxnId: 1, limit: 500 });
    const expected = fresh(oracle, ['a', 'big', 'zz'].map(query));
    expect(expected.map((pages) => pages.length)).toEqual([1, 3, 1]);
    for (const node of [one, two]) {
      // One read: its BEGIN and SELECT, then its COMMIT, as the bridge counts them.
      const ONE_READ = 3;
      const [a, big, zz] = ['a', 'big', 'zz'].map((c) => answered(node, [query(c)]));
      expect([a?.pages[0], big?.pages[0], zz?.pages[0]]).toEqual(expected);
      expect(a?.roundTrips).toBe(0);
      // Pages 1 and 2 (its rows 1–1,001 with the look-ahead) are inside the prefix; page 3 is read.
      expect(big?.roundTrips).toBe(ONE_READ);
      expect(zz?.roundTrips).toBe(ONE_READ);
    }
  }, 60_000);
});
