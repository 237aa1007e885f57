/**
 * The baseline of the indexed rows: the raw table of `raw-store.ts` (`t(id TEXT PRIMARY KEY,
 * body TEXT)`, WAL, synchronous=NORMAL) with expression indexes on the JSON paths the
 * statements use, and the statements written by hand against them.
 */
import type Database from 'better-sqlite3';
import type { BenchDocument } from './documents.ts';
import { openRawTable } from './raw-store.ts';

const FLAG = "json_extract(body, '$.evictionFlag')";
const CREATED = "json_extract(body, '$.createdAt')";
const EXPIRED = `${FLAG} = 0 AND ${CREATED} <= ?`;

export class RawIndexedStore {
  readonly #db: Database.Database;

  /** Opens (creating if needed) `raw.sqlite` in the directory. */
  constructor(directory: string) {
    this.#db = openRawTable(directory);
  }

  insertMany(docs: readonly BenchDocument[]): void {
    const insert = this.#db.prepare('INSERT INTO t (id, body) VALUES (?, ?)');
    this.#db.transaction(() => {
      for (const doc of docs) insert.run(doc._id, JSON.stringify(doc));
    })();
  }

  /** The indexes of the indexed store's two: (evictionFlag, createdAt) and (createdAt). */
  createIndexes(): void {
    this.#db.exec(`CREATE INDEX t_flag_created ON t (${FLAG}, ${CREATED}); CREATE INDEX t_created ON t (${CREATED})`);
  }

  /** `createdAt <= ttl AND evictionFlag = false` through the index, parsed. */
  selectExpired(ttl: string): unknown[] {
    return (this.#db.prepare(`SELECT body FROM t WHERE ${EXPIRED}`).pluck().all(ttl) as string[]).map((b) => JSON.parse(b) as unknown);
  }

  /** The first `n` documents by createdAt, read from the index in order, parsed. */
  firstCreated(n: number): unknown[] {
    return (this.#db.prepare(`SELECT body FROM t ORDER BY ${CREATED} LIMIT ?`).pluck().all(n) as string[]).map((b) => JSON.parse(b) as unknown);
  }

  countExpired(ttl: string): number {
    return this.#db.prepare(`SELECT count(*) FROM t WHERE ${EXPIRED}`).pluck().get(ttl) as number;
  }

  /** The JavaScript read-modify-write of an UPDATE: read the matching bodies, set `status`, write each back by id; one transaction. */
  updateExpired(ttl: string): number {
    const select = this.#db.prepare(`SELECT id, body FROM t WHERE ${EXPIRED}`);
    const write = this.#db.prepare('UPDATE t SET body = ? WHERE id = ?');
    return this.#db.transaction(() => {
      const rows = select.all(ttl) as { id: string; body: string }[];
      for (const row of rows) {
        const doc = JSON.parse(row.body) as Record<string, unknown>;
        doc.status = 'archived';
        write.run(JSON.stringify(doc), row.id);
      }
      return rows.length;
    })();
  }

  /** Deletes what `selectExpired` finds; returns how many rows went. */
  deleteExpired(ttl: string): number {
    return this.#db.prepare(`DELETE FROM t WHERE ${EXPIRED}`).run(ttl).changes;
  }

  close(): void {
    this.#db.close();
  }
}
