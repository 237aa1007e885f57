/**
 * Differential test: SQLite, running the translated SQL, must return exactly what the reference
 * evaluator returns, for random documents holding every type and random conditions and orders.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { ComparisonOp, Expr, OrderTerm } from '../dql/ast.ts';
import { evaluate } from '../dql/evaluate.ts';
import { sortKey } from '../dql/sort-key.ts';
import { MISSING, compareTotal, type Value } from '../dql/values.ts';
import { seededRandom as prng } from '../../testing/seeded-random.ts';
import { runQuery } from './js-query.ts';
import { SqlTranslator } from './sql-translate.ts';
import { SqliteStorage } from './sqlite-storage.ts';
import type { DocumentQuery } from './types.ts';

const POS = { line: 1, column: 1, offset: 0 };

const STRINGS = ['', 'a', 'A', 'ab', 'b', 'abc', 'é', 'z', '\uffff', '\u{1F600}', 'a%b', 'a_b', "it's", '10', 'true', 'null'];
const FIELDS = ['x', 'y', 'z'];

function randomScalar(r: () => number): JsonValue {
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

function randomValue(r: () => number, depth = 0): JsonValue {
  const k = r();
  if (depth < 2 && k < 0.1) return [randomScalar(r), randomScalar(r)].slice(0, Math.floor(r() * 3));
  if (depth < 2 && k < 0.18) return { p: randomValue(r, depth + 1), ...(r() < 0.5 ? { q: randomScalar(r) } : {}) };
  return randomScalar(r);
}

function randomDoc(r: () => number, i: number): JsonObject {
  const doc: JsonObject = { _id: i % 7 === 0 ? i : `d${String(i).padStart(3, '0')}` };
  for (const f of FIELDS) if (r() < 0.8) doc[f] = randomValue(r);
  return doc;
}

const path = (...segments: (string | number)[]): Expr => ({ kind: 'path', segments, pos: POS });
const lit = (value: JsonValue): Expr => ({ kind: 'literal', value, pos: POS });

function randomOperand(r: () => number): Expr {
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

function randomCondition(r: () => number, depth = 0): Expr {
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

function randomOrder(r: () => number): OrderTerm[] {
  return Array.from({ length: Math.floor(r() * 3) }, () => ({
    expr: r() < 0.85 ? path(FIELDS[Math.floor(r() * 3)] as string) : randomOperand(r),
    direction: r() < 0.5 ? ('ASC' as const) : ('DESC' as const),
  }));
}

const RANGE_OPS: ComparisonOp[] = ['<', '<=', '>', '>='];
const param = (name: string): Expr => ({ kind: 'param', name, pos: POS });
/** Bound by every range query: a TTL string, a number, a boolean, an array, an object, null. */
const RANGE_PARAMS = { ttl: 'b', n: 0.5, f: false, a: [1], o: { p: 1 }, nil: null };

/** An operand of a range comparison: a field of any type, or a constant or argument of any type. */
function randomRangeOperand(r: () => number): Expr {
  const k = r();
  if (k < 0.4) return path(FIELDS[Math.floor(r() * 3)] as string);
  if (k < 0.45) return path('x', 'p');
  if (k < 0.5) return path('_id');
  if (k < 0.8) return lit(randomValue(r));
  return param(Object.keys(RANGE_PARAMS)[Math.floor(r() * 6)] as string);
}

/** Range comparisons and BETWEEN, between values of every type, under NOT, AND and OR. */
function randomRangeCondition(r: () => number, depth = 0): Expr {
  const k = r();
  if (depth < 2 && k < 0.15)
    return { kind: 'binary', op: r() < 0.5 ? 'AND' : 'OR', left: randomRangeCondition(r, depth + 1), right: randomRangeCondition(r, depth + 1), pos: POS };
  if (depth < 2 && k < 0.3) return { kind: 'unary', op: 'NOT', operand: randomRangeCondition(r, depth + 1), pos: POS };
  if (k < 0.8)
    return { kind: 'binary', op: RANGE_OPS[Math.floor(r() * 4)] as ComparisonOp, left: randomRangeOperand(r), right: randomRangeOperand(r), pos: POS };
  return { kind: 'between', negated: r() < 0.4, value: randomRangeOperand(r), low: randomRangeOperand(r), high: randomRangeOperand(r), pos: POS };
}

describe('the SQLite translation of conditions and ORDER BY', () => {
  let dir: string;
  let storage: SqliteStorage;
  let docs: JsonObject[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqltr-'));
    storage = SqliteStorage.open(dir);
    const r = prng(42);
    docs = Array.from({ length: 160 }, (_, i) => randomDoc(r, i));
    storage.write((w) => {
      for (const doc of docs) w.put('c', { id: doc._id as JsonValue, value: doc, meta: { c: ['0000000000000000' as never, 'me'] }, txnId: 1 });
    });
  });
  afterAll(() => {
    storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function reference(q: DocumentQuery): JsonObject[] {
    return runQuery(
      docs,
      (d) => d,
      (d) => sortKey(d._id as JsonValue),
      q,
    );
  }

  it.each(Array.from({ length: 40 }, (_, i) => i + 1))('agrees with the reference evaluator on random queries (seed %i)', (seed) => {
    const r = prng(seed * 7919);
    for (let i = 0; i < 25; i++) {
      const q: DocumentQuery = {
        collection: 'c',
        where: randomCondition(r),
        params: {},
        orderBy: randomOrder(r),
        limit: r() < 0.3 ? Math.floor(r() * 20) : undefined,
        offset: r() < 0.2 ? Math.floor(r() * 10) : 0,
      };
      // The translation must not give up: everything generated here is expressible in SQL.
      expect(() => new SqlTranslator({}).condition(q.where as Expr)).not.toThrow();
      const got = storage.read((reader) => reader.findValues(q));
      expect(
        got,
        JSON.stringify({ where: q.where, orderBy: q.orderBy }, (k, v: unknown) => (k === 'pos' ? undefined : v)),
      ).toEqual(reference(q));
    }
  });

  it.each(Array.from({ length: 20 }, (_, i) => i + 1))(
    'agrees with the reference evaluator on random range comparisons between every type (seed %i)',
    (seed) => {
      const r = prng(seed * 104729);
      for (let i = 0; i < 40; i++) {
        const q: DocumentQuery = { collection: 'c', where: randomRangeCondition(r), params: RANGE_PARAMS, orderBy: [], limit: undefined, offset: 0 };
        expect(() => new SqlTranslator(RANGE_PARAMS).condition(q.where as Expr)).not.toThrow();
        const got = storage.read((reader) => reader.findValues(q));
        expect(
          got,
          JSON.stringify(q.where, (k, v: unknown) => (k === 'pos' ? undefined : v)),
        ).toEqual(reference(q));
      }
    },
  );

  it('orders every type in the cross-type order, ascending and descending', () => {
    for (const direction of ['ASC', 'DESC'] as const) {
      const q: DocumentQuery = { collection: 'c', where: undefined, params: {}, orderBy: [{ expr: path('x'), direction }], limit: undefined, offset: 0 };
      expect(storage.read((reader) => reader.findValues(q))).toEqual(reference(q));
    }
  });

  it('looks up _id with the primary key rather than the body', () => {
    const t = new SqlTranslator({});
    expect(t.condition({ kind: 'binary', op: '=', left: path('_id'), right: lit('d001'), pos: POS })).toBe('(id = @b0)');
  });

  it('filters a path against a scalar without calling JavaScript', () => {
    const t = new SqlTranslator({ ttl: '2026-01-01T00:00:00.000Z' });
    const sql = t.condition({
      kind: 'binary',
      op: 'AND',
      left: { kind: 'binary', op: '<=', left: path('createdAt'), right: { kind: 'param', name: 'ttl', pos: POS }, pos: POS },
      right: { kind: 'binary', op: '=', left: path('evictionFlag'), right: lit(false), pos: POS },
      pos: POS,
    });
    expect(sql).not.toContain('dql_');
  });
});

/**
 * Every pair of types, every range operator, plain and under NOT, a field against a constant
 * (either side) and against another field: SQLite, the reference evaluator and the rule itself
 * give the same answer. The rule: true or false only between values of one type (the booleans
 * are one type, false < true), unknown for different types and for null or MISSING.
 */
describe('range comparisons between types in SQL and in JavaScript', () => {
  const VALUES: Value[] = [false, true, -1, 0, 2.5, '', '10', 'a', '\uffff', '\u{1F600}', [], [1], [1, 'a'], ['a'], {}, { a: 1 }, { b: 0 }, null, MISSING];
  const kind = (v: Value): string => (v === MISSING ? 'missing' : v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  /** The rule, written out independently of the code under test. */
  function expected(op: string, a: Value, b: Value): boolean | null {
    if (a === null || b === null || a === MISSING || b === MISSING || kind(a) !== kind(b)) return null;
    const c = compareTotal(a, b);
    return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
  }
  const not = (t: boolean | null): boolean | null => (t === null ? null : !t);

  let dir: string;
  let storage: SqliteStorage;
  const docs: JsonObject[] = VALUES.flatMap((a, i) =>
    VALUES.map((b, j): JsonObject => {
      const doc: JsonObject = { _id: i * 100 + j };
      if (a !== MISSING) doc.a = a;
      if (b !== MISSING) doc.b = b;
      return doc;
    }),
  );

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlrange-'));
    storage = SqliteStorage.open(dir);
    storage.write((w) => {
      for (const doc of docs) w.put('pairs', { id: doc._id as JsonValue, value: doc, meta: { c: ['0000000000000000' as never, 'me'] }, txnId: 1 });
    });
  });
  afterAll(() => {
    storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ids = (where: Expr, params: Record<string, JsonValue> = {}): JsonValue[] =>
    storage
      .read((reader) => reader.findValues({ collection: 'pairs', where, params, orderBy: [], limit: undefined, offset: 0 }))
      .map((d) => d._id as JsonValue);
  const cmp = (op: ComparisonOp, left: Expr, right: Expr): Expr => ({ kind: 'binary', op, left, right, pos: POS });
  const negated = (operand: Expr): Expr => ({ kind: 'unary', op: 'NOT', operand, pos: POS });

  it.each(RANGE_OPS)('answers a %s b between fields exactly as the rule says, and NOT of it too', (op) => {
    const where = cmp(op, path('a'), path('b'));
    const want = docs.filter((d) => expected(op, d.a ?? MISSING, d.b ?? MISSING) === true).map((d) => d._id);
    const wantNot = docs.filter((d) => not(expected(op, d.a ?? MISSING, d.b ?? MISSING)) === true).map((d) => d._id);
    expect(ids(where)).toEqual(want);
    expect(ids(negated(where))).toEqual(wantNot);
    expect(docs.filter((d) => evaluate(where, { doc: d, params: {} }) === true).map((d) => d._id)).toEqual(want);
    expect(docs.filter((d) => evaluate(negated(where), { doc: d, params: {} }) === true).map((d) => d._id)).toEqual(wantNot);
  });

  it.each(RANGE_OPS)('answers field %s constant, on either side and as an argument, exactly as the rule says', (op) => {
    const firstOfEach = docs.filter((d) => (d._id as number) % 100 === 0);
    for (const c of VALUES) {
      if (c === MISSING) continue;
      const want = firstOfEach.filter((d) => expected(op, d.a ?? MISSING, c) === true).map((d) => d._id);
      const wantNot = firstOfEach.filter((d) => not(expected(op, d.a ?? MISSING, c)) === true).map((d) => d._id);
      const flipped = ({ '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const)[op as '<'];
      const onlyFirst = (found: JsonValue[]): JsonValue[] => found.filter((id) => (id as number) % 100 === 0);
      const shown = JSON.stringify(c);
      expect(onlyFirst(ids(cmp(op, path('a'), lit(c)))), `a ${op} ${shown}`).toEqual(want);
      expect(onlyFirst(ids(cmp(flipped, lit(c), path('a')))), `${shown} ${flipped} a`).toEqual(want);
      expect(onlyFirst(ids(cmp(op, path('a'), param('c')), { c })), `a ${op} :c = ${shown}`).toEqual(want);
      expect(onlyFirst(ids(negated(cmp(op, path('a'), lit(c))))), `NOT (a ${op} ${shown})`).toEqual(wantNot);
    }
  });

  it('answers BETWEEN and NOT BETWEEN with bounds of every type as the two comparisons it stands for', () => {
    const firstOfEach = docs.filter((d) => (d._id as number) % 100 === 0);
    for (const lo of VALUES) {
      for (const hi of VALUES) {
        if (lo === MISSING || hi === MISSING) continue;
        const between = (negatedBetween: boolean): Expr => ({
          kind: 'between',
          negated: negatedBetween,
          value: path('a'),
          low: lit(lo),
          high: lit(hi),
          pos: POS,
        });
        const truth = (d: JsonObject): boolean | null => {
          const l = expected('>=', d.a ?? MISSING, lo);
          const h = expected('<=', d.a ?? MISSING, hi);
          return l === false || h === false ? false : l === null || h === null ? null : true;
        };
        const shown = `${JSON.stringify(lo)} AND ${JSON.stringify(hi)}`;
        const onlyFirst = (found: JsonValue[]): JsonValue[] => found.filter((id) => (id as number) % 100 === 0);
        expect(onlyFirst(ids(between(false))), `BETWEEN ${shown}`).toEqual(firstOfEach.filter((d) => truth(d) === true).map((d) => d._id));
        expect(onlyFirst(ids(between(true))), `NOT BETWEEN ${shown}`).toEqual(firstOfEach.filter((d) => not(truth(d)) === true).map((d) => d._id));
      }
    }
  });
});
