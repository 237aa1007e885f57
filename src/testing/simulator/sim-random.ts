/**
 * The simulator's one source of randomness: a seeded mulberry32 stream (src/testing/seeded-random.ts)
 * with the few draws the simulator needs. Everything random in a run (which action, which peer,
 * which value, latencies, keys) is drawn from it in a fixed order, so that a seed replays the
 * same run step for step.
 */
import { seededRandom } from '../seeded-random.ts';

export class SimRandom {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = seededRandom(seed);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.#next();
  }

  /** A whole number in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.#next() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.#next() < p;
  }

  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new RangeError('pick from an empty list');
    return list[Math.floor(this.#next() * list.length)] as T;
  }

  /** One of the keys, with probability proportional to its weight. */
  weighted<K extends string>(table: Readonly<Record<K, number>>): K {
    const entries = Object.entries(table) as [K, number][];
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let roll = this.#next() * total;
    for (const [key, weight] of entries) {
      roll -= weight;
      if (roll < 0) return key;
    }
    return (entries[entries.length - 1] as [K, number])[0];
  }

  /** 32 random bytes (key seeds). */
  bytes32(): Buffer {
    const out = Buffer.alloc(32);
    for (let i = 0; i < 32; i++) out[i] = Math.floor(this.#next() * 256);
    return out;
  }
}
