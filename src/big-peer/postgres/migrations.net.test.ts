/**
 * Schema migrations with several nodes starting: one node at a time migrates (the schema's
 * advisory lock), and a node started against a schema newer than it knows refuses, saying why.
 * The nodes are real `syncmesh big-peer --storage` processes. Needs a PostgreSQL server: without
 * one these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, stopAll, until } from '../../testing/cli/child-process-fixture.ts';
import { PG_SCHEMA_VERSION, VERSIONS_TABLE } from './pg-schema.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';
import { spawnBigPeerNode } from '../../testing/postgres/pg-node-process.ts';

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('migrations');
});
afterAll(async () => {
  await database?.drop();
});
afterEach(() => stopAll());

function bigPeer(schema: string, name: string) {
  if (database === undefined) throw new Error('no test database');
  return spawnBigPeerNode(`${database.url}?schema=${schema}`, name);
}

async function admin(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: database?.url });
  await client.connect();
  return client;
}

const started = (run: { stdout: string }): boolean => /HTTP API: +http:\/\/127\.0\.0\.1:\d+/.test(run.stdout);

describe('schema migrations of Big Peer nodes on PostgreSQL', () => {
  it('are applied by one node at a time: a node waits while another holds the schema’s migration lock', async () => {
    const schema = `m_${randomBytes(6).toString('hex')}`;
    const holder = await admin();
    try {
      // What a migrating node holds (pg-schema.ts): the lock of this schema.
      await holder.query("SELECT pg_advisory_lock(hashtext('syncmesh.migrate'), hashtext($1))", [schema]);
      const node = bigPeer(schema, 'waiting-node');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(started(node)).toBe(false);
      await holder.query("SELECT pg_advisory_unlock(hashtext('syncmesh.migrate'), hashtext($1))", [schema]);
      await until(node, () => started(node), 'the node starts once the lock is free');
      const rows = await holder.query(`SELECT version, applied_by FROM ${schema}.${VERSIONS_TABLE} ORDER BY version`);
      expect(rows.rows).toEqual(Array.from({ length: PG_SCHEMA_VERSION }, (_, i) => ({ version: i + 1, applied_by: 'waiting-node' })));
    } finally {
      await holder.end();
    }
  });

  it('refuse to start a node on a schema newer than it knows, with a clear error and status 1', async () => {
    const schema = `m_${randomBytes(6).toString('hex')}`;
    const first = bigPeer(schema, 'first');
    await until(first, () => started(first), 'the first node starts');
    const client = await admin();
    try {
      await client.query(`INSERT INTO ${schema}.${VERSIONS_TABLE} (version, applied_by) VALUES ($1, 'a newer node')`, [PG_SCHEMA_VERSION + 1]);
    } finally {
      await client.end();
    }
    const second = bigPeer(schema, 'second');
    expect(await exitOf(second)).toBe(1);
    expect(second.stderr).toContain(`has schema version ${PG_SCHEMA_VERSION + 1}, newer than ${PG_SCHEMA_VERSION}`);
    expect(second.stderr).toContain('(store/schema-too-new)');
    expect(started(second)).toBe(false);
  });
});
