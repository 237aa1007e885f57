/**
 * Generated document ids: 32 hexadecimal characters laid out as a UUID version 7 (48 bits of
 * milliseconds, then random bits), so that documents inserted later sort later in `_id` order.
 */
import { randomFillSync } from 'node:crypto';

export type IdGenerator = () => string;

export function createIdGenerator(now: () => number, fillRandom: (bytes: Uint8Array) => void = randomFillSync): IdGenerator {
  const pool = new Uint8Array(10 * 256);
  let used = pool.length;
  return () => {
    if (used === pool.length) {
      fillRandom(pool);
      used = 0;
    }
    const random = pool.subarray(used, used + 10);
    used += 10;
    const ms = Math.max(0, Math.floor(now()));
    let hex = ms.toString(16).padStart(12, '0').slice(-12);
    hex += '7' + ((random[0] as number) & 0x0f).toString(16) + (random[1] as number).toString(16).padStart(2, '0');
    hex += (0x80 | ((random[2] as number) & 0x3f)).toString(16);
    for (let i = 3; i < 10; i++) hex += (random[i] as number).toString(16).padStart(2, '0');
    return hex;
  };
}
