/**
 * The eviction suite's baseline: better-sqlite3 used by hand, with the store's pragmas (WAL,
 * synchronous=NORMAL) and a chosen auto_vacuum mode, on a plain table `t(id TEXT PRIMARY KEY,
 * body TEXT)` whose body is the document's JSON. Its DELETE removes the rows an EVICT of
 * `createdAt <= :ttl` removes, and `reclaim()` does what the store's `reclaimSpace()` does.
 */
import Database from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchDocument } from './documents.ts';

/** SQLite's `PRAGMA auto_vacuum` values, by name. */
export const AUTO_VACUUM = { 0: 'NONE', 1: 'FULL', 2: 'INCREMENTAL' } as const;
export type AutoVacuum = (typeof AUTO_VACUUM)[keyof typeof AUTO_VACUUM];

export const RAW_FILE = 'raw.sqlite';

/** Bytes of a SQLite database and its -wal and -shm files (missing files count 0), as the store's `sizeOnDisk()` counts them. */
export function databaseBytes(file: string): number {
  let total = 0;
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      total += statSync(file + suffix).size;
    } catch {
      // not there
    }
  }
  return total;
}

export class RawEvictStore {
  readonly file: string;
  readonly #db: Database.Database;
  readonly #insertMany: (docs: readonly BenchDocument[]) => void;
  readonly #delete: Database.Statement<[string]>;

  /** Opens (creating if needed) `raw.sqlite` in the directory; `autoVacuum` applies to a new file only. */
  constructor(directory: string, autoVacuum: AutoVacuum) {
    mkdirSync(directory, { recursive: true });
    this.file = join(directory, RAW_FILE);
    this.#db = new Database(this.file);
    // Before WAL: once the file has its first page, the mode can change only by VACUUM.
    this.#db.pragma(`auto_vacuum = ${autoVacuum}`);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.exec('CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, body TEXT)');
    const insert = this.#db.prepare<[string, string]>('INSERT INTO t (id, body) VALUES (?, ?)');
    this.#insertMany = this.#db.transaction((docs: readonly BenchDocument[]) => {
      for (const doc of docs) insert.run(doc._id, JSON.stringify(doc));
    });
    this.#delete = this.#db.prepare<[string]>("DELETE FROM t WHERE json_extract(body, '$.createdAt') <= ?");
  }

  get autoVacuum(): AutoVacuum {
    return AUTO_VACUUM[this.#db.pragma('auto_vacuum', { simple: true }) as 0 | 1 | 2];
  }

  /** All the documents in one transaction. */
  insertMany(docs: readonly BenchDocument[]): void {
    this.#insertMany(docs);
  }

  /** `DELETE … WHERE createdAt <= ttl`, one statement; returns how many rows went. */
  deleteUpTo(ttl: string): number {
    return this.#delete.run(ttl).changes;
  }

  /** What `SqliteStorage.reclaimSpace()` does: an incremental vacuum where the mode allows, then `wal_checkpoint(TRUNCATE)`. */
  reclaim(): void {
    if (this.autoVacuum === 'INCREMENTAL') this.#db.pragma('incremental_vacuum');
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
  }

  freeBytes(): number {
    return (this.#db.pragma('freelist_count', { simple: true }) as number) * (this.#db.pragma('page_size', { simple: true }) as number);
  }

  sizeOnDisk(): number {
    return databaseBytes(this.file);
  }

  count(): number {
    return this.#db.prepare('SELECT count(*) FROM t').pluck().get() as number;
  }

  close(): void {
    this.#db.close();
  }
}
