/**
 * The overlap of an EVICT's condition and a subscription's, decided from the conditions: under
 * the rule that a range holds only within a type (issue 20), and with strings in code-point
 * order. A `disjoint` verdict lets the eviction skip looking at the documents, so it must never
 * be wrong: a property test checks it against the evaluator over values of every type.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../shared/json.ts';
import { matches, type Params } from '../dql/evaluate.ts';
import { parseCondition } from '../dql/parser.ts';
import { printExpr } from '../dql/print.ts';
import { seededRandom as prng } from '../../testing/seeded-random.ts';
import { conditionsOverlap } from './query-overlap.ts';

const TTL = { ttl: '2026-11-18T00:00:00.000Z' };
const verdict = (a: string, b: string, params: Params = TTL) => conditionsOverlap(parseCondition(a), params, parseCondition(b), params).kind;

describe('the overlap of two conditions', () => {
  it('finds an EVICT at or before the TTL and a subscription after it disjoint, and at the TTL overlapping', () => {
    expect(verdict('createdAt <= :ttl', 'createdAt > :ttl')).toBe('disjoint');
    expect(verdict('createdAt <= :ttl', 'createdAt >= :ttl')).toBe('overlap');
    expect(verdict('createdAt BETWEEN :ttl AND :ttl', 'createdAt < :ttl')).toBe('disjoint');
  });

  it('finds a field compared with a string on one side and a number or boolean on the other disjoint: no value is of both types', () => {
    const both = conditionsOverlap(parseCondition('createdAt <= :ttl'), TTL, parseCondition('createdAt > 5'), {});
    expect(both).toEqual({
      kind: 'disjoint',
      field: 'createdAt',
      explanation: 'createdAt is compared with values of different types, and no value is of both',
    });
    expect(verdict('createdAt <= :ttl', 'createdAt = 1700000000000')).toBe('disjoint');
    expect(verdict('createdAt <= :ttl AND evictionFlag = false', 'createdAt = true')).toBe('disjoint');
    expect(verdict("x = 'a'", 'x = 1')).toBe('disjoint');
  });

  it('orders strings by code point, as the storages do: U+FFFF comes before an emoji', () => {
    // '\u{10000}' is above U+FFFF and below U+1F600, so it satisfies both.
    expect(verdict("x <= '\u{1F600}'", "x > '\uffff'")).toBe('overlap');
    expect(verdict("x > '\u{1F600}'", "x <= '\uffff'")).toBe('disjoint');
  });

  it('leaves a range over booleans, and shapes it does not know, to the documents', () => {
    expect(verdict('flag > false', 'flag < true')).toBe('unknown');
    expect(verdict('NOT (createdAt <= :ttl)', 'createdAt <= :ttl')).toBe('unknown');
    expect(verdict('createdAt <= :ttl OR x = 1', 'createdAt > :ttl')).toBe('unknown');
  });

  it('never says disjoint where a document of any type satisfies both conditions (3,000 random pairs)', () => {
    const values: JsonValue[] = [false, true, -1, 0, 0.5, 3, '', 'a', 'b', '\uffff', '\u{10000}', '\u{1F600}', null];
    const ops = ['=', '<', '<=', '>', '>='];
    const r = prng(2026);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;
    const atom = (): string => `${pick(['x', 'y'])} ${pick(ops)} ${JSON.stringify(pick(values.filter((v) => v !== null)))}`;
    const conjunction = (): string => Array.from({ length: 1 + Math.floor(r() * 3) }, atom).join(' AND ');
    let disjoint = 0;
    for (let i = 0; i < 3000; i++) {
      const a = parseCondition(conjunction());
      const b = parseCondition(conjunction());
      if (conditionsOverlap(a, {}, b, {}).kind !== 'disjoint') continue;
      disjoint++;
      for (const x of values) {
        for (const y of values) {
          const doc = { _id: 1, x, y };
          if (matches(a, doc, {}) && matches(b, doc, {})) expect.fail(`${printExpr(a)} and ${printExpr(b)} both select ${JSON.stringify(doc)}`);
        }
      }
    }
    expect(disjoint).toBeGreaterThan(500);
  });
});
