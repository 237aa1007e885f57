/**
 * Differential test of the PostgreSQL translation: PostgreSQL, running the translated SQL, must
 * return exactly what the reference evaluator returns, for seeded random documents of every type
 * and random conditions and orders, with and without secondary indexes on the paths; and a
 * selective query on an indexed path must not read the collection (EXPLAIN ANALYZE row counts).
 * Needs a PostgreSQL server: without one these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { LogHub, parseCondition, runQuery, sortKey, type DocumentQuery, type Expr, type StoredDocument } from '../../peer/host.ts';
import { seededRandom as prng } from '../../testing/seeded-random.ts';
import { RANGE_PARAMS, randomCondition, randomDoc, randomOrder, randomRangeCondition } from '../../testing/random-dql.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';
import { PgStorage } from './pg-storage.ts';
import { liveSql, planQuery } from './pg-query-sql.ts';
import { indexKeyOf } from './pg-translate.ts';
import { pgIndexName } from './pg-indexes.ts';

const META = { c: ['0000000000000000', 'me'] } as never;
const stored = (value: JsonObject): StoredDocument => ({ id: value._id as JsonValue, value, meta: META, txnId: 1 });
const shown = (q: Partial<DocumentQuery>): string => JSON.stringify({ where: q.where, orderBy: q.orderBy }, (k, v: unknown) => (k === 'pos' ? undefined : v));

/** Values the random documents lack: doubles past 2^53, tiny and huge numbers, nested paths, astral and private-use text. */
const EDGE_VALUES: JsonValue[] = [
  2 ** 53 + 2,
  2 ** 60,
  -(2 ** 60),
  1e21,
  5e-324,
  0.1,
  -0.5,
  'a\u{1F600}',
  'a\uE000',
  'É',
  { p: { q: [1, 'a'] } },
  [[1], { p: null }],
  [1, null],
];

/** Does the condition hold what the translation leaves to the evaluator (arithmetic, functions, ILIKE)? */
function computed(expr: Expr | undefined): boolean {
  return /"kind":"call"|"op":"\+"|"caseInsensitive":true/.test(JSON.stringify(expr));
}

let database: { url: string; drop(): Promise<void> } | undefined;
let storage: PgStorage;
let schema: string;
let docs: JsonObject[];
const logs = new LogHub({ minimumLogLevel: 'DEBUG' });
const fallbacks = logs.subscribe();

beforeAll(async () => {
  database = await createTestDatabase('translate');
  schema = `tr_${randomBytes(6).toString('hex')}`;
  storage = PgStorage.open({ url: database.url, schema, logger: logs.logger('postgres') });
  const r = prng(42);
  docs = Array.from({ length: 160 }, (_, i) => randomDoc(r, i));
  EDGE_VALUES.forEach((v, i) => docs.push({ _id: `e${i}`, x: v, y: EDGE_VALUES[(i + 3) % EDGE_VALUES.length] as JsonValue, z: { p: v } }));
  storage.write((w) => {
    for (const doc of docs) {
      w.put('c', stored(doc));
      w.put('indexed', stored(doc));
    }
    w.createIndex?.({ collection: 'indexed', name: 'by_x', keys: [{ path: ['x'], direction: 'ASC' }] });
    w.createIndex?.({
      collection: 'indexed',
      name: 'by_z_y',
      keys: [
        { path: ['z'], direction: 'DESC' },
        { path: ['y'], direction: 'ASC' },
      ],
    });
    w.createIndex?.({ collection: 'indexed', name: 'by_x_p', keys: [{ path: ['x', 'p'], direction: 'ASC' }] });
  });
}, 60_000);

afterAll(async () => {
  storage?.close();
  await database?.drop();
});

function reference(q: DocumentQuery): JsonObject[] {
  return runQuery(
    docs,
    (d) => d,
    (d) => sortKey(d._id as JsonValue),
    q,
  );
}

describe('the PostgreSQL translation of conditions and ORDER BY', () => {
  it.each(Array.from({ length: 30 }, (_, i) => i + 1))('agrees with the reference evaluator on random queries, with and without indexes (seed %i)', (seed) => {
    const r = prng(seed * 7919);
    for (let i = 0; i < 20; i++) {
      const base = {
        where: randomCondition(r),
        params: {},
        orderBy: randomOrder(r),
        limit: r() < 0.3 ? Math.floor(r() * 20) : undefined,
        offset: r() < 0.2 ? Math.floor(r() * 10) : 0,
      };
      // Everything generated but arithmetic, functions and ILIKE runs in PostgreSQL.
      if (!computed(base.where) && !computed(base.orderBy as never))
        expect(planQuery({ collection: 'c', ...base }, new Set()).fallback, shown(base)).toBeUndefined();
      const want = reference({ collection: 'c', ...base });
      for (const collection of ['c', 'indexed']) {
        const q: DocumentQuery = { collection, ...base };
        expect(
          storage.read((reader) => reader.findValues(q)),
          `${collection}: ${shown(q)}`,
        ).toEqual(want);
        expect(storage.read((reader) => reader.count(q))).toBe(reference({ ...q, orderBy: [], limit: undefined, offset: 0 }).length);
      }
    }
  });

  it.each(Array.from({ length: 15 }, (_, i) => i + 1))('agrees with the reference evaluator on range comparisons between every type (seed %i)', (seed) => {
    const r = prng(seed * 104729);
    for (let i = 0; i < 30; i++) {
      const where = randomRangeCondition(r);
      expect(planQuery({ collection: 'c', where, params: RANGE_PARAMS, orderBy: [], limit: undefined, offset: 0 }, new Set()).fallback).toBeUndefined();
      const want = reference({ collection: 'c', where, params: RANGE_PARAMS, orderBy: [], limit: undefined, offset: 0 });
      for (const collection of ['c', 'indexed']) {
        const q: DocumentQuery = { collection, where, params: RANGE_PARAMS, orderBy: [], limit: undefined, offset: 0 };
        expect(
          storage.read((reader) => reader.findValues(q)),
          `${collection}: ${shown(q)}`,
        ).toEqual(want);
      }
    }
  });

  it('tells MISSING from null, compares doubles past 2^53 and orders text by code point, as the evaluator does', () => {
    const cases = [
      'x IS NULL',
      'x IS MISSING',
      'NOT (x IS MISSING)',
      'x = null',
      `x = ${2 ** 60}`,
      `x > ${2 ** 53}`,
      'x < 0',
      `x IN [${2 ** 60}, 0.1, 'É']`,
      "x > 'a\uE000'",
      "x < 'a\u{1F600}'",
      "x LIKE 'a_'",
      "NOT (x LIKE '%')",
      "z.p.p.q[1] = 'a'",
      "x = {p: {q: [1, 'a']}}",
      '1 IN x',
      'NOT (1 IN x)',
      "'a' IN y",
      'x BETWEEN -1 AND 1',
      'x > y',
      'NOT (x = y)',
    ];
    for (const text of cases) {
      for (const collection of ['c', 'indexed']) {
        for (const direction of ['ASC', 'DESC'] as const) {
          const q: DocumentQuery = {
            collection,
            where: parseCondition(text),
            params: {},
            orderBy: [{ expr: { kind: 'path', segments: ['x'], pos: { line: 1, column: 1, offset: 0 } }, direction }],
            limit: undefined,
            offset: 0,
          };
          expect(
            storage.read((reader) => reader.findValues(q)).map((d) => d._id),
            `${collection}: ${text} ORDER BY x ${direction}`,
          ).toEqual(reference(q).map((d) => d._id));
        }
      }
    }
  });

  it('leaves to the evaluator only the conjuncts SQL cannot express, and says so at DEBUG', () => {
    fallbacks.take();
    const q: DocumentQuery = { collection: 'c', where: parseCondition("upper(x) = 'A' AND x IS NOT NULL"), params: {}, orderBy: [], limit: 3, offset: 1 };
    expect(storage.read((reader) => reader.findValues(q))).toEqual(reference(q));
    const entries = fallbacks.take().entries.filter((e) => e.event === 'postgres.query-in-javascript');
    expect(entries).toHaveLength(1);
    expect(entries[0]?.fields).toMatchObject({ collection: 'c', prefiltered: true });
    // A translatable query logs nothing.
    storage.read((reader) => reader.findValues({ ...q, where: parseCondition("x = 'A'") }));
    expect(fallbacks.take().entries.filter((e) => e.event === 'postgres.query-in-javascript')).toEqual([]);
  });

  it('finds documents jsonb cannot hold (U+0000 in a string) through the evaluator', () => {
    storage.write((w) => {
      w.put('nul', stored({ _id: 'a', s: 'x\u0000y' }));
      w.put('nul', stored({ _id: 'b', s: 'xy' }));
    });
    const q: DocumentQuery = { collection: 'nul', where: parseCondition("s > 'x'"), params: {}, orderBy: [], limit: undefined, offset: 0 };
    expect(storage.read((reader) => reader.findValues(q)).map((d) => d._id)).toEqual(['a', 'b']);
    expect(storage.read((reader) => reader.count({ ...q, where: parseCondition("s < 'xy'") }))).toBe(1);
  });
});

describe('a selective query on PostgreSQL', () => {
  it('reads only the matching documents through a secondary index, not the collection', async () => {
    const collection = 'big';
    storage.write((w) => {
      for (let i = 0; i < 3_000; i++) w.put(collection, stored({ _id: `b${i}`, n: i % 1_000, s: `text ${i}` }));
    });
    const where = parseCondition('n = 42 OR n BETWEEN 500 AND 501');
    const query: DocumentQuery = { collection, where, params: {}, orderBy: [], limit: undefined, offset: 0 };
    const client = new pg.Client({ connectionString: database?.url });
    await client.connect();
    /** The most rows any plan node of the count's SQL read (kept or filtered out), and the indexes it used. */
    const analyze = async (indexed: ReadonlySet<string>): Promise<{ indexes: string[]; maxRows: number; count: number }> => {
      const plan = planQuery(query, indexed);
      const sql = `SELECT count(*) FROM documents WHERE ${liveSql(collection)}${plan.where}`;
      const [explained] = (await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, [])).rows;
      type Node = { 'Index Name'?: string; 'Actual Rows': number; 'Actual Loops': number; 'Rows Removed by Filter'?: number; Plans?: Node[] };
      const nodes: Node[] = [];
      const walk = (n: Node): void => {
        nodes.push(n);
        n.Plans?.forEach(walk);
      };
      walk((explained?.['QUERY PLAN'] as { Plan: Node }[])[0]?.Plan as Node);
      const count = Number((await client.query(sql, [])).rows[0]?.count);
      return {
        indexes: [...new Set(nodes.flatMap((n) => (n['Index Name'] === undefined ? [] : [n['Index Name']])))],
        maxRows: Math.max(...nodes.map((n) => n['Actual Rows'] * n['Actual Loops'] + (n['Rows Removed by Filter'] ?? 0))),
        count,
      };
    };
    try {
      await client.query(`SET search_path = ${schema}`);
      const before = await analyze(new Set());
      expect(before.maxRows).toBeGreaterThanOrEqual(3_000);
      expect(before.count).toBe(9);
      storage.write((w) => w.createIndex?.({ collection, name: 'by_n', keys: [{ path: ['n'], direction: 'ASC' }] }));
      const after = await analyze(new Set([indexKeyOf(['n'])]));
      expect(after).toEqual({ indexes: [pgIndexName(collection, 'by_n')], maxRows: 9, count: 9 });
      expect(storage.read((reader) => reader.count(query))).toBe(9);
      const plan = storage.read((reader) => reader.explain?.({ ...query, orderBy: parseOrder('n'), limit: 5 }, 'find'));
      expect(plan).toMatchObject({ access: 'index', index: 'by_n' });
    } finally {
      await client.end();
    }
  });
});

function parseOrder(path: string): DocumentQuery['orderBy'] {
  return [{ expr: { kind: 'path', segments: [path], pos: { line: 1, column: 1, offset: 0 } }, direction: 'ASC' }];
}
