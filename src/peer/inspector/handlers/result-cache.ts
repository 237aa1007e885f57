/**
 * The SELECT results one session keeps on the peer, so that a result of 100,000 documents is
 * paged across the bridge rather than sent at once. A few are kept (the least recently used is
 * dropped first); an id that was dropped, or never given, is `inspector/not-found`.
 */
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../../shared/json.ts';
import { notFound } from './input.ts';

/** Results one session keeps. */
export const RESULTS_KEPT = 4;

export interface CachedResult {
  readonly statement: string;
  readonly rows: readonly JsonObject[];
}

export class ResultCache {
  readonly #results = new Map<string, CachedResult>();
  readonly #capacity: number;

  constructor(capacity = RESULTS_KEPT) {
    this.#capacity = capacity;
  }

  /** Keeps a result under a new random id, dropping the least recently used beyond capacity. */
  put(result: CachedResult): string {
    const id = randomUUID();
    this.#results.set(id, result);
    while (this.#results.size > this.#capacity) this.#results.delete(this.#results.keys().next().value as string);
    return id;
  }

  /** The result (now the most recently used), or `inspector/not-found`. */
  get(id: string): CachedResult {
    const result = this.#results.get(id);
    if (result === undefined) {
      throw notFound(`resultId: no result ${JSON.stringify(id.slice(0, 64))} is kept: it expired (a session keeps its ${this.#capacity} most recent results) or was never given; run the query again`);
    }
    this.#results.delete(id);
    this.#results.set(id, result);
    return result;
  }

  get size(): number {
    return this.#results.size;
  }

  clear(): void {
    this.#results.clear();
  }
}
