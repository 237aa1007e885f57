/**
 * The change pages of the PostgreSQL storage (`changedSince`), and what lets a node answer them
 * after a commit without a read of its own:
 *
 * - `ChangePageCache`: after a commit every session of a node asks for the same page, which is
 *   read once. Any commit the node learns of (its own, told or polled) empties it.
 * - Known ranges: the rows of a collection whose txn_id is in (after, upto], read where they are
 *   provably all of them, so that any page inside that range is cut from them exactly as
 *   PostgreSQL would answer it. A node's own group reads them inside its transaction, in the
 *   statement of its NOTIFY, while it still holds the clock row (`seededNotify`): txn_ids (clock
 *   at lock, last of group] are this group's alone, and nothing else writes meanwhile. The same
 *   read goes into the NOTIFY's payload when it fits, so the other nodes have the rows as they
 *   hear of the commit; when it does not fit, their worker thread reads them as the NOTIFY
 *   arrives (`prefetchSql`), before the main thread hears of it. Either way the main thread
 *   finds the pages ready instead of blocking on a read.
 */
import pg from 'pg';
import type { ChangePage, ChangeQuery, DocumentMeta, JsonObject, JsonValue, StoredDocument } from '../../peer/host.ts';

/** A row of `documents` as the storage reads it: id (the sort key), body, meta, deleted, txn_id. */
export type Row = [Uint8Array, string, string, boolean, number];

export function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function toStored(row: Row): StoredDocument {
  const body = JSON.parse(row[1]) as JsonObject;
  return { id: body._id as JsonValue, value: row[3] ? null : body, meta: JSON.parse(row[2]) as DocumentMeta, txnId: row[4] };
}

/** A page of at most `limit` documents from rows in (txn_id, id) order, of which one more than `limit` tells whether another page follows. */
export function pageOf(rows: readonly Row[], limit: number): ChangePage {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return {
    documents: kept.map(toStored),
    next: more && last !== undefined ? { txnId: last[4], key: bufferOf(last[0]).toString('hex') } : undefined,
  };
}

/**
 * Most rows a group's read gives back, all collections together. A group that wrote more is
 * known in part: the collections whose rows all came, and a prefix of the one cut short, whose
 * pages inside it are still answered (the first page of 500 is); the rest is read.
 */
export const KNOWN_ROWS = 1_024;

/** Most rows a NOTIFY payload may carry: more would not fit in its 8,000 bytes anyway. */
const PAYLOAD_ROWS = 100;

/**
 * The rows of `collections` with txn_id in (`after`, `upto`], in (collection, txn_id, id) order,
 * at most KNOWN_ROWS + 1: [collection, id, body, meta, deleted, txn_id]. The arguments are SQL
 * expressions yielding text[], bigint and bigint. As plain as it can be: it is planned at every
 * commit.
 */
function rangeSql(collections: string, after: string, upto: string): string {
  return (
    `SELECT collection, id, body, meta, deleted, txn_id FROM documents WHERE collection = ANY(${collections}) AND txn_id > ${after} AND txn_id <= ${upto} ` +
    `ORDER BY collection, txn_id, id LIMIT ${KNOWN_ROWS + 1}`
  );
}

/** What a group committed: the txn_ids (after, upto], in these collections. */
export interface Seed {
  readonly collections: Iterable<string>;
  readonly after: number;
  readonly upto: number;
}

/**
 * The parts of a group's NOTIFY statement (`WITH c AS (UPDATE clock …) SELECT pg_notify(…)`)
 * that read back what it wrote, in its own transaction, while it holds the clock row: `cte` to
 * add to its WITH, `payload` for pg_notify's payload (`payload`, a JSON object as text, with
 * the rows as `r` when `carry` and they fit within `max` bytes), and `select` to add after it,
 * so that the statement answers with the rows as JSON text (`rowsOfJson`).
 */
export function seededNotify(seed: Seed, payload: string, max: number, carry: boolean): { cte: string; payload: string; select: string } {
  const names = [...seed.collections].map((c) => pg.escapeLiteral(c));
  const rows = rangeSql(`ARRAY[${names.join(', ')}]::text[]`, String(seed.after), String(seed.upto));
  const base = pg.escapeLiteral(payload);
  // `{…}` becomes `{…,"r":[…]}`: the room left for the rows' JSON is known here, in bytes.
  const room = max - Buffer.byteLength(payload) - ',"r":'.length;
  const head = pg.escapeLiteral(`${payload.slice(0, -1)},"r":`);
  return {
    cte:
      ", r AS (SELECT coalesce(json_agg(json_build_array(q.collection, encode(q.id, 'hex'), q.body, q.meta, q.deleted, q.txn_id) " +
      `ORDER BY q.collection, q.txn_id, q.id)::text, '[]') AS j, count(*) AS n FROM (${rows}) AS q)`,
    payload: carry && room > 2 ? `CASE WHEN r.n <= ${PAYLOAD_ROWS} AND octet_length(r.j) <= ${room} THEN ${head} || r.j || '}' ELSE ${base} END` : base,
    select: ', r.j FROM r',
  };
}

/** The rows of `seededNotify` (its JSON text, or a payload's `r` parsed) as `rangeSql` gives them; undefined when malformed. */
export function rowsOfJson(r: unknown): unknown[][] | undefined {
  if (typeof r === 'string') {
    try {
      r = JSON.parse(r);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(r)) return undefined;
  const out: unknown[][] = [];
  for (const e of r as unknown[]) {
    if (!Array.isArray(e) || e.length !== 6) return undefined;
    const [collection, id, body, meta, deleted, txnId] = e as unknown[];
    if (typeof collection !== 'string' || typeof id !== 'string' || typeof body !== 'string' || typeof meta !== 'string') return undefined;
    if (typeof deleted !== 'boolean' || typeof txnId !== 'number') return undefined;
    out.push([collection, Buffer.from(id, 'hex'), body, meta, deleted, txnId]);
  }
  return out;
}

/**
 * The statement the worker runs when a commit's NOTIFY arrives, `$1` its payload (pg-storage.ts,
 * COMMIT_CHANNEL): the rows of the collections it names with txn_id in [f, t]. None for another
 * schema's commits, or a payload that names no collections.
 */
export function prefetchSql(schema: string): string {
  const p = '$1::jsonb';
  return rangeSql(
    `ARRAY(SELECT jsonb_array_elements_text(CASE WHEN ${p} ->> 's' = ${pg.escapeLiteral(schema)} AND jsonb_typeof(${p} -> 'c') = 'array' THEN ${p} -> 'c' END))`,
    `(${p} ->> 'f')::bigint - 1`,
    `(${p} ->> 't')::bigint`,
  );
}

/** All the rows of a collection with txn_id in (after, upto] (or, not `complete`, the first of them in order). */
interface KnownRange {
  readonly after: number;
  readonly upto: number;
  readonly rows: readonly Row[];
  readonly complete: boolean;
}

/**
 * Pages of `changedSince` read, or cut from known ranges, since the last commit this storage
 * knows of. Any commit (own, told or polled) empties it, then its known ranges may be given.
 */
export class ChangePageCache {
  static readonly MAX = 256;
  readonly #pages = new Map<string, ChangePage>();
  readonly #ranges = new Map<string, KnownRange>();
  #cut = 0;

  /** The page of `query`, from a read before or cut from a known range; undefined when a read must answer it. */
  get(query: ChangeQuery): ChangePage | undefined {
    const key = keyOf(query);
    const page = this.#pages.get(key);
    if (page !== undefined) return page;
    const range = this.#ranges.get(query.collection);
    const cut = range === undefined ? undefined : cutFrom(range, query);
    if (cut !== undefined) {
      this.#cut++;
      this.set(query, cut);
    }
    return cut;
  }

  set(query: ChangeQuery, page: ChangePage): void {
    if (this.#pages.size >= ChangePageCache.MAX) this.#pages.clear();
    this.#pages.set(keyOf(query), page);
  }

  /**
   * Gives what changed in (after, upto] in `collections`: `rows` as `rangeSql` reads them, as of
   * a snapshot at or after `upto` no older than this storage knows. When they were cut at
   * KNOWN_ROWS + 1, only the collections whose rows all came are known whole, the one cut short
   * as a prefix, and the others not at all.
   */
  know(collections: Iterable<string>, after: number, upto: number, rows: readonly unknown[][]): void {
    const found = new Map<string, Row[]>();
    for (const r of rows) {
      const collection = r[0] as string;
      let list = found.get(collection);
      if (list === undefined) found.set(collection, (list = []));
      list.push(r.slice(1) as Row);
    }
    const cut = rows.length > KNOWN_ROWS ? (rows[rows.length - 1]?.[0] as string) : undefined;
    for (const collection of collections) {
      const own = found.get(collection);
      // Cut short: a collection absent may come after the cut, in an order (collation) not known here.
      if (cut !== undefined && own === undefined) continue;
      this.#ranges.set(collection, { after, upto, rows: own ?? [], complete: collection !== cut });
    }
  }

  clear(): void {
    this.#pages.clear();
    this.#ranges.clear();
  }

  /** Pages cut from known ranges since open (tests, traces). */
  get pagesCut(): number {
    return this.#cut;
  }
}

function keyOf(query: ChangeQuery): string {
  return JSON.stringify([query.collection, query.afterTxnId, query.uptoTxnId, query.cursor?.txnId, query.cursor?.key, query.limit]);
}

/**
 * The page `changedSince` answers for `query`, from the range's rows: the same filter (txn_id in
 * (after, upto], past the cursor), the same order and the same next cursor. Undefined when the
 * query reaches outside the range, or past the rows of a range known only in part.
 */
function cutFrom(range: KnownRange, query: ChangeQuery): ChangePage | undefined {
  if (query.afterTxnId < range.after || query.uptoTxnId > range.upto) return undefined;
  const { cursor } = query;
  const fromCursor = cursor !== undefined && cursor.txnId > query.afterTxnId;
  if (fromCursor && typeof cursor.key !== 'string') return undefined; // the read says why
  const after = fromCursor ? Buffer.from(cursor.key as string, 'hex') : undefined;
  const picked: Row[] = [];
  for (const row of range.rows) {
    const txnId = row[4];
    if (txnId <= query.afterTxnId || txnId > query.uptoTxnId) continue;
    if (fromCursor && (txnId < cursor.txnId || (txnId === cursor.txnId && Buffer.compare(bufferOf(row[0]), after as Buffer) <= 0))) continue;
    picked.push(row);
    if (picked.length > query.limit) break;
  }
  // Fewer than limit + 1 from a prefix: the rows past it might belong in the page.
  if (picked.length <= query.limit && !range.complete) return undefined;
  return pageOf(picked, query.limit);
}
