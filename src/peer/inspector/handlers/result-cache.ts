/**
 * The SELECT results one session keeps on the peer, so that a result of 100,000 documents is
 * paged across the bridge rather than sent at once. A few are kept (the least recently used is
 * dropped first); an id that was dropped, or never given, is `inspector/not-found`.
 *
 * Memory is bounded, not only the count (this lives in the Electron main process or the
 * `syncmesh inspect` process):
 * - A session keeps at most `rowsPerSession` rows and about `bytesPerSession` bytes (each row
 *   counted as its JSON text) over all its results; older results are dropped to make room.
 * - A result larger than that on its own keeps only one window of its rows that fit (the first
 *   ones for a new run): it is marked `truncated` and its `total` counts the rows kept;
 *   `documents:window` runs the statement again for the next or previous window
 *   (result-window.ts).
 * - Every session of one inspector together keeps at most about `bytesOverall`; beyond it, the
 *   least recently used result of any session is dropped.
 */
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../../shared/json.ts';
import { closedError, notFound } from './input.ts';
import { FROM_START, fitWindow, type WindowPlacement, type WindowRequest } from './result-window.ts';

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

export interface CachedResult {
  readonly statement: string;
  /** The statement's named arguments, to run it again for another window. */
  readonly args: JsonObject;
  /** The window kept: rows `start` … `start + rows.length - 1` of the statement's rows. */
  readonly rows: readonly JsonObject[];
  readonly start: number;
  /** Rows the statement returned when this window was taken. */
  readonly statementRows: number;
  /** True when the statement returned more rows than were kept. */
  readonly truncated: boolean;
  /** The limit that stopped the window short, if one did. */
  readonly cutBy: 'bytes' | 'rows' | null;
  readonly placedBy: WindowPlacement;
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
   * Keeps the rows of a result that fit this session's limits (the first ones, or the window
   * `request` asks for) under a new random id, dropping the least recently used results beyond
   * them. Refused once the cache is cleared.
   */
  put(statement: string, rows: readonly JsonObject[], args: JsonObject = {}, request: WindowRequest = FROM_START): { id: string; result: CachedResult } {
    if (this.#closed) throw closedError('documents:query: this inspector session is closed; no result is kept');
    const { rowsPerSession, bytesPerSession } = this.#budget.limits;
    const window = fitWindow(rows, request, { rows: rowsPerSession, bytes: bytesPerSession });
    const kept = window.count;
    const bytes = window.bytes;
    const truncated = kept < rows.length;
    const result: CachedResult = {
      statement,
      args,
      rows: truncated ? rows.slice(window.start, window.start + kept) : rows,
      start: window.start,
      statementRows: rows.length,
      truncated,
      cutBy: window.cutBy,
      placedBy: request.placedBy,
    };
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

  /** What one session keeps at most. */
  get limits(): ResultLimits {
    return this.#budget.limits;
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
