import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../shared/json.ts';
import { seededRandom as prng } from '../../testing/seeded-random.ts';
import { sortKey } from './sort-key.ts';
import { MISSING, compareForPredicate, compareStrings, compareTotal, comparisonTruth, sameType, valuesEqual, type Value } from './values.ts';

const STRINGS = ['', 'a', 'a\u0000', 'a\u0000b', 'ab', 'B', '\uffff', '\u{1F600}', '\u{10FFFF}', 'é', 'e\u0301'];

function randomValue(r: () => number, depth = 0): JsonValue {
  const k = r();
  if (k < 0.1) return null;
  if (k < 0.2) return r() < 0.5;
  if (k < 0.45) return [0, -0, 1, -1, 1.5, -1e300, 1e300, 5e-324, 2 ** 53, -(2 ** 53)][Math.floor(r() * 10)] as number;
  if (k < 0.7) return STRINGS[Math.floor(r() * STRINGS.length)] as string;
  if (depth < 3 && k < 0.85) return Array.from({ length: Math.floor(r() * 3) }, () => randomValue(r, depth + 1));
  if (depth < 3) {
    const o: Record<string, JsonValue> = {};
    for (const key of ['b', 'a', 'ab', '']) if (r() < 0.4) o[key] = randomValue(r, depth + 1);
    return o;
  }
  return 'leaf';
}

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('the cross-type order', () => {
  it('ranks false < true < numbers < strings < arrays < objects < null < MISSING', () => {
    const ordered: Value[] = [false, true, -1, 0, 2.5, '', 'a', [], [1], {}, { a: 1 }, null, MISSING];
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) expect(sign(compareTotal(ordered[i] as Value, ordered[j] as Value))).toBe(sign(i - j));
    }
  });

  it('compares strings by code point, which is UTF-8 byte order', () => {
    expect(compareStrings('\uffff', '\u{1F600}')).toBeLessThan(0);
    expect('\uffff' < '\u{1F600}').toBe(false); // UTF-16 order would say the opposite
    expect(compareStrings('B', 'a')).toBeLessThan(0);
    expect(compareStrings('a', 'a\u0000')).toBeLessThan(0);
  });

  it('treats 10 and 10.0 as equal and -0 as 0, but never a number as a string', () => {
    expect(valuesEqual(10, 10.0)).toBe(true);
    expect(valuesEqual(-0, 0)).toBe(true);
    expect(valuesEqual(10, '10')).toBe(false);
    expect(valuesEqual(1, true)).toBe(false);
  });

  it('compares objects whatever the order of their keys', () => {
    expect(valuesEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(compareTotal({ a: 1 }, { a: 1, b: 0 })).toBeLessThan(0);
    expect(compareTotal({ a: 2 }, { b: 1 })).toBeLessThan(0);
  });

  it('answers unknown (null) for comparisons with null or MISSING', () => {
    expect(compareForPredicate(null, null)).toBeNull();
    expect(compareForPredicate(1, MISSING)).toBeNull();
    expect(compareForPredicate(MISSING, MISSING)).toBeNull();
    expect(compareForPredicate('a', 1)).toBe(1);
  });
});

describe('the comparison operators', () => {
  const ONE_OF_EACH: Value[] = [false, true, 1, 'a', [1], { a: 1 }, null, MISSING];

  it('make a range true or false only between two values of one type, the booleans being one type', () => {
    expect(sameType(false, true)).toBe(true);
    expect(sameType(1, 2.5)).toBe(true);
    expect(sameType(1, '1')).toBe(false);
    expect(sameType([], {})).toBe(false);
    for (const op of ['<', '<=', '>', '>=']) {
      for (const a of ONE_OF_EACH) {
        for (const b of ONE_OF_EACH) {
          const known = a !== null && a !== MISSING && b !== null && b !== MISSING && sameType(a, b);
          expect(comparisonTruth(op, a, b) === null, `${String(a)} ${op} ${String(b)}`).toBe(!known);
        }
      }
    }
    expect(comparisonTruth('>', true, false)).toBe(true);
    expect(comparisonTruth('<=', 'a', 'b')).toBe(true);
    expect(comparisonTruth('>=', [1], [1, 2])).toBe(false);
  });

  it('leave = and != comparing any two values: known between different types, unknown with null or MISSING', () => {
    expect(comparisonTruth('=', 1, '1')).toBe(false);
    expect(comparisonTruth('!=', 1, '1')).toBe(true);
    expect(comparisonTruth('!=', true, 1)).toBe(true);
    expect(comparisonTruth('=', null, null)).toBeNull();
    expect(comparisonTruth('!=', 1, MISSING)).toBeNull();
  });
});

describe('the order-preserving sort key', () => {
  it('orders keys bytewise exactly as compareTotal orders the values (5,000 random pairs)', () => {
    const r = prng(7);
    for (let i = 0; i < 5000; i++) {
      const a = randomValue(r);
      const b = randomValue(r);
      expect(sign(Buffer.compare(sortKey(a), sortKey(b))), JSON.stringify([a, b])).toBe(sign(compareTotal(a, b)));
    }
  });

  it('gives equal values equal keys, and MISSING the greatest key', () => {
    expect(sortKey({ a: 1, b: 2 }).equals(sortKey({ b: 2, a: 1.0 }))).toBe(true);
    expect(sortKey(-0).equals(sortKey(0))).toBe(true);
    expect(Buffer.compare(sortKey(null), sortKey(MISSING))).toBeLessThan(0);
  });

  it('uses the same key for a plain ASCII string on the fast path as on the general one', () => {
    expect(sortKey('abc')).toEqual(Buffer.from([0x04, 0x61, 0x62, 0x63, 0, 0]));
    expect(Buffer.compare(sortKey('abc'), sortKey('abc\u0000'))).toBeLessThan(0);
  });
});
