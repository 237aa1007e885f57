/**
 * Group commit on the PostgreSQL storage (issue 23, part 2): the write transactions of a node that
 * come while one holds the clock row commit together, each with its own txn_id in order; each is
 * answered only once its group's COMMIT is done; a writer that fails is undone alone; and a node
 * killed mid-group loses nothing it acknowledged. Real PostgreSQL, real processes and HTTP on
 * 127.0.0.1. Needs a PostgreSQL server: without one these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LogHub, Sync, type ExternalCommit, type StoredDocument, type GroupedWriteTransaction } from '../../peer/host.ts';
import { stopAll } from '../../testing/cli/child-process-fixture.ts';
import { post } from '../../testing/big-peer/test-helpers.ts';
import { startBigPeerNode } from '../../testing/postgres/pg-node-process.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';
import { PgStorage, type PgStorageOptions } from './pg-storage.ts';

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('group');
});
afterAll(async () => {
  await database?.drop();
});

const opened: { close(): void }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) o.close();
  await stopAll();
});

function url(): string {
  if (database === undefined) throw new Error('the test database was not created');
  return database.url;
}

const freshSchema = (): string => `g_${randomBytes(6).toString('hex')}`;
const HLC = '0000000000010000';
const doc = (id: string, txnId: number): StoredDocument => ({ id, value: { _id: id, n: txnId }, meta: { n: [HLC, 'p'] } as never, txnId });
/** Groups stay open as long as writers come: the tests decide when they end. */
const LONG_GROUPS: Partial<PgStorageOptions> = { groupCommit: { maxOpenMs: 60_000 } };

function open(schema: string, options: Partial<PgStorageOptions> = LONG_GROUPS): PgStorage {
  const storage = PgStorage.open({ url: url(), schema, pollIntervalMs: 60_000, ...options });
  opened.push(storage);
  return storage;
}

/** The documents of `collection` as another connection sees them: `_id` → txn_id. */
async function committed(schema: string, collection = 'orders'): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: url() });
  await client.connect();
  try {
    const { rows } = await client.query<{ body: string; txn_id: string }>(
      `SELECT body, txn_id FROM ${schema}.documents WHERE collection = $1 AND NOT deleted`,
      [collection],
    );
    return new Map(rows.map((r) => [String((JSON.parse(r.body) as { _id: unknown })._id), Number(r.txn_id)]));
  } finally {
    await client.end();
  }
}

/** A write transaction of `storage` that puts doc(id, n) as txn_id `n`, left open for the test to end. */
async function putting(storage: PgStorage, id: string, n: number): Promise<GroupedWriteTransaction> {
  const write = await storage.acquireWrite();
  write.writer.put('orders', doc(id, n));
  write.writer.setClock({ lastTxnId: n, lastHlc: HLC });
  return write;
}

const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('group commit on the PostgreSQL storage', () => {
  it('answers a writer only once its group commits, and the next writer of the group sees it and takes the next txn_id', async () => {
    const schema = freshSchema();
    const storage = open(schema);
    const first = await putting(storage, 'a', 1);
    const firstDone = first.commit();
    let answered = false;
    void Promise.resolve(firstDone).then(() => (answered = true));

    const second = await storage.acquireWrite();
    expect(second.writer.clock().lastTxnId).toBe(1);
    expect(second.writer.get('orders', 'a')?.value).toEqual({ _id: 'a', n: 1 });
    await settle(100);
    // The second writer is still open in the group: nothing is committed, nobody is answered.
    expect(answered).toBe(false);
    expect((await committed(schema)).size).toBe(0);

    second.writer.put('orders', doc('b', 2));
    second.writer.setClock({ lastTxnId: 2, lastHlc: HLC });
    await Promise.all([firstDone, second.commit()]);
    expect(answered).toBe(true);
    expect(await committed(schema)).toEqual(
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    );
    expect(storage.read((r) => r.clock().lastTxnId)).toBe(2);
    expect(storage.commitCounters).toMatchObject({ groups: 1, writes: 2 });
  });

  it('undoes a writer whose statement PostgreSQL refuses alone: the writers before and after it in the group commit', async () => {
    const schema = freshSchema();
    const storage = open(schema);
    const first = await putting(storage, 'a', 1);
    const firstDone = first.commit();

    const failing = await putting(storage, 'b', 2);
    expect(() => (failing.writer as unknown as { query(sql: string): unknown }).query('SELECT 1 / 0')).toThrow(
      expect.objectContaining({ code: 'store/io', message: expect.stringContaining('division by zero') }),
    );
    failing.rollback();

    const third = await storage.acquireWrite();
    expect(third.writer.clock().lastTxnId).toBe(1);
    expect(third.writer.get('orders', 'b')).toBeUndefined();
    third.writer.put('orders', doc('c', 2));
    third.writer.setClock({ lastTxnId: 2, lastHlc: HLC });
    await Promise.all([firstDone, third.commit()]);

    expect(await committed(schema)).toEqual(
      new Map([
        ['a', 1],
        ['c', 2],
      ]),
    );
    expect(storage.commitCounters).toMatchObject({ groups: 1, writes: 2 });
  });

  it('fails every writer of a group whose connection is lost, commits none of them, and starts the next group afresh', async () => {
    const schema = freshSchema();
    const nodeName = `lost-${randomBytes(4).toString('hex')}`;
    const storage = open(schema, { ...LONG_GROUPS, nodeName });
    const first = await putting(storage, 'a', 1);
    const firstDone = first.commit();
    const second = await storage.acquireWrite();
    expect(second.writer.get('orders', 'a')).toBeDefined(); // the group's transaction is on the server now
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      const { rowCount } = await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND state LIKE 'idle in transaction%'",
        [nodeName],
      );
      expect(rowCount).toBe(1);
    } finally {
      await client.end();
    }
    second.writer.put('orders', doc('b', 2));
    second.writer.setClock({ lastTxnId: 2, lastHlc: HLC });
    expect(() => second.commit()).toThrow(expect.objectContaining({ code: 'store/unavailable' }));
    await expect(firstDone).rejects.toMatchObject({ code: 'store/unavailable' });
    expect((await committed(schema)).size).toBe(0);

    const next = await storage.acquireWrite();
    expect(next.writer.clock().lastTxnId).toBe(0);
    next.writer.put('orders', doc('c', 1));
    next.writer.setClock({ lastTxnId: 1, lastHlc: HLC });
    await next.commit();
    expect(await committed(schema)).toEqual(new Map([['c', 1]]));
  });

  it('fails the writers of a group with store/closed when the store closes while one of them is open', async () => {
    const schema = freshSchema();
    const storage = open(schema);
    const first = await putting(storage, 'a', 1);
    const firstDone = first.commit();
    await storage.acquireWrite(); // open, never ended
    storage.close();
    await expect(firstDone).rejects.toMatchObject({ code: 'store/closed' });
    expect((await committed(schema)).size).toBe(0);
  });

  it('tells another node of a group in one notification: its last txn_id and every collection it wrote', async () => {
    const schema = freshSchema();
    const a = open(schema);
    const b = open(schema);
    const told: ExternalCommit[] = [];
    b.onExternalCommit((commit) => told.push(commit));
    await settle(200); // b is listening
    const done: Promise<void>[] = [];
    for (const [txnId, collection] of [
      [1, 'orders'],
      [2, 'people'],
      [3, 'orders'],
    ] as const) {
      const tx = await a.acquireWrite();
      tx.writer.put(collection, doc(`d${txnId}`, txnId));
      tx.writer.setClock({ lastTxnId: txnId, lastHlc: HLC });
      done.push(Promise.resolve(tx.commit()));
    }
    await Promise.all(done);
    for (let i = 0; i < 200 && told.length === 0; i++) await settle(10);
    expect(told).toEqual([{ txnId: 3, collections: ['orders', 'people'] }]);
  });
});

describe('group commit through the store', () => {
  function openSync(schema: string): { sync: Sync; storage: PgStorage } {
    const storage = PgStorage.open({ url: url(), schema, pollIntervalMs: 60_000, ...LONG_GROUPS });
    const sync = new Sync({ storage, storageName: 'postgres', logHub: new LogHub({ minimumLogLevel: 'ERROR' }) });
    opened.push(sync);
    return { sync, storage };
  }

  it('commits writers that queue meanwhile in a group, each with its own txn_id in the order they came', async () => {
    const schema = freshSchema();
    const { sync, storage } = openSync(schema);
    const seen: number[] = [];
    sync.store.onCommit((txn) => seen.push(txn.txnId));
    const before = storage.commitCounters;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => sync.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: `o${String(i).padStart(2, '0')}`, i } })),
    );
    const ids = results.map((r) => r.commitId as number);
    expect(ids).toEqual(ids.map((_, i) => (ids[0] as number) + i));
    expect(seen).toEqual(ids);
    expect(sync.store.lastTxnId).toBe(ids.at(-1));
    const stored = await committed(schema);
    expect([...stored.entries()].sort()).toEqual(ids.map((txnId, i) => [`o${String(i).padStart(2, '0')}`, txnId]));
    const after = storage.commitCounters;
    expect(after.writes - before.writes).toBe(40);
    // The first writer waits for the lock; the 39 queued behind it commit with it.
    expect(after.groups - before.groups).toBeLessThanOrEqual(2);
    // Measured: 84 statements in 43 round trips for one group (82 before the savepoints went in one
    // text with their INSERT). Each INSERT is one round trip with its savepoint; the group adds its
    // BEGIN with the lock and its clock row, NOTIFY and COMMIT; one more is the poller's look at the
    // clock once it listens.
    const groups = after.groups - before.groups;
    expect(after.roundTrips - before.roundTrips).toBeLessThanOrEqual(41 + 2 * groups);
    expect(after.statements - before.statements).toBeLessThanOrEqual(40 + 39 + 1 + 4 * groups);
  });

  it('keeps every character of documents whose statement goes in one text with the savepoint', async () => {
    const { sync } = openSync(freshSchema());
    const awkward = [
      { _id: "it's", s: "quote ' and '' twice", b: 'back\\slash \\x00 and \\', d: '$1 $2 "$3"', u: 'é 😀 \u2028', n: -0.5, big: 12345678901234 },
      { _id: { k: "o'b\\j" }, nested: { a: [1, 'two', null, true], e: '' } },
      { _id: 7, s: ';COMMIT; SELECT 1/0; --', t: "E'\\''" },
    ];
    await Promise.all(awkward.map((d) => sync.store.execute('INSERT INTO awkward DOCUMENTS (:d)', { d })));
    const stored = (await sync.store.execute('SELECT * FROM awkward')).items;
    expect(stored).toHaveLength(awkward.length);
    for (const doc of awkward) expect(stored).toContainEqual(doc);
  });

  it('undoes a failing statement alone while the statements queued around it commit', async () => {
    const schema = freshSchema();
    const { sync } = openSync(schema);
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'taken' } });
    const insert = (ids: string[]): Promise<unknown> =>
      sync.store.execute(
        `INSERT INTO orders DOCUMENTS ${ids.map((_, i) => `(:d${i})`).join(', ')}`,
        Object.fromEntries(ids.map((id, i) => [`d${i}`, { _id: id }])),
      );
    const outcomes = await Promise.allSettled([insert(['a']), insert(['b', 'taken']), insert(['c'])]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'query/evaluation' });
    const [a, c] = [outcomes[0], outcomes[2]].map((o) => (o as PromiseFulfilledResult<{ commitId: number }>).value.commitId);
    expect(c).toBe((a as number) + 1);
    expect([...(await committed(schema)).keys()].sort()).toEqual(['a', 'c', 'taken']);
  });

  it('lets an interactive transaction await an earlier write: it never joins that write’s group', async () => {
    const { sync } = openSync(freshSchema());
    const earlier = sync.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'x' } });
    const outcome = await sync.store.transaction(async (tx) => {
      const { commitId } = await earlier;
      await tx.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'y' } });
      return commitId;
    });
    expect(outcome).toBeGreaterThan(0);
    expect((await sync.store.execute('SELECT _id FROM orders ORDER BY _id')).items).toEqual([{ _id: 'x' }, { _id: 'y' }]);
  });
});

describe('a Big Peer node killed mid-group', () => {
  it('loses none of the writes it acknowledged to 64 concurrent HTTP clients', async () => {
    const schema = freshSchema();
    const { run, url: base } = await startBigPeerNode(`${url()}?schema=${schema}`, 'node-killed-mid-group');

    const acknowledged: string[] = [];
    let inFlight = 0;
    let stop = false;
    // 64 clients, each at most 200 writes, each write one document; they stop when the node is gone.
    const clients = Array.from({ length: 64 }, async (_, c) => {
      for (let i = 0; !stop && i < 200; i++) {
        const id = `c${c}-${i}`;
        inFlight++;
        const answer = await post(`${base}/api/v4/store/execute`, { statement: 'INSERT INTO orders DOCUMENTS (:d)', args: { d: { _id: id } } }).catch(
          () => undefined,
        );
        inFlight--;
        if (answer?.status === 200) acknowledged.push(id);
        else break;
      }
    });
    const deadline = Date.now() + 30_000;
    while (acknowledged.length < 500 && Date.now() < deadline) await settle(5);
    expect(acknowledged.length).toBeGreaterThanOrEqual(500);
    const inFlightAtKill = inFlight;
    run.child.kill('SIGKILL');
    await run.exit;
    stop = true;
    await Promise.all(clients);

    // Writes were on their way when it died: some in the group being written, unanswered.
    expect(inFlightAtKill).toBeGreaterThan(0);
    const stored = await committed(schema);
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    // Each stored write has a txn_id of its own.
    expect(new Set(stored.values()).size).toBe(stored.size);
  }, 90_000);
});
