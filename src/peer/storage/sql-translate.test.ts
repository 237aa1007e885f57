/**
 * Differential test: SQLite, running the translated SQL, must return exactly what the reference
 * evaluator returns, for random documents holding every type and random conditions and orders.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { ComparisonOp, Expr } from '../dql/ast.ts';
import { evaluate } from '../dql/evaluate.ts';
import { sortKey } from '../dql/sort-key.ts';
import { MISSING, compareTotal, type Value } from '../dql/values.ts';
import { seededRandom as prng } from '../../testing/seeded-random.ts';
import { POS, RANGE_OPS, RANGE_PARAMS, lit, param, path, randomCondition, randomDoc, randomOrder, randomRangeCondition } from '../../testing/random-dql.ts';
import { runQuery } from './js-query.ts';
import { SqlTranslator } from './sql-translate.ts';
import { SqliteStorage } from './sqlite-storage.ts';
import type { DocumentQuery } from './types.ts';

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
