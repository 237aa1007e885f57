/**
 * Two Big Peer nodes on one PostgreSQL database, in this process, over real HTTP and WebSocket
 * on 127.0.0.1: small peers on different nodes converge; a write through one node's HTTP API is
 * read through the other's with X-SYNC-TXN-ID; an API key made on one node holds on the other;
 * both sign with one issuer; a scheduled TTL run happens on one node only. (A node killed while
 * it syncs: nodes-killed.net.test.ts.) Needs a PostgreSQL server: without one these tests fail
 * with how to get it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../shared/permissions.ts';
import { ManualTimers, type Sync } from '../../peer/host.ts';
import { call, post, waitUntil } from '../../testing/big-peer/test-helpers.ts';
import { startPgNode, smallPeerOf, type PgNode } from '../../testing/postgres/pg-nodes.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('nodes');
});
afterAll(async () => {
  await database?.drop();
});

const nodes: PgNode[] = [];
const peers: Sync[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) peer.close();
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

async function twoNodes(options: { pollIntervalMs?: number } = {}): Promise<[PgNode, PgNode]> {
  if (database === undefined) throw new Error('no test database');
  const schema = `n_${randomBytes(6).toString('hex')}`;
  const started: PgNode[] = [];
  for (const name of ['node-1', 'node-2']) {
    const node = await startPgNode({ url: database.url, schema, name, storage: { pollIntervalMs: options.pollIntervalMs ?? 1_000 } });
    nodes.push(node);
    started.push(node);
  }
  return started as [PgNode, PgNode];
}

function peerOn(node: PgNode): Sync {
  const sync = smallPeerOf(node.url);
  peers.push(sync);
  return sync;
}

const ids = async (sync: Sync): Promise<string[]> => (await sync.store.execute('SELECT _id FROM orders ORDER BY _id')).items.map((d) => String(d._id));

describe('two Big Peer nodes on one PostgreSQL database', () => {
  it('are one Big Peer to small peers: one peer key and one issuer', async () => {
    const [one, two] = await twoNodes();
    expect(two.peer.sync.peerKey).toBe(one.peer.sync.peerKey);
    expect(two.peer.issuer.publicKey).toBe(one.peer.issuer.publicKey);
  });

  it('make small peers on different nodes converge, both ways', async () => {
    const [one, two] = await twoNodes();
    const a = peerOn(one);
    const b = peerOn(two);
    for (const sync of [a, b]) {
      sync.store.registerSubscription('SELECT * FROM orders');
      await sync.startSync();
    }
    const expected: string[] = [];
    for (let i = 0; i < 20; i++) {
      await a.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: `a${String(i).padStart(2, '0')}`, by: 'a' } });
      await b.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: `b${String(i).padStart(2, '0')}`, by: 'b' } });
      expected.push(`a${String(i).padStart(2, '0')}`, `b${String(i).padStart(2, '0')}`);
    }
    expected.sort();
    await waitUntil('both peers hold every order', async () => (await ids(a)).length === 40 && (await ids(b)).length === 40);
    expect(await ids(a)).toEqual(expected);
    expect(await ids(b)).toEqual(expected);
    // A field changed concurrently on both sides merges the same on both.
    await Promise.all([a.store.execute("UPDATE orders SET status = 'a' WHERE _id = 'a00'"), b.store.execute("UPDATE orders SET note = 'b' WHERE _id = 'a00'")]);
    const doc = async (sync: Sync) => (await sync.store.execute("SELECT * FROM orders WHERE _id = 'a00'")).items[0];
    await waitUntil('the merge reaches both', async () => {
      const [x, y] = [await doc(a), await doc(b)];
      return x?.status === 'a' && x.note === 'b' && JSON.stringify(x) === JSON.stringify(y);
    });
  });

  it('answer a read on one node after a write on the other, with X-SYNC-TXN-ID, without waiting for a poll', async () => {
    // Polling so slow that only the look X-SYNC-TXN-ID asks for, or a notification, can find the write.
    const [one, two] = await twoNodes({ pollIntervalMs: 600_000 });
    const written = await post(`${one.url}/api/v4/store/execute`, { statement: "INSERT INTO orders DOCUMENTS ({ _id: 'rw', n: 1 })" });
    expect(written.status).toBe(200);
    const txnId = written.json.transactionId as number;
    const read = await post(`${two.url}/api/v4/store/execute`, { statement: "SELECT * FROM orders WHERE _id = 'rw'" }, { 'X-SYNC-TXN-ID': String(txnId) });
    expect(read.status).toBe(200);
    expect(read.json.items).toEqual([{ _id: 'rw', n: 1 }]);
    expect(two.peer.sync.store.lastTxnId).toBeGreaterThanOrEqual(txnId);
  });

  it('accept on one node an API key made on the other, and refuse it on both once revoked there', async () => {
    const [one, two] = await twoNodes();
    const { key, info } = await one.peer.apiKeys.create('ops', EVERYTHING, Date.now());
    const select = { statement: 'SELECT * FROM orders' };
    const ask = (node: PgNode) =>
      call(`${node.url}/api/v4/store/execute`, {
        method: 'POST',
        body: select,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      });
    expect((await ask(two)).status).toBe(200);
    // Keys made on both nodes at once: neither is lost.
    await Promise.all([one.peer.apiKeys.create('x', EVERYTHING, Date.now()), two.peer.apiKeys.create('y', EVERYTHING, Date.now())]);
    expect(
      one.peer.apiKeys
        .list()
        .map((k) => k.name)
        .sort(),
    ).toEqual(['ops', 'x', 'y']);
    await two.peer.apiKeys.revoke(info.id, Date.now());
    expect((await ask(one)).status).toBe(401);
    expect((await ask(two)).status).toBe(401);
  });

  it('refuse on node 2, from its next request on, a key revoked through node 1, without waiting to hear of the commit', async () => {
    const [one, two] = await twoNodes({ pollIntervalMs: 60_000 });
    const { key, info } = await one.peer.apiKeys.create('ops', EVERYTHING, Date.now());
    const ask = (node: PgNode, bearer = key) =>
      call(`${node.url}/api/v4/store/execute`, {
        method: 'POST',
        body: { statement: 'SELECT * FROM orders' },
        headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' },
      });
    expect((await ask(two)).status).toBe(200);
    for (let round = 0; round < 5; round++) {
      const made = await one.peer.apiKeys.create(`k${round}`, EVERYTHING, Date.now());
      expect((await ask(two, made.key)).status).toBe(200);
      await one.peer.apiKeys.revoke(made.info.id, Date.now());
      expect((await ask(two, made.key)).status).toBe(401);
    }
    await one.peer.apiKeys.revoke(info.id, Date.now());
    const next = await ask(two);
    expect(next.status).toBe(401);
    expect(next.text).toContain(`the API key ${info.id} was revoked`);
  });

  it('run a scheduled TTL job on one node only, both nodes having it configured', async () => {
    if (database === undefined) throw new Error('no test database');
    const schema = `n_${randomBytes(6).toString('hex')}`;
    const timers = new ManualTimers(Date.UTC(2026, 10, 22, 12, 0, 0));
    const ttlJobs = [{ collection: 'orders', ttlHours: 1, at: '13:00' }];
    for (const name of ['node-1', 'node-2']) {
      // Only the TTL job's clock is manual: the nodes' storage polls on real time.
      nodes.push(await startPgNode({ url: database.url, schema, name, config: { ttlJobs }, timers, storage: { timers: undefined } }));
    }
    const [one, two] = nodes as [PgNode, PgNode];
    await one.peer.sync.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'old', createdAt: '2026-11-20T00:00:00.000Z', evictionFlag: false } });
    timers.advance(60 * 60_000); // 13:00: both nodes' timers fire
    const ran = () => [...one.logs, ...two.logs].filter((e) => e.event === 'ttl.ran').length;
    const skipped = () => [...one.logs, ...two.logs].filter((e) => e.event === 'ttl.skipped').length;
    await waitUntil('one node runs the job', () => ran() === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ran()).toBe(1);
    const flagged = await post(`${two.url}/api/v4/store/execute`, { statement: 'SELECT evictionFlag FROM orders' });
    expect(flagged.json.items).toEqual([{ evictionFlag: true }]);
    await waitUntil('the other node skips it', () => skipped() === 1);
  });
});
