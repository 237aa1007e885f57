/**
 * A Big Peer node on PostgreSQL runs DQL in the database on every path that selects documents by
 * a condition: HTTP store/execute (SELECT, UPDATE, EVICT), EXPLAIN, the older store/write syntax
 * (the TTL job's call), and CREATE INDEX makes an index every node sees. No query here has a
 * part without a SQL form, so the node logs no `postgres.query-in-javascript` line.
 * Needs a PostgreSQL server: without one these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogHub } from '../../peer/host.ts';
import { BigPeer } from '../big-peer.ts';
import { bigPeerConfig } from '../config.ts';
import { post, TEST_APP, TEST_KEY } from '../../testing/big-peer/test-helpers.ts';
import { openPgSync } from './open-node.ts';
import { PgStorage } from './pg-storage.ts';
import { Sync } from '../../peer/host.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';

const EXECUTE = '/api/v4/store/execute';
const WRITE = '/api/v4/store/write';

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('dql');
});
afterAll(async () => {
  await database?.drop();
});

describe('DQL on a Big Peer node on PostgreSQL', () => {
  it('answers HTTP statements, the older store/write syntax and EXPLAIN from SQL, through an index every node sees', async () => {
    if (database === undefined) throw new Error('no test database');
    const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
    const logs = hub.subscribe();
    const schema = `dq_${randomBytes(6).toString('hex')}`;
    const sync = openPgSync({ url: database.url, schema, pollIntervalMs: 1_000 }, 'node-a', hub);
    const other = openPgSync({ url: database.url, schema, pollIntervalMs: 1_000 }, 'node-b', new LogHub({ minimumLogLevel: 'ERROR' }));
    const peer = await BigPeer.start(bigPeerConfig({ appID: TEST_APP, apiKeys: [TEST_KEY] }), { sync, logHub: hub });
    try {
      const docs = Array.from({ length: 200 }, (_, i) => ({
        _id: `d${i}`,
        n: i % 50,
        tag: i % 2 === 0 ? 'even' : 'odd',
        createdAt: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
      }));
      await sync.store.execute('INSERT INTO items DOCUMENTS (:docs)', { docs });
      await sync.store.execute('CREATE INDEX by_n ON items (n)');
      expect((await other.store.execute('SELECT name FROM system:indexes')).items).toEqual([{ name: 'by_n' }]);

      const select = await post(`${peer.url}${EXECUTE}`, { statement: "SELECT _id FROM items WHERE n >= 48 AND tag = 'even' ORDER BY n DESC, _id LIMIT 3" });
      expect(select.status).toBe(200);
      expect(select.json.items).toEqual([{ _id: 'd148' }, { _id: 'd198' }, { _id: 'd48' }]);

      // EXPLAIN is a command: the application's store runs it, not HTTP.
      const explain = await sync.store.execute('EXPLAIN SELECT * FROM items WHERE n = 7');
      expect(explain.items[0]).toMatchObject({ access: 'index', index: 'by_n', estimatedRows: 4 });

      const update = await post(`${peer.url}${EXECUTE}`, {
        statement: 'UPDATE items SET flagged = true WHERE n IN [1, 2] AND NOT (tag = :t)',
        args: { t: 'odd' },
      });
      expect(update.status, JSON.stringify(update.json)).toBe(200);
      expect((await sync.store.execute('SELECT COUNT(*) AS c FROM items WHERE flagged = true')).items).toEqual([{ c: 4 }]);

      // The TTL job's call: the older syntax, translated to DQL.
      const write = await post(`${peer.url}${WRITE}`, {
        args: { ttl: '2026-01-02' },
        commands: [{ method: 'update', collection: 'items', query: 'createdAt <= $args.ttl', commands: [{ method: 'set', path: 'old', value: true }] }],
      });
      expect(write.status, JSON.stringify(write.json)).toBe(200);
      expect((await sync.store.execute('SELECT COUNT(*) AS c FROM items WHERE old = true')).items).toEqual([{ c: 16 }]);

      const evict = await post(`${peer.url}${EXECUTE}`, { statement: 'EVICT FROM items WHERE n < 5 ORDER BY n LIMIT 2' });
      expect(evict.json.mutatedDocumentIds).toEqual(['d0', 'd100']);

      expect(logs.take().entries.filter((e) => e.event === 'postgres.query-in-javascript')).toEqual([]);
    } finally {
      await peer.close();
      sync.close();
      other.close();
    }
  }, 60_000);
  it('writes a bulk INSERT in a statement per 1,000 documents, and gives the documents already there to their policy', async () => {
    if (database === undefined) throw new Error('no test database');
    const storage = PgStorage.open({ url: database.url, schema: `bk_${randomBytes(6).toString('hex')}`, pollIntervalMs: 60_000 });
    const sync = new Sync({ storage, storageName: 'postgres', logHub: new LogHub({ minimumLogLevel: 'ERROR' }) });
    try {
      await sync.store.execute('INSERT INTO bulk DOCUMENTS (:a), (:b)', { a: { _id: 'b0100', n: -1 }, b: { _id: 'b2000', n: -1 } });
      await sync.store.execute('DELETE FROM bulk WHERE _id = :id', { id: 'b2000' });
      const docs = Array.from({ length: 2_500 }, (_, i) => ({ _id: `b${String(i).padStart(4, '0')}`, n: i }));
      const before = storage.commitCounters;
      const result = await sync.store.execute('INSERT INTO bulk DOCUMENTS (:docs) ON ID CONFLICT DO UPDATE', { docs });
      const after = storage.commitCounters;
      // Every document, in the order given: 2,498 new, b0100 updated, b2000 written again after its tombstone.
      expect(result.mutatedDocumentIds).toEqual(docs.map((d) => d._id));
      // 3 batches, the 2 conflicting documents' reads, their write, the transaction's ends: not 2,500.
      expect(after.statements - before.statements).toBeLessThanOrEqual(12);
      const rows = await sync.store.execute('SELECT _id, n FROM bulk WHERE _id IN [:a, :b, :c]', { a: 'b0100', b: 'b2000', c: 'b2499' });
      expect(rows.items).toEqual([
        { _id: 'b0100', n: 100 },
        { _id: 'b2000', n: 2000 },
        { _id: 'b2499', n: 2499 },
      ]);
      expect((await sync.store.execute('SELECT COUNT(*) AS n FROM bulk')).items).toEqual([{ n: 2_500 }]);
    } finally {
      sync.close();
    }
  }, 60_000);
});
