/**
 * `POST /api/v4/store/write` over real HTTP: the TTL job's update, upserts with counters,
 * removes, one atomic transaction for all commands, and errors that name the command.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectionPermissions } from './permission-rules.ts';
import { call, post, startTestPeer, TEST_KEY, type TestPeer } from '../testing/big-peer/test-helpers.ts';
import { MAX_DOCUMENTS_PER_REQUEST } from './write-commands.ts';

const WRITE = '/api/v4/store/write';

describe('store/write', () => {
  let t: TestPeer;
  beforeEach(async () => {
    t = await startTestPeer();
    await t.peer.sync.store.execute('INSERT INTO orders DOCUMENTS (:docs)', {
      docs: [
        { _id: 'old', createdAt: '2026-11-01T00:00:00.000Z', evictionFlag: false, visits: 3 },
        { _id: 'flagged', createdAt: '2026-11-02T00:00:00.000Z', evictionFlag: true, visits: 1 },
        { _id: 'new', createdAt: '2026-11-20T00:00:00.000Z', evictionFlag: false, visits: 7 },
      ],
    });
  });
  afterEach(() => t.close());

  const write = (body: unknown, headers?: Record<string, string>) => post(`${t.url}${WRITE}`, body, headers);
  const all = async (collection: string) => (await t.peer.sync.store.execute(`SELECT * FROM ${collection}`)).items;

  it('flags expired, unflagged documents as the TTL job asks, in one transaction', async () => {
    const res = await write({
      args: { TTL: '2026-11-18T00:00:00.000Z' },
      commands: [
        {
          method: 'update',
          collection: 'orders',
          query: 'createdAt <= $args.TTL && evictionFlag == false',
          commands: [
            { method: 'set', path: 'evictionFlag', value: true },
            { method: 'increment', path: 'visits', amount: 1 },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    const txn = t.peer.sync.store.lastTxnId;
    expect(res.json).toEqual({ results: [{ method: 'update', transactionId: txn, updated: 1 }] });
    expect(await all('orders')).toEqual([
      { _id: 'flagged', createdAt: '2026-11-02T00:00:00.000Z', evictionFlag: true, visits: 1 },
      { _id: 'new', createdAt: '2026-11-20T00:00:00.000Z', evictionFlag: false, visits: 7 },
      // The increment made visits a counter, from 0.
      { _id: 'old', createdAt: '2026-11-01T00:00:00.000Z', evictionFlag: true, visits: 1 },
    ]);
  });

  it('flags only string createdAt at or before a string TTL, never a number, boolean, null, missing, array or object', async () => {
    await t.peer.sync.store.execute('INSERT INTO typed DOCUMENTS (:docs)', {
      docs: [
        { _id: 'old', createdAt: '2026-11-01T00:00:00.000Z', evictionFlag: false },
        { _id: 'new', createdAt: '2026-11-20T00:00:00.000Z', evictionFlag: false },
        { _id: 'number', createdAt: 1700000000000, evictionFlag: false },
        { _id: 'true', createdAt: true, evictionFlag: false },
        { _id: 'null', createdAt: null, evictionFlag: false },
        { _id: 'missing', evictionFlag: false },
        { _id: 'array', createdAt: ['2026-11-01T00:00:00.000Z'], evictionFlag: false },
        { _id: 'object', createdAt: { at: '2026-11-01T00:00:00.000Z' }, evictionFlag: false },
      ],
    });
    const flag = (query: string) =>
      write({
        args: { TTL: '2026-11-18T00:00:00.000Z' },
        commands: [{ method: 'update', collection: 'typed', query, commands: [{ method: 'set', path: 'evictionFlag', value: true }] }],
      });
    const flagged = async () => (await t.peer.sync.store.execute('SELECT _id FROM typed WHERE evictionFlag = true')).items.map((d) => d._id);
    expect((await flag('createdAt <= $args.TTL && evictionFlag == false')).json.results[0].updated).toBe(1);
    expect(await flagged()).toEqual(['old']);
    // Negated, a range of different types stays unknown: `!(createdAt > TTL)` flags no other type either.
    expect((await flag('!(createdAt > $args.TTL)')).json.results[0].updated).toBe(1);
    expect(await flagged()).toEqual(['old']);
  });

  it('applies every sub-command to the documents the query matched before the first one ran', async () => {
    const res = await write({
      commands: [
        {
          method: 'update',
          collection: 'orders',
          query: 'evictionFlag == false',
          commands: [
            { method: 'set', path: 'evictionFlag', value: true },
            { method: 'set', path: 'meta.note', value: 'seen' },
          ],
        },
      ],
    });
    expect(res.json.results[0].updated).toBe(2);
    expect((await all('orders')).filter((d) => (d.meta as { note?: string } | undefined)?.note === 'seen').map((d) => d._id)).toEqual(['new', 'old']);
  });

  it('turns a number into a counter holding it, and leaves a counter as it is', async () => {
    const replace = {
      method: 'update',
      collection: 'orders',
      query: "_id == 'old' || _id == 'new'",
      commands: [{ method: 'replaceWithCounter', path: 'visits' }],
    };
    expect((await write({ commands: [replace] })).status).toBe(200);
    expect((await write({ commands: [replace] })).status).toBe(200);
    await write({
      commands: [{ method: 'update', collection: 'orders', query: "_id == 'old'", commands: [{ method: 'increment', path: 'visits', amount: 2 }] }],
    });
    const visits = Object.fromEntries((await all('orders')).map((d) => [d._id, d.visits]));
    expect(visits).toEqual({ old: 5, new: 7, flagged: 1 });
  });

  it('upserts a document, with a counter where valueTypeOverrides says so, and removes by query', async () => {
    const res = await write({
      commands: [
        { method: 'upsert', collection: 'people', id: '123', value: { name: 'Ann', orderCount: 4 }, valueTypeOverrides: { orderCount: 'counter' } },
        { method: 'remove', collection: 'orders', query: 'evictionFlag == true' },
      ],
    });
    expect(res.status).toBe(200);
    const txn = t.peer.sync.store.lastTxnId;
    expect(res.json.results).toEqual([
      { method: 'upsert', transactionId: txn, upserted: 1 },
      { method: 'remove', transactionId: txn, removed: 1 },
    ]);
    expect(await all('people')).toEqual([{ _id: '123', name: 'Ann', orderCount: 4 }]);
    await write({
      commands: [{ method: 'update', collection: 'people', query: "_id == '123'", commands: [{ method: 'increment', path: 'orderCount', amount: 1 }] }],
    });
    await write({ commands: [{ method: 'upsert', collection: 'people', id: '123', value: { city: 'Oslo' } }] });
    expect(await all('people')).toEqual([{ _id: '123', name: 'Ann', orderCount: 5, city: 'Oslo' }]);
    expect((await all('orders')).map((d) => d._id)).toEqual(['new', 'old']);
  });

  it('writes nothing at all when one command fails while running', async () => {
    const before = t.peer.sync.store.lastTxnId;
    const res = await write({
      commands: [
        { method: 'upsert', collection: 'people', id: 'p1', value: { name: 'kept?' } },
        { method: 'update', collection: 'orders', query: 'evictionFlag == false', commands: [{ method: 'set', path: 'evictionFlag', value: true }] },
        { method: 'update', collection: 'orders', query: "_id == 'old'", commands: [{ method: 'set', path: '_id', value: 'renamed' }] },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('query/evaluation');
    expect(res.json.error.message).toMatch(/^commands\[2\] \(update orders\): .*; nothing was written$/);
    expect(await all('people')).toEqual([]);
    expect((await all('orders')).filter((d) => d.evictionFlag === true).map((d) => d._id)).toEqual(['flagged']);
    expect(t.peer.sync.store.lastTxnId).toBe(before);
  });

  it('turns a number into a counter over a large matched set, with one UPDATE per distinct number, not per document', async () => {
    const docs = Array.from({ length: 3000 }, (_, i) => ({ _id: `s${i}`, n: i, stock: i % 3 }));
    await t.peer.sync.store.execute('INSERT INTO stock DOCUMENTS (:docs)', { docs });
    const res = await write({
      commands: [{ method: 'update', collection: 'stock', query: 'n >= 0', commands: [{ method: 'replaceWithCounter', path: 'stock' }] }],
    });
    expect(res.status).toBe(200);
    expect(res.json.results[0].updated).toBe(3000);
    await write({
      commands: [
        {
          method: 'update',
          collection: 'stock',
          query: 'n < 3',
          commands: [
            { method: 'increment', path: 'stock', amount: 10 },
            { method: 'replaceWithCounter', path: 'stock' },
          ],
        },
      ],
    });
    const rows = (await t.peer.sync.store.execute('SELECT _id, stock FROM stock WHERE n < 6 ORDER BY n')).items;
    expect(rows.map((r) => r.stock)).toEqual([10, 11, 12, 0, 1, 2]);
  });

  it(`refuses with 413 a request that would touch more than ${MAX_DOCUMENTS_PER_REQUEST} documents, and writes nothing`, async () => {
    const docs = Array.from({ length: 101 }, (_, i) => ({ _id: `b${i}`, n: i }));
    await t.peer.sync.store.execute('INSERT INTO bulk DOCUMENTS (:docs)', { docs });
    const before = t.peer.sync.store.lastTxnId;
    const commands = Array.from({ length: Math.ceil(MAX_DOCUMENTS_PER_REQUEST / 101) + 1 }, (_, k) => ({
      method: 'update',
      collection: 'bulk',
      query: 'n >= 0',
      commands: [{ method: 'set', path: 'v', value: k }],
    }));
    const res = await write({ commands });
    expect(res.status).toBe(413);
    expect(res.json.error.message).toMatch(/at most 100000 documents.*nothing was written$/);
    expect(t.peer.sync.store.lastTxnId).toBe(before);
    expect((await all('bulk')).some((d) => 'v' in d)).toBe(false);
  });

  it('answers other requests while a long store/write runs, which still commits as one transaction', async () => {
    const docs = Array.from({ length: 2000 }, (_, i) => ({ _id: `d${i}`, n: i }));
    await t.peer.sync.store.execute('INSERT INTO big DOCUMENTS (:docs)', { docs });
    const commands = Array.from({ length: 45 }, (_, k) => ({
      method: 'update',
      collection: 'big',
      query: 'n >= 0',
      commands: [{ method: 'set', path: 'v', value: k }],
    }));
    let bigDone = false;
    const big = call(`${t.url}${WRITE}`, {
      method: 'POST',
      timeoutMs: 120_000,
      headers: { Authorization: `Bearer ${TEST_KEY}`, 'Content-Type': 'application/json' },
      body: { commands },
    }).then((r) => {
      bigDone = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    await call(`${t.url}/_sync/auth/login`, { timeoutMs: 120_000 });
    const pingMs = performance.now() - started;
    const pingBeforeBig = !bigDone;
    const res = await big;
    expect(res.status).toBe(200);
    expect(pingBeforeBig).toBe(true);
    expect(pingMs).toBeLessThan(1000);
    expect((await all('big')).every((d) => d.v === 44)).toBe(true);
  }, 60_000);

  it('binds $args values, so quotes in them match only themselves', async () => {
    await t.peer.sync.store.execute("INSERT INTO notes DOCUMENTS ({_id: 'n1', owner: 'x'' OR true OR owner = ''y'}), ({_id: 'n2', owner: 'bob'})");
    const res = await write({
      args: { owner: "x' OR true OR owner = 'y" },
      commands: [{ method: 'remove', collection: 'notes', query: 'owner == $args.owner' }],
    });
    expect(res.json.results[0].removed).toBe(1);
    expect((await all('notes')).map((d) => d._id)).toEqual(['n2']);
    const sneaky = await write({ args: { x: 1 }, commands: [{ method: 'remove', collection: 'notes', query: "owner == 'bob') OR (true" }] });
    expect(sneaky.status).toBe(400);
    expect((await all('notes')).map((d) => d._id)).toEqual(['n2']);
  });

  it('answers malformed commands with 400 naming the command and the position', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /"commands" must be a non-empty list/],
      [{ commands: [{ method: 'drop', collection: 'orders' }] }, /^commands\[0\]: "method" must be update, upsert or remove, not "drop"$/],
      [
        { commands: [{ method: 'remove', collection: 'orders', query: 'a == ' }] },
        /^commands\[0\]\.query: Syntax error in query at line 1 column 6: expected a path/,
      ],
      [
        { commands: [{ method: 'remove', collection: 'orders', query: 'a == $args.TTL' }] },
        /^commands\[0\]\.query: \$args\.TTL at line 1 column 6 has no value in args$/,
      ],
      [
        { commands: [{ method: 'update', collection: 'orders', query: 'true', commands: [{ method: 'increment', path: 'n', amount: 'one' }] }] },
        /^commands\[0\]\.commands\[0\]: an increment needs "amount", a number$/,
      ],
      [
        { commands: [{ method: 'upsert', collection: 'people', id: 'p', value: { n: 'x' }, valueTypeOverrides: { n: 'counter' } }] },
        /valueTypeOverrides\.n: a counter needs a number/,
      ],
      [
        { commands: [{ method: 'update', collection: 'orders', query: 'true', commands: [{ method: 'set', path: 'a..b', value: 1 }] }] },
        /^commands\[0\]\.commands\[0\]\.path: Syntax error/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await write(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.message).toMatch(message);
    }
  });

  it('answers 403 when the key may not write a collection named, and writes nothing', async () => {
    const { key } = await t.peer.apiKeys.create('orders', collectionPermissions(['orders'], false), Date.now());
    const res = await write(
      {
        commands: [
          { method: 'remove', collection: 'orders', query: 'true' },
          { method: 'upsert', collection: 'people', id: 'p', value: {} },
        ],
      },
      { Authorization: `Bearer ${key}` },
    );
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('http/forbidden');
    expect(await all('orders')).toHaveLength(3);
    const reader = await t.peer.apiKeys.create('reader', collectionPermissions(undefined, true), Date.now());
    expect((await write({ commands: [{ method: 'remove', collection: 'orders', query: 'true' }] }, { Authorization: `Bearer ${reader.key}` })).status).toBe(
      403,
    );
  });

  it('answers 401 without a valid key', async () => {
    const res = await write({ commands: [{ method: 'remove', collection: 'orders', query: 'true' }] }, { Authorization: 'Bearer nope' });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: { code: 'http/unauthorized', message: 'the API key is not valid' } });
  });
});
