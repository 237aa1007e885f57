/**
 * Secondary indexes (issue 20): CREATE INDEX, DROP INDEX, system:indexes and EXPLAIN, on a
 * SQLite peer; the same answers with and without an index (random typed documents and
 * conditions, against the in-memory twin's JavaScript evaluator); and a subscription's query
 * read through the index its collection has. Every other DQL suite also runs on a peer that
 * indexes each path a statement uses ("sqlite with indexes" in dql-test-peers.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { LogHub } from '../log/log-hub.ts';
import { compileSubscriptions, windowQuery } from '../replication/matching.ts';
import { SqliteStorage } from '../storage/sqlite-storage.ts';
import { Sync } from './sync.ts';
import { failureOf, indexesFor, seed } from '../../testing/dql-test-peers.ts';
import { seededRandom } from '../../testing/seeded-random.ts';

const dirs: string[] = [];
const peers: Sync[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dql-indexes-'));
  dirs.push(dir);
  return dir;
}

function open(dir = tempDir(), logHub = new LogHub()): Sync {
  const sync = new Sync({ persistenceDirectory: dir, logHub });
  peers.push(sync);
  return sync;
}

afterEach(() => {
  for (const p of peers.splice(0)) p.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ORDERS: JsonObject[] = Array.from({ length: 200 }, (_, i) => ({
  _id: `o${String(i).padStart(3, '0')}`,
  total: i % 50,
  status: ['open', 'paid', 'void'][i % 3] as string,
  customer: { name: `c${i % 7}` },
}));

async function plan(sync: Sync, statement: string, args?: Record<string, unknown>): Promise<JsonObject> {
  return (await sync.store.execute(`EXPLAIN ${statement}`, args)).items[0] as JsonObject;
}

describe('CREATE INDEX, DROP INDEX and system:indexes', () => {
  it('creates an index, lists it in system:indexes, and keeps it across a reopen', async () => {
    const dir = tempDir();
    const sync = open(dir);
    await seed(sync, 'orders', ORDERS);
    const created = await sync.store.execute('CREATE INDEX by_total ON orders (total DESC, customer.name)');
    expect(created).toEqual({ items: [{ index: 'by_total', collection: 'orders', created: true }], mutatedDocumentIds: [], commitId: null });
    sync.close();
    const again = open(dir);
    expect((await again.store.execute('SELECT * FROM system:indexes')).items).toEqual([
      {
        _id: { collection: 'orders', name: 'by_total' },
        collection: 'orders',
        name: 'by_total',
        keys: [
          { path: 'total', direction: 'DESC' },
          { path: 'customer.name', direction: 'ASC' },
        ],
        statement: 'CREATE INDEX by_total ON orders (total DESC, customer.name ASC)',
      },
    ]);
    expect((await again.store.execute("SELECT name FROM system:indexes WHERE collection = 'orders'")).items).toEqual([{ name: 'by_total' }]);
  });

  it('refuses a second index of one name unless IF NOT EXISTS, and a DROP of none unless IF EXISTS', async () => {
    const sync = open();
    await sync.store.execute('CREATE INDEX by_total ON orders (total)');
    expect((await failureOf(sync.store.execute('CREATE INDEX by_total ON orders (status)'))).code).toBe('query/evaluation');
    expect((await sync.store.execute('CREATE INDEX IF NOT EXISTS by_total ON orders (status)')).items).toEqual([
      { index: 'by_total', collection: 'orders', created: false },
    ]);
    // The same name on another collection is another index.
    expect((await sync.store.execute('CREATE INDEX by_total ON invoices (total)')).items[0]).toMatchObject({ created: true });
    expect((await sync.store.execute('DROP INDEX by_total ON orders')).items).toEqual([{ index: 'by_total', collection: 'orders', dropped: true }]);
    expect((await failureOf(sync.store.execute('DROP INDEX by_total ON orders'))).code).toBe('query/evaluation');
    expect((await sync.store.execute('DROP INDEX IF EXISTS by_total ON orders')).items[0]).toMatchObject({ dropped: false });
    expect((await sync.store.execute('SELECT collection FROM system:indexes')).items).toEqual([{ collection: 'invoices' }]);
  });

  it('refuses what an index cannot be: on _id, a path twice, a system collection, inside a transaction, on the in-memory storage', async () => {
    const sync = open();
    expect((await failureOf(sync.store.execute('CREATE INDEX i ON orders (_id)'))).code).toBe('query/unsupported');
    expect((await failureOf(sync.store.execute('CREATE INDEX i ON orders (a, a DESC)'))).code).toBe('query/invalid');
    expect((await failureOf(sync.store.execute('CREATE INDEX i ON system:indexes (name)'))).code).toBe('query/unsupported');
    expect((await failureOf(sync.store.execute('CREATE INDEX i ON orders (`a"b`)'))).code).toBe('query/unsupported');
    expect((await failureOf(sync.store.execute('CREATE INDEX i ON orders ()'))).code).toBe('query/invalid');
    expect((await failureOf(sync.store.transaction((tx) => tx.execute('CREATE INDEX i ON orders (a)')))).code).toBe('query/invalid');
    const memory = new Sync({ inMemory: true, logHub: new LogHub() });
    peers.push(memory);
    const refused = await failureOf(memory.store.execute('CREATE INDEX i ON orders (a)'));
    expect(refused.code).toBe('query/unsupported');
    expect(refused.message).toContain('SQLite');
    expect((await memory.store.execute('SELECT * FROM system:indexes')).items).toEqual([]);
    expect((await sync.store.execute('SELECT * FROM system:indexes')).items).toEqual([]);
  });

  it('refuses writes, subscriptions and observers on system:indexes, and names the system collections it has', async () => {
    const sync = open();
    expect((await failureOf(sync.store.execute('INSERT INTO system:indexes DOCUMENTS ({ a: 1 })'))).code).toBe('query/unsupported');
    expect((await failureOf(sync.store.execute('DELETE FROM system:indexes'))).code).toBe('query/unsupported');
    expect((await failureOf(() => sync.store.registerSubscription('SELECT * FROM system:indexes'))).code).toBe('query/unsupported');
    expect((await failureOf(() => sync.store.registerObserver('SELECT * FROM system:indexes', () => {}))).code).toBe('query/unsupported');
    const unknown = await failureOf(sync.store.execute('SELECT * FROM system:tables'));
    expect(unknown.message).toContain('system:indexes');
    // `system :indexes`, with a space, is the collection system and a parameter.
    expect((await failureOf(sync.store.execute('SELECT * FROM system :indexes'))).code).toBe('query/invalid');
  });

  it('logs the build with the documents it covers, and the drop', async () => {
    const hub = new LogHub();
    const lines: string[] = [];
    hub.setCustomLogCallback((e) => lines.push(`[${e.level}] ${e.message}`));
    const sync = open(tempDir(), hub);
    await seed(sync, 'orders', ORDERS);
    await sync.store.execute('CREATE INDEX by_total ON orders (total)');
    await sync.store.execute('DROP INDEX by_total ON orders');
    const index = lines.filter((l) => l.includes('ndex'));
    expect(index[0]).toBe('[INFO] Building index; name = by_total; collection = orders; keys = total; documents = 200');
    expect(index[1]).toMatch(/^\[INFO\] Index built; name = by_total; collection = orders; documents = 200; elapsed = \d+\.\d{3}ms$/);
    expect(index[2]).toBe('[INFO] Index dropped; name = by_total; collection = orders');
  });

  it('takes no commit id: the next write commits the id after the last one', async () => {
    const sync = open();
    await seed(sync, 'orders', ORDERS);
    const last = (await sync.store.execute("UPDATE orders SET status = 'x' WHERE _id = 'o000'")).commitId;
    await sync.store.execute('CREATE INDEX by_total ON orders (total)');
    const next = (await sync.store.execute("UPDATE orders SET status = 'y' WHERE _id = 'o000'")).commitId;
    expect(next).toBe((last as number) + 1);
  });
});

describe('EXPLAIN', () => {
  it('names the index an equality, a range, an IN list, a LIKE prefix and COUNT use, and a scan without one', async () => {
    const sync = open();
    await seed(sync, 'orders', ORDERS);
    expect(await plan(sync, 'SELECT * FROM orders WHERE total = 5')).toMatchObject({ access: 'scan', index: null, estimatedRows: 4 });
    await sync.store.execute('CREATE INDEX by_total ON orders (total)');
    await sync.store.execute('CREATE INDEX by_status ON orders (status)');
    for (const [statement, index, rows] of [
      ['SELECT * FROM orders WHERE total = 5', 'by_total', 4],
      ['SELECT * FROM orders WHERE total >= 45 AND total < 48', 'by_total', 12],
      ['SELECT * FROM orders WHERE total BETWEEN 1 AND 2', 'by_total', 8],
      ["SELECT * FROM orders WHERE status IN ['open', 'void']", 'by_status', 133],
      ["SELECT * FROM orders WHERE status LIKE 'pa%'", 'by_status', 67],
      ['SELECT COUNT(*) FROM orders WHERE total > 47', 'by_total', 1],
      ["UPDATE orders SET x = 1 WHERE status = 'void'", 'by_status', 66],
      ['DELETE FROM orders WHERE total = 1', 'by_total', 4],
      ['EVICT FROM orders WHERE total < 2', 'by_total', 8],
    ] as const) {
      expect(await plan(sync, statement), statement).toMatchObject({ access: 'index', index, estimatedRows: rows });
    }
    const find = await plan(sync, 'SELECT * FROM orders WHERE total = :t', { t: 5 });
    expect(Object.keys(find)).toEqual(['statement', 'collection', 'operation', 'access', 'index', 'sorted', 'sql', 'details', 'estimatedRows']);
    expect(find).toMatchObject({ statement: 'SELECT', collection: 'orders', operation: 'find' });
    expect(find.sql).toContain('FROM documents');
    expect((find.details as string[]).some((d) => d.includes('USING INDEX'))).toBe(true);
  });

  it('reads ORDER BY an indexed path from the index, without a sort', async () => {
    const sync = open();
    await seed(sync, 'orders', ORDERS);
    expect(await plan(sync, 'SELECT * FROM orders ORDER BY total LIMIT 5')).toMatchObject({ access: 'scan', sorted: true });
    await sync.store.execute('CREATE INDEX by_total ON orders (total)');
    expect(await plan(sync, 'SELECT * FROM orders ORDER BY total LIMIT 5')).toMatchObject({
      access: 'index',
      index: 'by_total',
      sorted: false,
      estimatedRows: 5,
    });
    await sync.store.execute('CREATE INDEX by_total_desc ON orders (total DESC)');
    expect(await plan(sync, 'SELECT * FROM orders ORDER BY total DESC LIMIT 5')).toMatchObject({ access: 'index', sorted: false });
    expect((await sync.store.execute('SELECT _id FROM orders ORDER BY total DESC LIMIT 3')).items).toEqual([{ _id: 'o049' }, { _id: 'o099' }, { _id: 'o149' }]);
  });

  it('explains an _id lookup, an INSERT and a condition SQL cannot hold, and runs none of them', async () => {
    const sync = open();
    await seed(sync, 'orders', ORDERS);
    expect(await plan(sync, "SELECT * FROM orders WHERE _id = 'o001'")).toMatchObject({ access: 'id', estimatedRows: 1 });
    expect(await plan(sync, "INSERT INTO orders DOCUMENTS ({ _id: 'new' })")).toMatchObject({ operation: 'insert', access: 'id', estimatedRows: null });
    expect(await plan(sync, 'EVICT FROM orders')).toMatchObject({ operation: 'evict', estimatedRows: 200 });
    expect((await sync.store.execute('SELECT COUNT(*) AS n FROM orders')).items).toEqual([{ n: 200 }]);
    expect(await plan(sync, 'SELECT COUNT(*) AS n FROM orders')).toMatchObject({ operation: 'count', access: 'count', index: null, estimatedRows: 1 });
    expect((await failureOf(sync.store.execute('EXPLAIN SELECT * FROM orders WHERE total = :t'))).code).toBe('query/invalid');
    expect((await failureOf(sync.store.execute('EXPLAIN CREATE INDEX i ON orders (a)'))).code).toBe('query/invalid');
  });

  it('explains on the in-memory storage as a JavaScript scan', async () => {
    const memory = new Sync({ inMemory: true, logHub: new LogHub() });
    peers.push(memory);
    await seed(memory, 'orders', ORDERS);
    expect(await plan(memory, 'SELECT * FROM orders WHERE total = 5')).toMatchObject({ access: 'scan', sql: null, estimatedRows: 4 });
  });
});

describe('a subscription over an indexed path', () => {
  it('is read through the index when the replicator looks for its documents', () => {
    const storage = SqliteStorage.open(tempDir());
    try {
      const sync = new Sync({ inMemory: true, logHub: new LogHub() });
      peers.push(sync);
      sync.store.registerSubscription("SELECT * FROM orders WHERE status = 'open' AND total > 40");
      const compiled = compileSubscriptions(sync.store.subscriptionSet()).byCollection.get('orders') ?? [];
      expect(compiled).toHaveLength(1);
      const query = windowQuery(compiled[0]!);
      storage.write((w) => {
        for (const doc of ORDERS) w.put('orders', { id: doc._id as string, value: doc, meta: { v: 1 } as never, txnId: 1 });
      });
      expect(storage.read((r) => r.explain!(query, 'find'))).toMatchObject({ access: 'scan' });
      storage.write((w) => w.createIndex!({ collection: 'orders', name: 'by_status', keys: [{ path: ['status'], direction: 'ASC' }] }));
      expect(storage.read((r) => r.explain!(query, 'find'))).toMatchObject({ access: 'index', index: 'by_status' });
      expect(storage.read((r) => r.findValues(query)).length).toBe(ORDERS.filter((o) => o.status === 'open' && (o.total as number) > 40).length);
    } finally {
      storage.close();
    }
  });
});

// Random documents with a field `v` of every type (large integers, neighbouring doubles, text
// beyond the BMP) and random conditions over it: an indexed SQLite peer and the in-memory twin
// (the reference evaluator) must find the same documents in the same order.
describe('the same answers with and without an index', () => {
  const BIG = 2 ** 60;
  const POOL: (JsonValue | undefined)[] = [
    undefined,
    null,
    true,
    false,
    0,
    -0.5,
    1,
    2,
    7.25,
    -3,
    BIG,
    BIG + 256,
    2 ** 53,
    2 ** 53 + 2,
    -BIG,
    '',
    'a',
    'ab',
    'abc',
    'b',
    'B',
    '5',
    '𝄞x',
    '\u00e9',
    'a%b',
    [],
    [1],
    ['a', 2],
    {},
    { k: 1 },
  ];
  const LITERALS = [
    'null',
    'true',
    'false',
    '0',
    '1',
    '2',
    '-0.5',
    '7.25',
    String(BIG),
    '9007199254740992',
    "''",
    "'a'",
    "'ab'",
    "'b'",
    "'5'",
    '[1]',
    '{k: 1}',
  ];
  const OPS = ['=', '!=', '<', '<=', '>', '>='];

  function condition(random: () => number, depth = 0): string {
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const r = random();
    if (depth < 2 && r < 0.15) return `(${condition(random, depth + 1)} AND ${condition(random, depth + 1)})`;
    if (depth < 2 && r < 0.22) return `(${condition(random, depth + 1)} OR ${condition(random, depth + 1)})`;
    if (depth < 2 && r < 0.27) return `NOT (${condition(random, depth + 1)})`;
    if (r < 0.55) return random() < 0.5 ? `v ${pick(OPS)} ${pick(LITERALS)}` : `${pick(LITERALS)} ${pick(OPS)} v`;
    if (r < 0.65) return `v BETWEEN ${pick(LITERALS)} AND ${pick(LITERALS)}`;
    if (r < 0.75) return `v IN [${[pick(LITERALS), pick(LITERALS), pick(LITERALS)].join(', ')}]`;
    if (r < 0.85) return `v LIKE ${pick(["'a%'", "'ab%'", "'%b'", "'a_c'", "'a'", "'𝄞%'", "'%'", "''"])}`;
    if (r < 0.9) return pick(['v IS NULL', 'v IS MISSING', 'v IS NOT NULL']);
    if (r < 0.95) return 'v';
    return `w ${pick(OPS)} ${pick(LITERALS)} AND v ${pick(OPS)} ${pick(LITERALS)}`;
  }

  for (let seedNumber = 1; seedNumber <= 12; seedNumber++) {
    it(`finds the same documents in the same order, seed ${seedNumber}`, async () => {
      const random = seededRandom(seedNumber * 7919);
      const docs: JsonObject[] = Array.from({ length: 120 }, (_, i) => {
        const doc: JsonObject = { _id: `d${i}` };
        const v = POOL[Math.floor(random() * POOL.length)];
        const w = POOL[Math.floor(random() * POOL.length)];
        if (v !== undefined) doc.v = v;
        if (w !== undefined) doc.w = w;
        return doc;
      });
      const indexed = open();
      const memory = new Sync({ inMemory: true, logHub: new LogHub() });
      peers.push(memory);
      await seed(indexed, 'c', docs);
      await seed(memory, 'c', docs);
      await indexed.store.execute('CREATE INDEX by_v ON c (v)');
      await indexed.store.execute('CREATE INDEX by_v_desc ON c (v DESC, w)');
      await indexed.store.execute('CREATE INDEX by_w ON c (w)');
      for (let q = 0; q < 40; q++) {
        const order = ['', ' ORDER BY v', ' ORDER BY v DESC', ' ORDER BY v DESC, w', ' ORDER BY w, v'][Math.floor(random() * 5)] as string;
        const limit = random() < 0.3 ? ` LIMIT ${1 + Math.floor(random() * 20)}` : '';
        const statement = `SELECT _id FROM c WHERE ${condition(random)}${order}${limit}`;
        const expected = (await memory.store.execute(statement)).items;
        expect((await indexed.store.execute(statement)).items, statement).toEqual(expected);
        const count = statement.replace('SELECT _id', 'SELECT COUNT(*) AS n').replace(/ ORDER BY.*$/, '');
        expect((await indexed.store.execute(count)).items, count).toEqual((await memory.store.execute(count)).items);
      }
    });
  }

  it('indexes every path a statement uses on the suites’ indexed peer', () => {
    expect(indexesFor('SELECT * FROM orders WHERE a.b = 1 AND c > 2 ORDER BY d DESC, a.b')).toEqual([
      'CREATE INDEX IF NOT EXISTS `by a.b` ON orders (a.b)',
      'CREATE INDEX IF NOT EXISTS `by c` ON orders (c)',
      'CREATE INDEX IF NOT EXISTS `by d` ON orders (d)',
      'CREATE INDEX IF NOT EXISTS `order d DESC, a.b ASC` ON orders (d DESC, a.b ASC)',
    ]);
    expect(indexesFor("SELECT * FROM orders WHERE _id = 'x'")).toEqual([]);
  });
});
