/**
 * An exclusive lock on a persistence directory, held by an open store. It is an operating-system
 * lock taken through SQLite on a small `lock` database (EXCLUSIVE locking mode), so it is
 * released by the kernel when the process dies: no stale lock file survives a crash. A second
 * store in the same or another process finds it held and gets `store/locked`.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { StoreError } from '../errors.ts';

export type DatabaseConstructor = new (path: string, options?: BetterSqlite3.Options) => BetterSqlite3.Database;

export class DirectoryLock {
  readonly #db: BetterSqlite3.Database;

  private constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }

  static acquire(Database: DatabaseConstructor, directory: string): DirectoryLock {
    const db = new Database(join(directory, 'lock'), { timeout: 0 });
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
      db.exec('CREATE TABLE IF NOT EXISTS held (pid INTEGER)');
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY') === true) {
        throw new StoreError('store/locked', `the store directory ${directory} is in use by another open store; close it first`, {
          details: { directory },
          cause: error,
        });
      }
      throw error;
    }
    return new DirectoryLock(db);
  }

  release(): void {
    if (this.#db.open) this.#db.close();
  }
}
