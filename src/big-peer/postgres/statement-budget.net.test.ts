/**
 * The time budget of store/execute statements on a Big Peer node on PostgreSQL (issue 18, part
 * 1.2): the store's reads run on the event loop there (no query thread can share its
 * connections), and the condition is evaluated in JavaScript over the collection's documents,
 * the budget checked between rows. Past it: 408 `query/timeout`, and a mutation commits nothing.
 * Needs a PostgreSQL server: without one these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LogHub } from '../../peer/host.ts';
import { BigPeer } from '../big-peer.ts';
import { bigPeerConfig } from '../config.ts';
import { post, TEST_APP, TEST_KEY } from '../../testing/big-peer/test-helpers.ts';
import { openPgSync } from './open-node.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';

const EXECUTE = '/api/v4/store/execute';
/** About 15 ms a document in JavaScript: 2 s over the 150 documents. */
const COSTLY = Array.from({ length: 150 }, (_, i) => `array_contains(items, {k: ${i}, v: 'none'})`).join(' OR ');
const docs = Array.from({ length: 150 }, (_, i) => ({ _id: `d${i}`, n: i, items: Array.from({ length: 200 }, (_, j) => ({ k: j, v: `v${i}-${j}` })) }));

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('budget');
});
afterAll(async () => {
  await database?.drop();
});

describe('the time budget of a statement on PostgreSQL', () => {
  let peer: BigPeer | undefined;
  afterEach(async () => {
    await peer?.close();
    peer?.sync.close();
    peer = undefined;
  });

  async function start(): Promise<BigPeer> {
    if (database === undefined) throw new Error('no test database');
    const hub = new LogHub({ minimumLogLevel: 'ERROR' });
    const sync = openPgSync({ url: database.url, schema: `sb_${randomBytes(6).toString('hex')}`, pollIntervalMs: 1_000 }, 'node-budget', hub);
    peer = await BigPeer.start(bigPeerConfig({ appID: TEST_APP, apiKeys: [TEST_KEY], statementTimeoutMs: 200 }), { sync, logHub: hub });
    await sync.store.execute('INSERT INTO docs DOCUMENTS (:docs)', { docs });
    return peer;
  }

  it('answers 408 query/timeout to a SELECT past its budget, and a DELETE past it commits nothing', async () => {
    const big = await start();
    const started = performance.now();
    const select = await post(`${big.url}${EXECUTE}`, { statement: `SELECT _id FROM docs WHERE ${COSTLY}` });
    expect(select.status).toBe(408);
    expect(select.json).toMatchObject({
      queryType: 'select',
      error: { code: 'query/timeout', description: 'the statement ran longer than its budget of 200 ms and was stopped' },
    });
    expect(performance.now() - started).toBeLessThan(1_500);

    const before = big.sync.store.lastTxnId;
    const remove = await post(`${big.url}${EXECUTE}`, { statement: `DELETE FROM docs WHERE ${COSTLY} OR n >= 0` });
    expect(remove.status).toBe(408);
    expect(remove.json.error.code).toBe('query/timeout');
    expect(big.sync.store.lastTxnId).toBe(before);
    expect((await big.sync.store.execute('SELECT COUNT(*) AS n FROM docs')).items).toEqual([{ n: 150 }]);
  }, 60_000);
});
