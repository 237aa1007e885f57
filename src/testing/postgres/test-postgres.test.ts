/**
 * The test helper for the Big Peer's PostgreSQL tests: a fresh database per test on the run's
 * server (scripts/vitest-postgres-setup.ts), gone after drop().
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresTestUrl } from './test-postgres.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  return client;
}

async function databaseExists(name: string): Promise<boolean> {
  const admin = await connect(postgresTestUrl());
  try {
    return (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await admin.end();
  }
}

describe('test databases on the PostgreSQL server of the run', () => {
  it('the run has a PostgreSQL server', () => {
    expect(postgresTestUrl()).toMatch(/^postgres(ql)?:\/\//);
  });

  it('a created database is new and empty, can be connected to, and is gone after drop even with connections open', async () => {
    const database = await createTestDatabase('Helper Test');
    cleanups.push(() => database.drop());
    expect(database.name).toMatch(/^syncmesh_t_helper_test_[0-9a-f]{16}$/);
    expect(new URL(database.url).pathname).toBe(`/${database.name}`);

    const client = await connect(database.url);
    client.on('error', () => undefined); // drop() ends this connection
    expect((await client.query('SELECT current_database() AS name')).rows).toEqual([{ name: database.name }]);
    expect((await client.query("SELECT count(*)::int AS tables FROM pg_tables WHERE schemaname = 'public'")).rows).toEqual([{ tables: 0 }]);
    await client.query('CREATE TABLE t (id int PRIMARY KEY)');

    await database.drop();
    expect(await databaseExists(database.name)).toBe(false);
    await expect(client.query('SELECT 1')).rejects.toThrow();
    await client.end().catch(() => undefined);
    await database.drop(); // twice is fine
  });

  it('databases created at the same time are distinct', async () => {
    const databases = await Promise.all([createTestDatabase(), createTestDatabase(), createTestDatabase()]);
    for (const database of databases) cleanups.push(() => database.drop());
    expect(new Set(databases.map((database) => database.name)).size).toBe(3);
    for (const database of databases) expect(database.name).toMatch(/^syncmesh_t_[0-9a-f]{16}$/);
    for (const database of databases) expect(await databaseExists(database.name)).toBe(true);
  });
});
