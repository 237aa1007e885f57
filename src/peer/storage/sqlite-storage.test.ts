import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { assertSupportedNode } from './node-version.ts';
import { sortKey } from '../dql/sort-key.ts';
import { CHANGED_SINCE_SQL, DATABASE_FILE, SqliteStorage } from './sqlite-storage.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './sqlite-schema.ts';
import { runStorageAcceptanceTests } from '../../testing/storage-acceptance.ts';
import { quietSync } from '../../testing/sync-fixtures.ts';

const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => BetterSqlite3.Database;

runStorageAcceptanceTests('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-acc-'));
  return { storage: SqliteStorage.open(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
});

/** Fills a store with 2,000 documents of ~400 bytes, evicts them all, reclaiming after each step: the sizes on disk and the free bytes left. */
async function fillThenEvictAll(dir: string): Promise<{ full: number; after: number; free: number }> {
  const sync = quietSync({ persistenceDirectory: dir });
  try {
    const docs = Array.from({ length: 2000 }, (_, i) => ({ _id: `d${i}`, body: 'x'.repeat(400) }));
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:docs)', { docs });
    await sync.store.reclaimSpace();
    const full = sync.store.sizeOnDisk();
    await sync.store.execute('EVICT FROM orders');
    await sync.store.reclaimSpace();
    return { full, after: sync.store.sizeOnDisk(), free: sync.store.freeBytes() };
  } finally {
    sync.close();
  }
}

describe('the SQLite store on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-disk-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps one SQLite file in WAL mode with synchronous=NORMAL', () => {
    const storage = SqliteStorage.open(dir);
    storage.close();
    expect(existsSync(join(dir, DATABASE_FILE))).toBe(true);
    const db = new Database(join(dir, DATABASE_FILE));
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      db.close();
    }
  });

  it('tells the database file and the WAL apart: a checkpoint moves bytes from the WAL, it frees none of the data', async () => {
    const sync = quietSync({ persistenceDirectory: dir });
    try {
      const docs = Array.from({ length: 1000 }, (_, i) => ({ _id: `d${i}`, body: 'x'.repeat(400) }));
      await sync.store.execute('INSERT INTO orders DOCUMENTS (:docs)', { docs });
      const written = sync.store.diskUsage();
      expect(written.databaseBytes + written.walBytes).toBe(sync.store.sizeOnDisk());
      expect(written.walBytes).toBeGreaterThan(400 * 1000);
      await sync.store.reclaimSpace(); // a TRUNCATE checkpoint: the WAL written back into the file
      const checkpointed = sync.store.diskUsage();
      expect(checkpointed.walBytes).toBeLessThan(written.walBytes / 10);
      expect(checkpointed.databaseBytes).toBeGreaterThan(400 * 1000);
      expect(checkpointed.databaseBytes).toBeGreaterThanOrEqual(written.databaseBytes);
    } finally {
      sync.close();
    }
  });

  it('makes a new store with incremental auto-vacuum, so that reclaiming after an EVICT shrinks the file', async () => {
    const { full, after, free } = await fillThenEvictAll(dir);
    expect(after).toBeLessThan(full / 4);
    expect(free).toBe(0);
    const db = new Database(join(dir, DATABASE_FILE));
    try {
      expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    } finally {
      db.close();
    }
  });

  it('keeps the freed pages of a store made without auto-vacuum for reuse', async () => {
    SqliteStorage.open(dir).close();
    const raw = new Database(join(dir, DATABASE_FILE));
    raw.pragma('journal_mode = DELETE');
    raw.pragma('auto_vacuum = NONE');
    raw.exec('VACUUM');
    raw.pragma('journal_mode = WAL');
    raw.close();
    const { full, after, free } = await fillThenEvictAll(dir);
    expect(after).toBe(full);
    expect(free).toBeGreaterThan(full / 2);
  });

  it('gives back documents, txn ids and the peer key after a reopen', async () => {
    const first = quietSync({ persistenceDirectory: dir });
    await first.store.execute("INSERT INTO orders DOCUMENTS ({_id: 'o1', total: 5})");
    await first.store.execute("UPDATE orders SET total = 6 WHERE _id = 'o1'");
    const peerKey = first.peerKey;
    first.close();
    const second = quietSync({ persistenceDirectory: dir });
    try {
      expect(second.peerKey).toBe(peerKey);
      expect((await second.store.execute('SELECT * FROM orders')).items).toEqual([{ _id: 'o1', total: 6 }]);
      expect((await second.store.execute("DELETE FROM orders WHERE _id = 'o1'")).commitId).toBe(3);
    } finally {
      second.close();
    }
  });

  it('refuses a second open store on the same directory with store/locked, until the first closes', () => {
    const first = quietSync({ persistenceDirectory: dir });
    expect(() => quietSync({ persistenceDirectory: dir })).toThrow(expect.objectContaining({ code: 'store/locked' }));
    first.close();
    quietSync({ persistenceDirectory: dir }).close();
  });

  it('refuses a store written by a newer schema with store/schema-too-new', () => {
    SqliteStorage.open(dir).close();
    const db = new Database(join(dir, DATABASE_FILE));
    db.pragma('user_version = 99');
    db.close();
    expect(() => SqliteStorage.open(dir)).toThrow(expect.objectContaining({ code: 'store/schema-too-new' }));
    // The lock was released: the directory can be opened again once the schema is understood.
    const fix = new Database(join(dir, DATABASE_FILE));
    fix.pragma(`user_version = ${SCHEMA_VERSION}`);
    fix.close();
    SqliteStorage.open(dir).close();
  });

  it('migrates a schema-1 store to the latest schema on open, keeping its documents and counting the live ones', () => {
    const v1 = new Database(join(dir, DATABASE_FILE));
    v1.exec(MIGRATIONS[0] as string);
    const meta = JSON.stringify({ c: ['0000000000010000', 'p'] });
    const insert = v1.prepare('INSERT INTO documents (collection, id, body, meta, deleted, txn_id) VALUES (?, ?, ?, ?, ?, ?)');
    insert.run('c', sortKey('a'), JSON.stringify({ _id: 'a', n: 1 }), meta, 0, 1);
    insert.run('c', sortKey('b'), JSON.stringify({ _id: 'b' }), meta, 1, 2);
    v1.exec("UPDATE clock SET txn_id = 2, hlc = '0000000000020000' WHERE one = 1");
    v1.pragma('user_version = 1');
    v1.close();

    const storage = SqliteStorage.open(dir);
    try {
      const page = storage.read((r) => r.changedSince({ collection: 'c', afterTxnId: 0, uptoTxnId: 2, limit: 10 }));
      expect(page.documents.map((d) => [d.id, d.value, d.txnId])).toEqual([
        ['a', { _id: 'a', n: 1 }, 1],
        ['b', null, 2],
      ]);
      expect(storage.read((r) => r.clock())).toEqual({ lastTxnId: 2, lastHlc: '0000000000020000' });
      expect(storage.read((r) => r.count({ collection: 'c', where: undefined, params: {}, orderBy: [], limit: undefined, offset: 0 }))).toBe(1);
    } finally {
      storage.close();
    }
    const db = new Database(join(dir, DATABASE_FILE));
    try {
      expect(SCHEMA_VERSION).toBe(5);
      expect(db.pragma('user_version', { simple: true })).toBe(5);
      expect(db.prepare('SELECT count(*) FROM secondary_indexes').pluck().get()).toBe(0);
      expect(JSON.parse(db.prepare('SELECT live FROM clock').pluck().get() as string)).toEqual({ c: 1 });
      expect(db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'documents_by_txn'").pluck().get()).toBe(
        'CREATE INDEX documents_by_txn ON documents (collection, txn_id)',
      );
    } finally {
      db.close();
    }
  });

  it('pages changedSince along the documents_by_txn index, with no temporary b-tree, before and after ANALYZE', () => {
    const storage = SqliteStorage.open(dir);
    try {
      for (let txn = 1; txn <= 20; txn++) {
        storage.write((w) => {
          for (let i = 0; i < 50; i++) {
            const collection = i % 5 === 0 ? 'small' : 'big';
            w.put(collection, { id: `d${txn}-${i}`, value: { _id: `d${txn}-${i}` }, meta: { c: ['0000000000010000' as never, 'p'] }, txnId: txn });
          }
        });
      }
    } finally {
      storage.close();
    }
    const db = new Database(join(dir, DATABASE_FILE));
    try {
      const binds = { col: 'big', after: 3, upto: 12, ct: 5, ck: 100, lim: 11 };
      const plans = (): string[][] =>
        Object.values(CHANGED_SINCE_SQL).map((sql) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(binds) as { detail: string }[]).map((row) => row.detail));
      for (const round of ['before', 'after']) {
        if (round === 'after') db.exec('ANALYZE');
        for (const plan of plans()) {
          expect(plan.join('\n')).not.toMatch(/TEMP B-TREE|SCAN/);
          expect(plan.filter((line) => line.startsWith('SEARCH')).length).toBeGreaterThan(0);
          for (const line of plan.filter((l) => l.startsWith('SEARCH'))) expect(line).toContain('USING INDEX documents_by_txn');
        }
      }
      expect(plans()[1]).toContain('SEARCH documents USING INDEX documents_by_txn (collection=? AND txn_id=? AND rowid>?)');
    } finally {
      db.close();
    }
  });

  it('reaps tombstones along the partial documents_tombstones index, never reading live documents', () => {
    const storage = SqliteStorage.open(dir);
    storage.close();
    const db = new Database(join(dir, DATABASE_FILE));
    try {
      const sql =
        "DELETE FROM documents WHERE deleted = 1 AND json_extract(meta, '$.d[0]') <= @cut AND (@upto IS NULL OR txn_id <= @upto) RETURNING collection, id, txn_id";
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ cut: '0000000000030000', upto: null }) as { detail: string }[]).map((row) => row.detail);
      expect(plan.join('\n')).toContain('USING INDEX documents_tombstones');
    } finally {
      db.close();
    }
  });

  it('says what to do on a Node.js too old for the storage engine', () => {
    expect(() => assertSupportedNode('20.20.2')).toThrow(expect.objectContaining({ code: 'store/node-unsupported' }));
    expect(() => assertSupportedNode('22.13.0')).toThrow(/Node\.js 22\.18 or newer/);
    // 22.14 has Node-API 10 but cannot run .ts without a flag: type stripping is unflagged from 22.18.
    expect(() => assertSupportedNode('22.14.0')).toThrow(/Node\.js 22\.18 or newer/);
    expect(() => assertSupportedNode('22.17.1')).toThrow(expect.objectContaining({ code: 'store/node-unsupported' }));
    expect(() => assertSupportedNode('22.18.0')).not.toThrow();
    expect(() => assertSupportedNode('24.21.0')).not.toThrow();
  });

  it('reports a persistence path that is a file as store/io', () => {
    const file = join(dir, 'not-a-dir');
    writeFileSync(file, 'x');
    expect(() => SqliteStorage.open(file)).toThrow(expect.objectContaining({ code: 'store/io' }));
  });

  it('writes none of a failing multi-document INSERT, also after a reopen', async () => {
    const sync = quietSync({ persistenceDirectory: dir });
    await sync.store.execute("INSERT INTO c DOCUMENTS ({_id: 'taken'})");
    await expect(sync.store.execute("INSERT INTO c DOCUMENTS ({_id: 'n1'}), ({_id: 'n2'}), ({_id: 'taken'})")).rejects.toMatchObject({
      code: 'query/evaluation',
    });
    sync.close();
    const again = quietSync({ persistenceDirectory: dir });
    try {
      expect((await again.store.execute('SELECT _id FROM c')).items).toEqual([{ _id: 'taken' }]);
      expect((await again.store.execute("INSERT INTO c DOCUMENTS ({_id: 'n1'})")).commitId).toBe(2);
    } finally {
      again.close();
    }
  });

  it('shows readers only committed data while a write transaction is open', () => {
    const storage = SqliteStorage.open(dir);
    try {
      storage.write((w) => {
        w.put('c', { id: 'a', value: { _id: 'a' }, meta: { c: ['0000000000010000' as never, 'p'] }, txnId: 1 });
        const seen = storage.read((r) => r.findValues({ collection: 'c', where: undefined, params: {}, orderBy: [], limit: undefined, offset: 0 }));
        expect(seen).toEqual([]);
      });
      expect(storage.read((r) => r.get('c', 'a'))?.value).toEqual({ _id: 'a' });
    } finally {
      storage.close();
    }
  });

  it('refuses a write with store/busy while another program holds the database, then writes again', async () => {
    const sync = quietSync({ persistenceDirectory: dir });
    const other = new Database(join(dir, DATABASE_FILE));
    try {
      other.exec('BEGIN IMMEDIATE');
      await expect(sync.store.execute("INSERT INTO t DOCUMENTS ({_id: 'a'})")).rejects.toMatchObject({ code: 'store/busy' });
      other.exec('ROLLBACK');
      expect((await sync.store.execute("INSERT INTO t DOCUMENTS ({_id: 'a'})")).commitId).toBe(1);
    } finally {
      other.close();
      sync.close();
    }
  });
});
