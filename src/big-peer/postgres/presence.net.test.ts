/**
 * `syncmesh big-peer --storage postgres://… --device-name NAME`, as a real process: the node
 * writes the Big Peer's presence document in the shared schema, as a node on SQLite does, so
 * that small peers and inspectors name it.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { LogHub, readAllPresence } from '../../peer/host.ts';
import { exitOf, startNode, stopAll, until } from '../../testing/cli/child-process-fixture.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';
import { openPgSync } from './open-node.ts';

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('presence');
});
afterEach(async () => {
  await stopAll();
});
afterAll(async () => {
  await database?.drop();
});

it('a Big Peer node on PostgreSQL writes its presence document with its device name', async () => {
  if (database === undefined) throw new Error('no test database');
  const storage = `${database.url}${database.url.includes('?') ? '&' : '?'}schema=presence_node`;
  const run = startNode(['bin/syncmesh.js', 'big-peer', '--storage', storage, '--app-id', 'presence-app', '--port', '0', '--device-name', 'cloud-east']);
  await until(run, () => /HTTP API: +http:\/\/\S+/.test(run.stdout), 'the printed URL');

  // Read from the schema as another node would.
  const reader = openPgSync({ url: database.url, schema: 'presence_node', pollIntervalMs: 200 }, 'reader', new LogHub({ minimumLogLevel: 'ERROR' }));
  try {
    let records = readAllPresence(reader.store);
    for (let i = 0; i < 100 && records.size === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      records = readAllPresence(reader.store);
    }
    const [record] = [...records.values()];
    expect(record).toMatchObject({ deviceName: 'cloud-east', role: 'big-peer' });
    expect(records.size).toBe(1);
  } finally {
    reader.close();
  }
  run.child.kill('SIGTERM');
  expect(await exitOf(run)).toBe(0);
});
