import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { LogHub } from '../log/log-hub.ts';
import { Sync, type SyncOptions } from '../sync.ts';
import { assertSupportedNode } from './node-version.ts';
import { DATABASE_FILE, SqliteStorage } from './sqlite-storage.ts';
import { runStorageAcceptanceTests } from './storage-acceptance.ts';

const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => BetterSqlite3.Database;

const quietSync = (options: SyncOptions): Sync => new Sync({ logHub: new LogHub(), ...options });

runStorageAcceptanceTests('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-acc-'));
  return { storage: SqliteStorage.open(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
});

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
      expect(db.pragma('user_version', { simple: true })).toBe(1);
    } finally {
      db.close();
    }
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
    fix.pragma('user_version = 1');
    fix.close();
    SqliteStorage.open(dir).close();
  });

  it('says what to do on a Node.js too old for the storage engine', () => {
    expect(() => assertSupportedNode('20.20.2')).toThrow(expect.objectContaining({ code: 'store/node-unsupported' }));
    expect(() => assertSupportedNode('22.11.0')).toThrow(/Node\.js 22\.12 or newer/);
    expect(() => assertSupportedNode('22.12.0')).not.toThrow();
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
