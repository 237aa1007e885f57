/**
 * The PostgreSQL storage passes the storage acceptance suite SQLite and the in-memory twin pass,
 * on a database of its own (each case in a fresh schema), and does what only a shared database
 * needs: versioned migrations, a refusal of a newer schema, one write at a time across
 * processes, and commits of other processes told by notification and found by polling.
 * Needs a PostgreSQL server: without one these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStorageAcceptanceTests } from '../../testing/storage-acceptance.ts';
import type { ExternalCommit, StoredDocument } from '../../peer/host.ts';
import { PgStorage } from './pg-storage.ts';
import { PG_SCHEMA_VERSION, VERSIONS_TABLE } from './pg-schema.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';

let database: { url: string; drop(): Promise<void> } | undefined;

beforeAll(async () => {
  database = await createTestDatabase('storage');
});

afterAll(async () => {
  await database?.drop();
});

function url(): string {
  if (database === undefined) throw new Error('the test database was not created');
  return database.url;
}

const freshSchema = (): string => `s_${randomBytes(6).toString('hex')}`;

runStorageAcceptanceTests('PostgreSQL', () => ({ storage: PgStorage.open({ url: url(), schema: freshSchema() }), cleanup: () => {} }));

const doc = (id: string, txnId: number): StoredDocument => ({ id, value: { _id: id, n: txnId }, meta: { n: ['0000000000010000', 'p'] } as never, txnId });

async function sql<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url() });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('PostgreSQL storage of several nodes', () => {
  it('records each migration it applies and opens an up-to-date schema without applying any', async () => {
    const schema = freshSchema();
    PgStorage.open({ url: url(), schema, nodeName: 'node-a' }).close();
    PgStorage.open({ url: url(), schema, nodeName: 'node-b' }).close();
    const rows = await sql<{ version: number; applied_by: string }>(`SELECT version, applied_by FROM ${schema}.${VERSIONS_TABLE} ORDER BY version`);
    expect(rows).toEqual(Array.from({ length: PG_SCHEMA_VERSION }, (_, i) => ({ version: i + 1, applied_by: 'node-a' })));
  });

  it('refuses a schema newer than it knows, saying so, and changes nothing', async () => {
    const schema = freshSchema();
    PgStorage.open({ url: url(), schema }).close();
    await sql(`INSERT INTO ${schema}.${VERSIONS_TABLE} (version, applied_by) VALUES ($1, 'a newer node')`, [PG_SCHEMA_VERSION + 1]);
    expect(() => PgStorage.open({ url: url(), schema })).toThrow(
      expect.objectContaining({ code: 'store/schema-too-new', message: expect.stringContaining(`schema version ${PG_SCHEMA_VERSION + 1}`) }),
    );
    const rows = await sql(`SELECT version FROM ${schema}.${VERSIONS_TABLE}`);
    expect(rows).toHaveLength(PG_SCHEMA_VERSION + 1);
  });

  it('reaps tombstones through the partial documents_tombstones index', async () => {
    const schema = freshSchema();
    PgStorage.open({ url: url(), schema }).close();
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      await client.query(`SET search_path = ${schema}`);
      await client.query('SET enable_seqscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN DELETE FROM documents WHERE deleted AND (meta::jsonb -> 'd' ->> 0) COLLATE "C" <= $1 COLLATE "C" RETURNING collection, id`,
        ['0000000000030000'],
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('documents_tombstones');
    } finally {
      await client.end();
    }
  });

  it('refuses a schema name it cannot use as is', () => {
    expect(() => PgStorage.open({ url: url(), schema: 'Bad-Name' })).toThrow(expect.objectContaining({ code: 'store/io' }));
  });

  it('says the server cannot be reached, with its address and no password', () => {
    expect(() => PgStorage.open({ url: 'postgres://someone:secret@127.0.0.1:1/none', callTimeoutMs: 5_000 })).toThrow(
      expect.objectContaining({ code: 'store/unavailable', message: expect.not.stringContaining('secret') }),
    );
  });

  it('lets one process write at a time: a second waits for the first to commit, then takes the next txn_id', async () => {
    const schema = freshSchema();
    const a = PgStorage.open({ url: url(), schema });
    const b = PgStorage.open({ url: url(), schema });
    try {
      const first = await a.acquireWrite();
      let secondOpened = false;
      const second = b.acquireWrite().then((tx) => {
        secondOpened = true;
        return tx;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(secondOpened).toBe(false);
      first.writer.put('orders', doc('a1', 1));
      first.writer.setClock({ lastTxnId: 1, lastHlc: '0000000000010000' });
      const firstDone = first.commit();
      const tx = await second;
      await firstDone;
      expect(tx.writer.clock().lastTxnId).toBe(1);
      expect(tx.writer.get('orders', 'a1')?.value).toEqual({ _id: 'a1', n: 1 });
      tx.rollback();
    } finally {
      a.close();
      b.close();
    }
  });

  it('tells another process of each commit, with the collections it wrote', async () => {
    const schema = freshSchema();
    const a = PgStorage.open({ url: url(), schema, pollIntervalMs: 60_000 });
    const b = PgStorage.open({ url: url(), schema, pollIntervalMs: 60_000 });
    const told: ExternalCommit[] = [];
    b.onExternalCommit((commit) => told.push(commit));
    try {
      await new Promise((resolve) => setTimeout(resolve, 200)); // b is listening
      for (const [txnId, collection] of [
        [1, 'orders'],
        [2, 'people'],
      ] as const) {
        const tx = await a.acquireWrite();
        tx.writer.put(collection, doc(`d${txnId}`, txnId));
        tx.writer.setClock({ lastTxnId: txnId, lastHlc: '0000000000010000' });
        // Awaited: the next write would otherwise join this one's group, told as one commit.
        await tx.commit();
      }
      await until(() => told.length === 2, 'two notifications');
      expect(told).toEqual([
        { txnId: 1, collections: ['orders'] },
        { txnId: 2, collections: ['people'] },
      ]);
    } finally {
      a.close();
      b.close();
    }
  });

  it('reads a page of changes once for every session asking until the next commit, then again', async () => {
    const storage = PgStorage.open({ url: url(), schema: freshSchema() });
    try {
      const write = (txnId: number): void =>
        storage.write((w) => {
          w.put('orders', doc(`d${txnId}`, txnId));
          w.setClock({ lastTxnId: txnId, lastHlc: '0000000000010000' });
        });
      write(1);
      const query = { collection: 'orders', afterTxnId: 0, uptoTxnId: 5, limit: 10 };
      const first = storage.read((r) => r.changedSince(query));
      expect(storage.read((r) => r.changedSince(query))).toBe(first); // the same page, not read again
      write(2);
      const after = storage.read((r) => r.changedSince(query));
      expect(after).not.toBe(first);
      expect(after.documents.map((d) => d.id)).toEqual(['d1', 'd2']);
      // The write transaction reads its own changes, never a page read before them.
      const tx = storage.beginWrite();
      tx.writer.put('orders', doc('d3', 3));
      expect(tx.writer.changedSince(query).documents.map((d) => d.id)).toEqual(['d1', 'd2', 'd3']);
      tx.rollback();
    } finally {
      storage.close();
    }
  });

  it('finds a commit whose notification never came by polling, as a change to any collection', async () => {
    const schema = freshSchema();
    const b = PgStorage.open({ url: url(), schema, pollIntervalMs: 100 });
    const told: ExternalCommit[] = [];
    b.onExternalCommit((commit) => told.push(commit));
    try {
      // Written behind the storages' backs: no NOTIFY.
      await sql(`UPDATE ${schema}.clock SET txn_id = 7`);
      await until(() => told.length === 1, 'the poll');
      expect(told).toEqual([{ txnId: 7, collections: undefined }]);
      await sql(`UPDATE ${schema}.clock SET txn_id = 8`);
      await b.pollExternalCommits();
      expect(told.at(-1)).toEqual({ txnId: 8, collections: undefined });
    } finally {
      b.close();
    }
  });
});
