/**
 * A Big Peer node (a real `syncmesh big-peer --storage` process) whose PostgreSQL goes away and
 * comes back, over real sockets: the node reaches the database through a TCP relay on 127.0.0.1
 * that the test cuts and restores. (Not in this process: a node blocks its thread while it waits
 * for the database, so a relay on that thread could not relay.) Connections the
 * server closed are replaced without a failed request; while the database cannot be reached,
 * requests answer 503 `store/unavailable` and `/_ready` 503, nothing crashes; once it is back the
 * node is ready again and nothing it acknowledged is lost. Needs a PostgreSQL server: without one
 * these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../../testing/cli/child-process-fixture.ts';
import { call, post, waitUntil } from '../../testing/big-peer/test-helpers.ts';
import { TcpBalancer } from '../../testing/big-peer/tcp-balancer.ts';
import { startBigPeerNode, type BigPeerNodeProcess } from '../../testing/postgres/pg-node-process.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('outage');
});
afterAll(async () => {
  await database?.drop();
});

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await stopAll();
  for (const close of closing.splice(0).reverse()) await close();
});

type Node = Pick<BigPeerNodeProcess, 'url'>;

async function sql(text: string, params: unknown[] = []): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: database?.url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

const insert = (node: Node, id: string) =>
  post(`${node.url}/api/v4/store/execute`, { statement: 'INSERT INTO orders DOCUMENTS (:d)', args: { d: { _id: id } } });
const select = (node: Node) => post(`${node.url}/api/v4/store/execute`, { statement: 'SELECT _id FROM orders ORDER BY _id' });

describe('a Big Peer node whose database goes away', () => {
  it('replaces connections the server closed, answers 503 while it cannot reach it, and is ready again once it is back', async () => {
    if (database === undefined) throw new Error('no test database');
    const server = new URL(database.url);
    const backend = { host: server.hostname, port: Number(server.port || 5432) };
    let relay = await TcpBalancer.listen({ backends: [backend] });
    closing.push(() => relay.close());
    const port = relay.port;
    const viaRelay = new URL(database.url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(port);
    const name = `outage-${randomBytes(3).toString('hex')}`;
    viaRelay.searchParams.set('schema', 'outage');
    const node = await startBigPeerNode(viaRelay.toString(), name);

    expect((await insert(node, 'a')).status).toBe(200);
    // The server closes every connection of the node (a restart, a failover): no request fails for it.
    await sql('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await select(node)).json.items).toEqual([{ _id: 'a' }]);
    expect((await insert(node, 'b')).status).toBe(200);

    // The database cannot be reached.
    await relay.close();
    const failedRead = await select(node);
    expect(failedRead.status).toBe(503);
    expect(failedRead.json.error.code).toBe('store/unavailable');
    expect((await insert(node, 'lost')).status).toBe(503);
    await waitUntil('the node says it is not ready', async () => (await call(`${node.url}/_ready`)).status === 503);
    expect((await call(`${node.url}/_ready`)).json.status).toBe('unavailable');
    expect((await call(`${node.url}/_health`)).status).toBe(200);

    // It is back.
    relay = await TcpBalancer.listen({ backends: [backend] }, port);
    await waitUntil('the node is ready again', async () => (await call(`${node.url}/_ready`)).status === 200);
    expect((await insert(node, 'c')).status).toBe(200);
    expect((await select(node)).json.items).toEqual([{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }]);
  });
});
