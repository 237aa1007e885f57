/**
 * The SELECT results one session keeps on the peer, so that a result of 100,000 documents is
 * paged across the bridge rather than sent at once. A few are kept (the least recently used is
 * dropped first); an id that was dropped, or never given, is `inspector/not-found`.
 *
 * Memory is bounded, not only the count (this lives in the Electron main process or the
 * `syncmesh inspect` process):
 * - A session keeps at most `rowsPerSession` rows and about `bytesPerSession` bytes (each row
 *   counted as its JSON text) over all its results; older results are dropped to make room.
 * - A result larger than that on its own keeps only its first rows that fit: it is marked
 *   `truncated` and its `total` counts the rows kept.
 * - Every session of one inspector together keeps at most about `bytesOverall`; beyond it, the
 *   least recently used result of any session is dropped.
 */
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../../shared/json.ts';
import { closedError, notFound } from './input.ts';

/** Results one session keeps. */
export const RESULTS_KEPT = 4;

export interface ResultLimits {
  /** Rows a session keeps over all its results. */
  readonly rowsPerSession: number;
  /** Bytes (rows as JSON text, about) a session keeps over all its results. */
  readonly bytesPerSession: number;
  /** Bytes every session of one inspector keeps together. */
  readonly bytesOverall: number;
}

export const DEFAULT_RESULT_LIMITS: ResultLimits = {
  rowsPerSession: 250_000,
  bytesPerSession: 64 * 1024 * 1024,
  bytesOverall: 256 * 1024 * 1024,
};

/** What a row costs beyond its JSON text (the array slot, the object), roughly. */
const ROW_OVERHEAD_BYTES = 64;

export interface CachedResult {
  readonly statement: string;
  readonly rows: readonly JsonObject[];
  /** True when the statement returned more rows than were kept. */
  readonly truncated: boolean;
}

interface Entry {
  readonly result: CachedResult;
  readonly bytes: number;
  readonly owner: ResultCache;
  readonly id: string;
}

/** The bytes kept by every session of one inspector, least recently used first. */
export class ResultBudget {
  readonly limits: ResultLimits;
  readonly #entries = new Set<Entry>();
  #bytes = 0;

  constructor(limits: Partial<ResultLimits> = {}) {
    const merged = { ...DEFAULT_RESULT_LIMITS, ...limits };
    this.limits = { ...merged, bytesOverall: Math.max(merged.bytesOverall, merged.bytesPerSession) };
  }

  get bytes(): number {
    return this.#bytes;
  }

  add(entry: Entry): void {
    this.#entries.add(entry);
    this.#bytes += entry.bytes;
    for (const oldest of this.#entries) {
      if (this.#bytes <= this.limits.bytesOverall) break;
      if (oldest !== entry) oldest.owner.drop(oldest.id);
    }
  }

  touch(entry: Entry): void {
    if (!this.#entries.delete(entry)) return;
    this.#entries.add(entry);
  }

  remove(entry: Entry): void {
    if (this.#entries.delete(entry)) this.#bytes -= entry.bytes;
  }
}

export class ResultCache {
  readonly #results = new Map<string, Entry>();
  readonly #capacity: number;
  readonly #budget: ResultBudget;
  #rows = 0;
  #bytes = 0;
  #closed = false;

  constructor(budget: ResultBudget = new ResultBudget(), capacity = RESULTS_KEPT) {
    this.#budget = budget;
    this.#capacity = capacity;
  }

  /**
   * Keeps the first rows of a result that fit this session's limits under a new random id,
   * dropping the least recently used results beyond them. Refused once the cache is cleared.
   */
  put(statement: string, rows: readonly JsonObject[]): { id: string; result: CachedResult } {
    if (this.#closed) throw closedError('documents:query: this inspector session is closed; no result is kept');
    const { rowsPerSession, bytesPerSession } = this.#budget.limits;
    let bytes = 0;
    let kept = 0;
    for (const row of rows) {
      if (kept >= rowsPerSession) break;
      const size = ROW_OVERHEAD_BYTES + 2 * (JSON.stringify(row)?.length ?? 0);
      if (bytes + size > bytesPerSession) break;
      bytes += size;
      kept++;
    }
    const truncated = kept < rows.length;
    const result: CachedResult = { statement, rows: truncated ? rows.slice(0, kept) : rows, truncated };
    while (this.#results.size > 0 && (this.#results.size >= this.#capacity || this.#rows + kept > rowsPerSession || this.#bytes + bytes > bytesPerSession)) {
      this.drop(this.#results.keys().next().value as string);
    }
    const id = randomUUID();
    const entry: Entry = { result, bytes, owner: this, id };
    this.#results.set(id, entry);
    this.#rows += kept;
    this.#bytes += bytes;
    this.#budget.add(entry);
    return { id, result };
  }

  /** The result (now the most recently used), or `inspector/not-found`. */
  get(id: string): CachedResult {
    const entry = this.#results.get(id);
    if (entry === undefined) {
      throw notFound(
        `resultId: no result ${JSON.stringify(id.slice(0, 64))} is kept: it expired (a session keeps its ${this.#capacity} most recent results, within a memory budget) or was never given; run the query again`,
      );
    }
    this.#results.delete(id);
    this.#results.set(id, entry);
    this.#budget.touch(entry);
    return entry.result;
  }

  /** Forgets one result (the least recently used, to make room). */
  drop(id: string): void {
    const entry = this.#results.get(id);
    if (entry === undefined) return;
    this.#results.delete(id);
    this.#rows -= entry.result.rows.length;
    this.#bytes -= entry.bytes;
    this.#budget.remove(entry);
  }

  get size(): number {
    return this.#results.size;
  }

  /** Bytes kept now (about). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Forgets every result and keeps no more (the session closed). */
  clear(): void {
    this.#closed = true;
    for (const id of [...this.#results.keys()]) this.drop(id);
  }
}
