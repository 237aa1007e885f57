/**
 * mulberry32: a small seeded pseudo-random generator with uniform output in [0, 1). Tests,
 * benchmarks and anything that takes injected randomness use it, so that every run, and every
 * failure, is reproducible from its seed. Not for cryptography.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
