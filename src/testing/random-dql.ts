/**
 * Seeded random documents holding every JSON type and random DQL conditions and orders over
 * them, for the differential tests of the SQL translations (SQLite's and PostgreSQL's) against
 * the reference evaluator.
 */
import type { JsonObject, JsonValue } from '../shared/json.ts';
import type { ComparisonOp, Expr, OrderTerm } from '../peer/dql/ast.ts';

export const POS = { line: 1, column: 1, offset: 0 };

export const STRINGS = ['', 'a', 'A', 'ab', 'b', 'abc', 'é', 'z', '\uffff', '\u{1F600}', 'a%b', 'a_b', "it's", '10', 'true', 'null'];
export const FIELDS = ['x', 'y', 'z'];

export function randomScalar(r: () => number): JsonValue {
  const k = Math.floor(r() * 8);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor(r() * 7) - 3;
    case 3:
      return Math.floor(r() * 7) - 3 + 0.5;
    default:
      return STRINGS[Math.floor(r() * STRINGS.length)] as string;
  }
}

export function randomValue(r: () => number, depth = 0): JsonValue {
  const k = r();
  if (depth < 2 && k < 0.1) return [randomScalar(r), randomScalar(r)].slice(0, Math.floor(r() * 3));
  if (depth < 2 && k < 0.18) return { p: randomValue(r, depth + 1), ...(r() < 0.5 ? { q: randomScalar(r) } : {}) };
  return randomScalar(r);
}

export function randomDoc(r: () => number, i: number): JsonObject {
  const doc: JsonObject = { _id: i % 7 === 0 ? i : `d${String(i).padStart(3, '0')}` };
  for (const f of FIELDS) if (r() < 0.8) doc[f] = randomValue(r);
  return doc;
}

export const path = (...segments: (string | number)[]): Expr => ({ kind: 'path', segments, pos: POS });
export const lit = (value: JsonValue): Expr => ({ kind: 'literal', value, pos: POS });

export function randomOperand(r: () => number): Expr {
  const k = r();
  if (k < 0.45) return path(FIELDS[Math.floor(r() * 3)] as string);
  if (k < 0.5) return path('x', 'p');
  if (k < 0.53) return path('y', 0);
  if (k < 0.56) return path('_id');
  if (k < 0.9) return lit(randomValue(r));
  if (k < 0.95) return { kind: 'binary', op: '+', left: path('x'), right: lit(1), pos: POS };
  return {
    kind: 'call',
    name: ['upper', 'length', 'coalesce', 'type'][Math.floor(r() * 4)] as string,
    args: [path('y')],
    star: false,
    distinct: false,
    pos: POS,
  };
}

export function randomCondition(r: () => number, depth = 0): Expr {
  const k = r();
  if (depth < 2 && k < 0.12)
    return { kind: 'binary', op: r() < 0.5 ? 'AND' : 'OR', left: randomCondition(r, depth + 1), right: randomCondition(r, depth + 1), pos: POS };
  if (depth < 2 && k < 0.17) return { kind: 'unary', op: 'NOT', operand: randomCondition(r, depth + 1), pos: POS };
  if (k < 0.55) {
    const ops: ComparisonOp[] = ['=', '!=', '<', '<=', '>', '>='];
    return { kind: 'binary', op: ops[Math.floor(r() * 6)] as ComparisonOp, left: randomOperand(r), right: randomOperand(r), pos: POS };
  }
  if (k < 0.67) {
    const items = Array.from({ length: Math.floor(r() * 4) }, () => randomScalar(r));
    const haystack = r() < 0.8 ? lit(items) : path('y');
    return { kind: 'in', negated: r() < 0.3, needle: r() < 0.2 ? path('_id') : path(FIELDS[Math.floor(r() * 3)] as string), haystack, pos: POS };
  }
  if (k < 0.77) {
    const patterns = ['a%', '%b', 'a_b', '%', '_', 'A%', 'é', '%\u{1F600}%', 'a[b', '*'];
    return {
      kind: 'like',
      negated: r() < 0.3,
      caseInsensitive: r() < 0.3,
      value: path(FIELDS[Math.floor(r() * 3)] as string),
      pattern: r() < 0.9 ? lit(patterns[Math.floor(r() * patterns.length)] as string) : lit(5),
      pos: POS,
    };
  }
  if (k < 0.85) return { kind: 'between', negated: r() < 0.3, value: randomOperand(r), low: lit(randomScalar(r)), high: lit(randomScalar(r)), pos: POS };
  if (k < 0.95) return { kind: 'is', negated: r() < 0.5, test: r() < 0.5 ? 'NULL' : 'MISSING', value: randomOperand(r), pos: POS };
  return path(FIELDS[Math.floor(r() * 3)] as string);
}

export function randomOrder(r: () => number): OrderTerm[] {
  return Array.from({ length: Math.floor(r() * 3) }, () => ({
    expr: r() < 0.85 ? path(FIELDS[Math.floor(r() * 3)] as string) : randomOperand(r),
    direction: r() < 0.5 ? ('ASC' as const) : ('DESC' as const),
  }));
}

export const RANGE_OPS: ComparisonOp[] = ['<', '<=', '>', '>='];
export const param = (name: string): Expr => ({ kind: 'param', name, pos: POS });
/** Bound by every range query: a TTL string, a number, a boolean, an array, an object, null. */
export const RANGE_PARAMS = { ttl: 'b', n: 0.5, f: false, a: [1], o: { p: 1 }, nil: null };

/** An operand of a range comparison: a field of any type, or a constant or argument of any type. */
export function randomRangeOperand(r: () => number): Expr {
  const k = r();
  if (k < 0.4) return path(FIELDS[Math.floor(r() * 3)] as string);
  if (k < 0.45) return path('x', 'p');
  if (k < 0.5) return path('_id');
  if (k < 0.8) return lit(randomValue(r));
  return param(Object.keys(RANGE_PARAMS)[Math.floor(r() * 6)] as string);
}

/** Range comparisons and BETWEEN, between values of every type, under NOT, AND and OR. */
export function randomRangeCondition(r: () => number, depth = 0): Expr {
  const k = r();
  if (depth < 2 && k < 0.15)
    return { kind: 'binary', op: r() < 0.5 ? 'AND' : 'OR', left: randomRangeCondition(r, depth + 1), right: randomRangeCondition(r, depth + 1), pos: POS };
  if (depth < 2 && k < 0.3) return { kind: 'unary', op: 'NOT', operand: randomRangeCondition(r, depth + 1), pos: POS };
  if (k < 0.8)
    return { kind: 'binary', op: RANGE_OPS[Math.floor(r() * 4)] as ComparisonOp, left: randomRangeOperand(r), right: randomRangeOperand(r), pos: POS };
  return { kind: 'between', negated: r() < 0.4, value: randomRangeOperand(r), low: randomRangeOperand(r), high: randomRangeOperand(r), pos: POS };
}
