/**
 * Two Big Peer nodes as real processes (`syncmesh big-peer --storage postgres://…`) behind one
 * address (a TCP balancer on 127.0.0.1), one killed with SIGKILL while small peers sync and an
 * HTTP client writes through it: nothing it acknowledged is lost (every write it answered 200 is
 * in the database), and its small peers resume on the other node and converge with the rest.
 * Needs a PostgreSQL server: without one these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sync } from '../../peer/host.ts';
import { stopAll } from '../../testing/cli/child-process-fixture.ts';
import { post, waitUntil } from '../../testing/big-peer/test-helpers.ts';
import { TcpBalancer } from '../../testing/big-peer/tcp-balancer.ts';
import { startBigPeerNode } from '../../testing/postgres/pg-node-process.ts';
import { smallPeerOf } from '../../testing/postgres/pg-nodes.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';

/** A killed node's peers reconnect with backoff: the waits are longer than elsewhere. */
const WAIT_MS = 30_000;

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('killed');
});
afterAll(async () => {
  await database?.drop();
});

const peers: Sync[] = [];
let balancer: TcpBalancer | undefined;
afterEach(async () => {
  for (const peer of peers.splice(0)) peer.close();
  await balancer?.close();
  balancer = undefined;
  await stopAll();
});

const orderIds = async (sync: Sync): Promise<Set<string>> => new Set((await sync.store.execute('SELECT _id FROM orders')).items.map((d) => String(d._id)));

describe('a Big Peer node killed while it syncs', () => {
  it('loses nothing it acknowledged, and its small peers resume on the other node', async () => {
    if (database === undefined) throw new Error('no test database');
    const storage = `${database.url}?schema=k_${randomBytes(6).toString('hex')}`;
    const one = await startBigPeerNode(storage, 'node-1');
    const two = await startBigPeerNode(storage, 'node-2');
    balancer = await TcpBalancer.listen({ backends: [one, two].map((n) => ({ host: '127.0.0.1', port: n.port })), downForMs: 60_000 });

    // Four small peers through the one address: the balancer puts two on each node.
    const writers = [0, 1, 2, 3].map(() => smallPeerOf(balancer?.url ?? ''));
    peers.push(...writers);
    for (const sync of writers) {
      sync.store.registerSubscription('SELECT * FROM orders');
      await sync.startSync();
    }
    await waitUntil('every peer has a session', () => writers.every((s) => s.sessions.length === 1), WAIT_MS);
    const connectionBefore = writers.map((s) => s.sessions[0]?.connection);

    // Writes go on from every peer, and over HTTP straight to node 1, while node 1 is killed.
    const acknowledged: string[] = [];
    let stop = false;
    const httpWrites = (async () => {
      for (let i = 0; !stop && i < 2_000; i++) {
        const id = `http-${i}`;
        const answer = await post(`${one.url}/api/v4/store/execute`, { statement: 'INSERT INTO orders DOCUMENTS (:d)', args: { d: { _id: id } } }).catch(
          () => undefined,
        );
        if (answer?.status === 200) acknowledged.push(id);
        else if (answer === undefined) break; // the node is gone
      }
    })();
    const peerWrites = writers.map(async (sync, p) => {
      for (let i = 0; i < 60; i++) {
        await sync.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: `p${p}-${i}` } });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    await waitUntil('node 1 acknowledged some HTTP writes', () => acknowledged.length >= 20, WAIT_MS);
    one.run.child.kill('SIGKILL');
    await one.run.exit;
    stop = true;
    await Promise.all([httpWrites, ...peerWrites]);

    // Every write node 1 answered 200 is in the database: node 2 reads it.
    const found = await post(`${two.url}/api/v4/store/execute`, { statement: "SELECT _id FROM orders WHERE _id LIKE 'http-%'" });
    expect(found.status).toBe(200);
    const stored = new Set((found.json.items as { _id: string }[]).map((d) => d._id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);

    // The peers that were on node 1 come back through the balancer, now on node 2, and everyone converges.
    const expected = new Set<string>(stored);
    writers.forEach((_, p) => {
      for (let i = 0; i < 60; i++) expected.add(`p${p}-${i}`);
    });
    await waitUntil(
      'every peer holds every order',
      async () => {
        for (const sync of writers) if ((await orderIds(sync)).size !== expected.size) return false;
        return true;
      },
      WAIT_MS,
    );
    for (const sync of writers) expect([...(await orderIds(sync))].sort()).toEqual([...expected].sort());
    // Those that were on node 1 (the balancer took turns: about half) sync over a new connection, to node 2.
    const moved = writers.filter((s, i) => s.sessions[0]?.connection !== connectionBefore[i]);
    expect(moved.length).toBeGreaterThanOrEqual(1);
    expect(moved.length).toBeLessThan(writers.length);
    const all = await post(`${two.url}/api/v4/store/execute`, { statement: 'SELECT COUNT(*) AS n FROM orders' });
    expect(all.json.items).toEqual([{ n: expected.size }]);
  });
});
