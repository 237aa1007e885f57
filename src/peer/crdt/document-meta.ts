/**
 * Merge metadata of one document, kept beside its current value.
 *
 * Every leaf of a document is a last-writer-wins register stamped with a hybrid-clock time and
 * the writer's peer key. To keep the metadata small, a register without its own stamp takes
 * the stamp of its closest ancestor path that has one, and the document's creation stamp `c`
 * at the top: a fresh INSERT stores a single stamp. Objects are maps of registers; arrays and
 * scalars are whole registers. `r` remembers removed paths (UNSET) so that a removal can win a
 * merge; `n` holds counters as per-writer tallies `[increments, decrements]` summed on read;
 * `d` is the deletion stamp of a tombstone (a live document has `c` after `d`).
 */
import type { Hlc } from './hlc.ts';

/** A register's stamp: when (hybrid clock) and who (writer peer key). */
export type Stamp = readonly [hlc: Hlc, writer: string];

export interface CounterState {
  /** When the counter replaced what the path held before. */
  readonly s: Stamp;
  /** Per-writer tallies: `[sum of increments, sum of decrements]`. */
  readonly t: Readonly<Record<string, readonly [number, number]>>;
}

export interface DocumentMeta {
  readonly c: Stamp;
  readonly d?: Stamp;
  readonly f?: Readonly<Record<string, Stamp>>;
  readonly r?: Readonly<Record<string, Stamp>>;
  readonly n?: Readonly<Record<string, CounterState>>;
}

/** The key of a path in the metadata maps. */
export function pathKey(segments: readonly (string | number)[]): string {
  return JSON.stringify(segments);
}

/** Is `key` the path `prefix` itself or a path below it? */
export function isAtOrBelow(key: string, prefix: string): boolean {
  return key === prefix || key.startsWith(prefix.slice(0, -1) + ',');
}

/** The sum a counter reads as. */
export function counterValue(counter: CounterState): number {
  let sum = 0;
  for (const [inc, dec] of Object.values(counter.t)) sum += inc - dec;
  return sum === 0 ? 0 : sum;
}
