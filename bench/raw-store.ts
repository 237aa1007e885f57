/**
 * The baseline: the same work done by hand with better-sqlite3, with the store's pragmas (WAL,
 * synchronous=NORMAL) on a plain table `t(id TEXT PRIMARY KEY, body TEXT)` holding each
 * document as its JSON text. No DQL, no merge metadata, no clock: what the store adds is the
 * difference between its figures and these.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchDocument } from './documents.ts';

/** Opens (creating if needed) `raw.sqlite` in the directory with the store's pragmas, and its table `t(id, body)`. */
export function openRawTable(directory: string): Database.Database {
  mkdirSync(directory, { recursive: true });
  const db = new Database(join(directory, 'raw.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, body TEXT)');
  return db;
}

export class RawStore {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[string, string]>;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #insertMany: (docs: readonly BenchDocument[]) => void;
  readonly #selectAll: Database.Statement;
  readonly #selectExpired: Database.Statement<[string]>;
  readonly #deleteExpired: Database.Statement<[string]>;
  readonly #countAll: Database.Statement;
  readonly #countExpired: Database.Statement<[string]>;
  readonly #selectWhereBelow: Database.Statement<[number]>;
  readonly #updateBody: Database.Statement<[string, string]>;
  readonly #updateBelow: (quantity: number, status: string) => number;

  /** Opens (creating if needed) `raw.sqlite` in the directory. */
  constructor(directory: string) {
    this.#db = openRawTable(directory);
    this.#insert = this.#db.prepare('INSERT INTO t (id, body) VALUES (?, ?)');
    this.#begin = this.#db.prepare('BEGIN');
    this.#commit = this.#db.prepare('COMMIT');
    this.#insertMany = this.#db.transaction((docs: readonly BenchDocument[]) => {
      for (const doc of docs) this.#insert.run(doc._id, JSON.stringify(doc));
    });
    this.#selectAll = this.#db.prepare('SELECT body FROM t').pluck();
    const expired = "json_extract(body, '$.createdAt') <= ? AND json_extract(body, '$.evictionFlag') = 0";
    this.#selectExpired = this.#db.prepare<[string]>(`SELECT body FROM t WHERE ${expired}`).pluck();
    this.#deleteExpired = this.#db.prepare<[string]>(`DELETE FROM t WHERE ${expired}`);
    this.#countAll = this.#db.prepare('SELECT count(*) FROM t').pluck();
    this.#countExpired = this.#db.prepare<[string]>(`SELECT count(*) FROM t WHERE ${expired}`).pluck();
    this.#selectWhereBelow = this.#db.prepare<[number]>("SELECT id, body FROM t WHERE json_extract(body, '$.quantity') < ?");
    this.#updateBody = this.#db.prepare<[string, string]>('UPDATE t SET body = ? WHERE id = ?');
    this.#updateBelow = this.#db.transaction((quantity: number, status: string): number => {
      const rows = this.#selectWhereBelow.all(quantity) as { id: string; body: string }[];
      for (const row of rows) {
        const doc = JSON.parse(row.body) as BenchDocument;
        doc.status = status;
        doc.price = doc.price + 1;
        this.#updateBody.run(JSON.stringify(doc), row.id);
      }
      return rows.length;
    });
  }

  /** One document in its own transaction: BEGIN, INSERT, COMMIT. */
  insertOne(doc: BenchDocument): void {
    this.#begin.run();
    this.#insert.run(doc._id, JSON.stringify(doc));
    this.#commit.run();
  }

  /** All the documents in one transaction. */
  insertMany(docs: readonly BenchDocument[]): void {
    this.#insertMany(docs);
  }

  /** Every document, parsed. */
  selectAll(): unknown[] {
    return this.#parseAll(this.#selectAll.all() as string[]);
  }

  /** `createdAt <= ttl AND evictionFlag = false`, written by hand in SQL, parsed. */
  selectExpired(ttl: string): unknown[] {
    return this.#parseAll(this.#selectExpired.all(ttl) as string[]);
  }

  /** Deletes what `selectExpired` finds; returns how many rows went. */
  deleteExpired(ttl: string): number {
    return this.#deleteExpired.run(ttl).changes;
  }

  /** `SELECT count(*) FROM t`. */
  count(): number {
    return this.#countAll.get() as number;
  }

  /** How many documents `selectExpired` finds, counted by SQLite. */
  countExpired(ttl: string): number {
    return this.#countExpired.get(ttl) as number;
  }

  /**
   * `status = :status, price = price + 1` where `quantity < :quantity`, as a read-modify-write
   * in JavaScript: the matching rows selected, parsed, changed, serialised and written back by
   * primary key, in one transaction. Returns how many it updated.
   */
  updateBelow(quantity: number, status: string): number {
    return this.#updateBelow(quantity, status);
  }

  close(): void {
    this.#db.close();
  }

  #parseAll(bodies: readonly string[]): unknown[] {
    const out = new Array<unknown>(bodies.length);
    for (let i = 0; i < bodies.length; i++) out[i] = JSON.parse(bodies[i] as string);
    return out;
  }
}
