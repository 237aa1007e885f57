/**
 * `POST /api/v4/store/execute` and `/store/execute` over real HTTP: the ExecuteResponse shape on
 * success and on every error, API keys (missing, wrong, revoked, read-only, per collection) and
 * `X-SYNC-TXN-ID`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { collectionPermissions } from './permission-rules.ts';
import { call, post, startTestPeer, type TestPeer } from '../testing/big-peer/test-helpers.ts';

const EXECUTE = '/api/v4/store/execute';

describe('store/execute', () => {
  let t: TestPeer;
  beforeEach(async () => {
    t = await startTestPeer({ txnWaitTimeoutMs: 300 });
  });
  afterEach(() => t.close());

  const execute = (statement: unknown, args?: unknown, headers?: Record<string, string>) =>
    post(`${t.url}${EXECUTE}`, args === undefined ? { statement } : { statement, args }, headers);

  it('answers a mutation with its transaction id and the documents it changed', async () => {
    const res = await execute('INSERT INTO orders DOCUMENTS (:docs)', {
      docs: [
        { _id: 'o1', total: 5 },
        { _id: 'o2', total: 9 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      transactionId: t.peer.sync.store.lastTxnId,
      queryType: 'mutation',
      items: [],
      mutatedDocumentIds: ['o1', 'o2'],
      error: {},
      warnings: [],
      totalWarningsCount: 0,
    });
  });

  it('answers a SELECT with its items, also at /store/execute', async () => {
    await execute("INSERT INTO orders DOCUMENTS ({_id: 'o1', createdAt: '2026-11-01T00:00:00.000Z', evictionFlag: false})");
    const res = await post(`${t.url}/store/execute`, {
      statement: 'SELECT * FROM orders WHERE createdAt <= :TTL AND evictionFlag = false',
      args: { TTL: '2026-11-18T00:00:00.000Z' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      transactionId: null,
      queryType: 'select',
      items: [{ _id: 'o1', createdAt: '2026-11-01T00:00:00.000Z', evictionFlag: false }],
      mutatedDocumentIds: [],
      error: {},
      warnings: [],
      totalWarningsCount: 0,
    });
  });

  it('lists the peer’s indexes from system:indexes, and answers CREATE INDEX with 400: indexes are made by the peer itself', async () => {
    await t.close();
    const dataDir = mkdtempSync(join(tmpdir(), 'execute-indexes-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    t = await startTestPeer({ dataDir });
    await t.peer.sync.store.execute('CREATE INDEX by_total ON orders (total)');
    const listed = await execute('SELECT name, collection FROM system:indexes');
    expect(listed.status).toBe(200);
    expect((listed.json as { items: unknown[] }).items).toEqual([{ name: 'by_total', collection: 'orders' }]);
    const refused = await execute('CREATE INDEX by_status ON orders (status)');
    expect(refused.status).toBe(400);
    expect((refused.json as { error: { code: string } }).error.code).toBe('query/invalid');
    expect((await t.peer.sync.store.execute('SELECT name FROM system:indexes')).items).toEqual([{ name: 'by_total' }]);
  });

  it('answers a malformed statement with 400, queryType unknown and the parse error', async () => {
    const res = await execute('SELECT * WHERE x = 1');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      transactionId: null,
      queryType: 'unknown',
      items: [],
      mutatedDocumentIds: [],
      error: { description: 'Syntax error at line 1 column 10: expected FROM, found WHERE', code: 'query/invalid' },
      warnings: [],
      totalWarningsCount: 0,
    });
  });

  it('answers a statement that fails while running with 400 and its queryType', async () => {
    await execute("INSERT INTO orders DOCUMENTS ({_id: 'o1'})");
    const res = await execute("INSERT INTO orders DOCUMENTS ({_id: 'o1'})");
    expect(res.status).toBe(400);
    expect(res.json.queryType).toBe('mutation');
    expect(res.json.error.code).toBe('query/evaluation');
    expect(res.json.transactionId).toBeNull();
  });

  it('answers bad arguments and a missing statement with 400', async () => {
    expect((await execute('SELECT * FROM t WHERE a = :a', { b: 1 })).json.error.code).toBe('query/invalid');
    expect((await execute('SELECT * FROM t', [1])).json.error.code).toBe('query/arguments-invalid');
    const missing = await post(`${t.url}${EXECUTE}`, { args: {} });
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({ queryType: 'unknown', error: { code: 'query/invalid', description: '"statement" must be a string of DQL' } });
  });

  it('refuses writing an internal collection with 400', async () => {
    const res = await execute("INSERT INTO __presence DOCUMENTS ({_id: 'x'})");
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('query/unsupported');
  });

  it('answers a missing, malformed or wrong API key with 401 in the execute shape', async () => {
    for (const headers of [{ Authorization: '' }, { Authorization: 'Basic abc' }, { Authorization: 'Bearer smk_wrong' }]) {
      const res = await call(`${t.url}${EXECUTE}`, { method: 'POST', body: { statement: 'SELECT * FROM t' }, headers });
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ queryType: 'unknown', items: [], error: { code: 'http/unauthorized' } });
    }
  });

  it('answers a revoked key with 401 from the moment it is revoked', async () => {
    const { key, info } = await t.peer.apiKeys.create('job', collectionPermissions(undefined, false), Date.now());
    expect((await execute('SELECT * FROM t', undefined, { Authorization: `Bearer ${key}` })).status).toBe(200);
    await t.peer.apiKeys.revoke(info.id, Date.now());
    const res = await execute('SELECT * FROM t', undefined, { Authorization: `Bearer ${key}` });
    expect(res.status).toBe(401);
    expect(res.json.error.description).toBe(`the API key ${info.id} was revoked`);
  });

  it('lets a read-only key read but answers its mutations with 403', async () => {
    const { key, info } = await t.peer.apiKeys.create('reader', collectionPermissions(undefined, true), Date.now());
    const auth = { Authorization: `Bearer ${key}` };
    expect((await execute('SELECT * FROM orders', undefined, auth)).status).toBe(200);
    const res = await execute("INSERT INTO orders DOCUMENTS ({_id: 'o1'})", undefined, auth);
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      queryType: 'mutation',
      error: { code: 'http/forbidden', description: `the API key ${info.id} may not write collection orders` },
    });
    expect((await execute('SELECT * FROM orders')).json.items).toEqual([]);
  });

  it('keeps a key of some collections to those collections', async () => {
    const { key } = await t.peer.apiKeys.create('orders only', collectionPermissions(['orders'], false), Date.now());
    const auth = { Authorization: `Bearer ${key}` };
    expect((await execute("INSERT INTO orders DOCUMENTS ({_id: 'o1'})", undefined, auth)).status).toBe(200);
    expect((await execute('SELECT * FROM people', undefined, auth)).status).toBe(403);
    expect((await execute('EVICT FROM people', undefined, auth)).status).toBe(403);
  });

  it('waits for the transaction named by X-SYNC-TXN-ID before reading', async () => {
    const next = t.peer.sync.store.lastTxnId + 1;
    const read = execute('SELECT * FROM orders', undefined, { 'X-SYNC-TXN-ID': String(next) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await t.peer.sync.store.execute("INSERT INTO orders DOCUMENTS ({_id: 'late'})");
    const res = await read;
    expect(res.status).toBe(200);
    expect(res.json.items).toEqual([{ _id: 'late' }]);
  });

  it('answers 404 when the named transaction is not committed in time, and 400 for a bad id', async () => {
    const far = t.peer.sync.store.lastTxnId + 100;
    const res = await execute('SELECT * FROM orders', undefined, { 'X-SYNC-TXN-ID': String(far) });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('http/not-found');
    expect(res.json.error.description).toMatch(new RegExp(`^transaction ${far} was not committed within 300 ms`));
    expect((await execute('SELECT * FROM orders', undefined, { 'X-SYNC-TXN-ID': 'soon' })).status).toBe(400);
  });
});
