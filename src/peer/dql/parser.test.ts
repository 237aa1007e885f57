import { describe, expect, it } from 'vitest';
import { ParseError } from '../errors.ts';
import type { Expr, PathSegment, SelectStatement } from './ast.ts';
import { MAX_EXPRESSION_HEIGHT, MAX_NESTING_DEPTH, MAX_STATEMENT_LENGTH, parseStatement } from './parser.ts';

/** Deep copy without `pos`, for tests where positions are not the point. */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'pos')
      .map(([key, v]) => [key, strip(v)]),
  );
}

const ast = (text: string): unknown => strip(parseStatement(text));
/** The WHERE condition of `SELECT * FROM t WHERE <condition>`, without positions. */
const where = (condition: string): unknown => strip((parseStatement(`SELECT * FROM t WHERE ${condition}`) as SelectStatement).where);

function errorOf(text: string): ParseError {
  try {
    parseStatement(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ParseError);
    return error as ParseError;
  }
  throw new Error(`expected ${JSON.stringify(text)} not to parse`);
}
const messageOf = (text: string): string => errorOf(text).message;

// Builders for expected trees (without positions).
const path = (...segments: PathSegment[]) => ({ kind: 'path', segments });
const lit = (value: unknown) => ({ kind: 'literal', value });
const param = (name: string) => ({ kind: 'param', name });
const bin = (op: string, left: unknown, right: unknown) => ({ kind: 'binary', op, left, right });
const unary = (op: string, operand: unknown) => ({ kind: 'unary', op, operand });
const call = (name: string, args: unknown[], extra: { star?: boolean; distinct?: boolean } = {}) => ({
  kind: 'call',
  name,
  args,
  star: extra.star ?? false,
  distinct: extra.distinct ?? false,
});
const select = (fields: Record<string, unknown>) => ({
  kind: 'select',
  distinct: false,
  projections: [{ kind: 'star' }],
  collection: 't',
  alias: undefined,
  where: undefined,
  groupBy: [],
  orderBy: [],
  limit: undefined,
  offset: undefined,
  ...fields,
});

describe('SELECT', () => {
  it('parses the smallest SELECT with positions', () => {
    expect(parseStatement('SELECT * FROM orders')).toEqual({
      kind: 'select',
      distinct: false,
      projections: [{ kind: 'star', pos: { line: 1, column: 8, offset: 7 } }],
      collection: 'orders',
      alias: undefined,
      where: undefined,
      groupBy: [],
      orderBy: [],
      limit: undefined,
      offset: undefined,
      pos: { line: 1, column: 1, offset: 0 },
    });
  });

  it('parses every clause in order', () => {
    expect(ast('SELECT DISTINCT a, b AS total FROM COLLECTION t WHERE a > 1 GROUP BY a, b ORDER BY a DESC, b ASC, c LIMIT 10 OFFSET :skip')).toEqual(
      select({
        distinct: true,
        projections: [
          { kind: 'expr', expr: path('a'), alias: undefined },
          { kind: 'expr', expr: path('b'), alias: 'total' },
        ],
        where: bin('>', path('a'), lit(1)),
        groupBy: [path('a'), path('b')],
        orderBy: [
          { expr: path('a'), direction: 'DESC' },
          { expr: path('b'), direction: 'ASC' },
          { expr: path('c'), direction: 'ASC' },
        ],
        limit: lit(10),
        offset: param('skip'),
      }),
    );
  });

  it('accepts keywords in any case', () => {
    expect(ast('select * from t where a = 1 order by a desc limit 1')).toEqual(
      select({ where: bin('=', path('a'), lit(1)), orderBy: [{ expr: path('a'), direction: 'DESC' }], limit: lit(1) }),
    );
  });

  it('parses projections: a star in a list, aggregates, count(*), DISTINCT arguments and backtick aliases', () => {
    expect((ast('SELECT *, COUNT(*) AS n, sum(DISTINCT price), Coalesce(a, 0) AS `the value` FROM t') as { projections: unknown }).projections).toEqual([
      { kind: 'star' },
      { kind: 'expr', expr: call('count', [], { star: true }), alias: 'n' },
      { kind: 'expr', expr: call('sum', [path('price')], { distinct: true }), alias: undefined },
      { kind: 'expr', expr: call('coalesce', [path('a'), lit(0)]), alias: 'the value' },
    ]);
  });

  it('parses a call without arguments and positions the projection at its expression', () => {
    const statement = parseStatement('SELECT  now() FROM t') as SelectStatement;
    expect(statement.projections[0]).toEqual({
      kind: 'expr',
      alias: undefined,
      pos: { line: 1, column: 9, offset: 8 },
      expr: { kind: 'call', name: 'now', args: [], star: false, distinct: false, pos: { line: 1, column: 9, offset: 8 } },
    });
  });

  it('reads a collection alias with or without AS and removes it from the front of paths', () => {
    const expected = select({
      projections: [
        { kind: 'expr', expr: path('total'), alias: undefined },
        { kind: 'expr', expr: path('o'), alias: undefined },
      ],
      collection: 'orders',
      alias: 'o',
      where: bin('AND', bin('=', path('status'), lit('open')), bin('>', call('length', [path('items', 0, 'sku')]), lit(0))),
      orderBy: [{ expr: path('x'), direction: 'ASC' }],
    });
    expect(ast("SELECT o.total, o FROM orders AS o WHERE o.status = 'open' AND length(o.items[0].sku) > 0 ORDER BY o.x")).toEqual(expected);
    expect(ast("SELECT o.total, o FROM orders o WHERE o.status = 'open' AND length(o.items[0].sku) > 0 ORDER BY o.x")).toEqual(expected);
  });

  it('keeps the position of a path whose alias was removed', () => {
    const statement = parseStatement('SELECT o.a FROM t o') as SelectStatement;
    expect(statement.projections[0]).toMatchObject({ expr: { segments: ['a'], pos: { line: 1, column: 8, offset: 7 } } });
  });

  it('does not read a following clause keyword as the alias', () => {
    expect(ast('SELECT * FROM t WHERE a')).toEqual(select({ where: path('a') }));
    expect(ast('SELECT * FROM t ORDER BY a')).toEqual(select({ orderBy: [{ expr: path('a'), direction: 'ASC' }] }));
    expect(ast('SELECT * FROM t LIMIT 1 OFFSET 2')).toEqual(select({ limit: lit(1), offset: lit(2) }));
  });

  it('reads a collection named collection', () => {
    expect(ast('SELECT * FROM collection WHERE a')).toEqual(select({ collection: 'collection', where: path('a') }));
    expect(ast('SELECT * FROM COLLECTION `my coll` c')).toEqual(select({ collection: 'my coll', alias: 'c' }));
  });

  it('lets contextual keywords be field and collection names', () => {
    expect(ast('SELECT id, count, status, values, set, desc FROM orders')).toEqual(
      select({
        collection: 'orders',
        projections: ['id', 'count', 'status', 'values', 'set', 'desc'].map((f) => ({ kind: 'expr', expr: path(f), alias: undefined })),
      }),
    );
    expect(ast('SELECT * FROM update WHERE insert = delete')).toEqual(select({ collection: 'update', where: bin('=', path('insert'), path('delete')) }));
  });

  it('accepts contextual keywords as projection and collection aliases', () => {
    expect(ast('SELECT count(*) AS count FROM t AS values')).toEqual(
      select({ projections: [{ kind: 'expr', expr: call('count', [], { star: true }), alias: 'count' }], alias: 'values' }),
    );
    expect(messageOf('SELECT a AS from FROM t')).toBe('Syntax error at line 1 column 13: expected an alias, found from');
  });

  it('requires backticks around reserved words used as names', () => {
    expect(messageOf('SELECT order FROM t')).toBe('Syntax error at line 1 column 8: expected an expression, found order');
    expect(messageOf('SELECT * FROM group')).toBe('Syntax error at line 1 column 15: expected a collection name, found group');
    expect(ast('SELECT `order`, `from`.`select` FROM `group`')).toEqual(
      select({
        collection: 'group',
        projections: [
          { kind: 'expr', expr: path('order'), alias: undefined },
          { kind: 'expr', expr: path('from', 'select'), alias: undefined },
        ],
      }),
    );
  });

  it('requires backticks around a reserved word after a dot too', () => {
    expect(messageOf('SELECT a.order FROM t')).toBe('Syntax error at line 1 column 10: expected a field name, found order');
    expect(where('a.`order` = 1')).toEqual(bin('=', path('a', 'order'), lit(1)));
  });
});

describe('INSERT', () => {
  it('parses documents with positions and the default conflict policy', () => {
    expect(parseStatement('INSERT INTO t DOCUMENTS ({_id: 1})')).toEqual({
      kind: 'insert',
      collection: 't',
      onConflict: 'FAIL',
      pos: { line: 1, column: 1, offset: 0 },
      documents: [
        {
          kind: 'object',
          pos: { line: 1, column: 26, offset: 25 },
          entries: [{ key: '_id', value: { kind: 'literal', value: 1, pos: { line: 1, column: 32, offset: 31 } } }],
        },
      ],
    });
  });

  it('parses several tuples, VALUES, parameters and COLLECTION', () => {
    expect(ast('insert into collection orders values ({\'a b\': 1, "c": [1, 2], `d`: {}}), (:doc)')).toEqual({
      kind: 'insert',
      collection: 'orders',
      onConflict: 'FAIL',
      documents: [
        {
          kind: 'object',
          entries: [
            { key: 'a b', value: lit(1) },
            { key: 'c', value: { kind: 'array', items: [lit(1), lit(2)] } },
            { key: 'd', value: { kind: 'object', entries: [] } },
          ],
        },
        param('doc'),
      ],
    });
  });

  it('parses every conflict policy', () => {
    const policy = (clause: string) => (ast(`INSERT INTO t DOCUMENTS (:d) ON ID CONFLICT ${clause}`) as { onConflict: string }).onConflict;
    expect(policy('FAIL')).toBe('FAIL');
    expect(policy('DO NOTHING')).toBe('DO NOTHING');
    expect(policy('do update')).toBe('DO UPDATE');
    expect(policy('DO UPDATE_LOCAL_DIFF')).toBe('DO UPDATE_LOCAL_DIFF');
    expect(policy('DO MERGE')).toBe('DO MERGE');
  });

  it('reports a malformed INSERT', () => {
    expect(messageOf('INSERT INTO t ({a: 1})')).toBe('Syntax error at line 1 column 15: expected DOCUMENTS or VALUES, found (');
    expect(messageOf('INSERT INTO t DOCUMENTS {a: 1}')).toBe('Syntax error at line 1 column 25: expected (, found {');
    expect(messageOf('INSERT INTO t DOCUMENTS (:d) ON ID CONFLICT DO REPLACE')).toBe(
      'Syntax error at line 1 column 48: expected NOTHING, UPDATE, UPDATE_LOCAL_DIFF or MERGE, found REPLACE',
    );
    expect(messageOf('INSERT INTO t DOCUMENTS (:d) ON CONFLICT FAIL')).toBe('Syntax error at line 1 column 33: expected ID, found CONFLICT');
  });
});

describe('UPDATE', () => {
  it('parses SET, UNSET and APPLY clauses in any order, repeated, with positions', () => {
    expect(parseStatement("UPDATE t SET a = 1 UNSET b\nAPPLY c PN_INCREMENT BY 2 SET d.e = 'x' WHERE _id = :id")).toEqual({
      kind: 'update',
      collection: 't',
      alias: undefined,
      pos: { line: 1, column: 1, offset: 0 },
      set: [
        { path: ['a'], value: { kind: 'literal', value: 1, pos: { line: 1, column: 18, offset: 17 } }, pos: { line: 1, column: 14, offset: 13 } },
        { path: ['d', 'e'], value: { kind: 'literal', value: 'x', pos: { line: 2, column: 37, offset: 63 } }, pos: { line: 2, column: 31, offset: 57 } },
      ],
      unset: [{ path: ['b'], pos: { line: 1, column: 26, offset: 25 } }],
      increments: [{ path: ['c'], by: { kind: 'literal', value: 2, pos: { line: 2, column: 25, offset: 51 } }, pos: { line: 2, column: 7, offset: 33 } }],
      where: {
        kind: 'binary',
        op: '=',
        pos: { line: 2, column: 47, offset: 73 },
        left: { kind: 'path', segments: ['_id'], pos: { line: 2, column: 47, offset: 73 } },
        right: { kind: 'param', name: 'id', pos: { line: 2, column: 53, offset: 79 } },
      },
    });
  });

  it('parses comma lists in each clause and strips the alias from clause paths', () => {
    expect(ast('UPDATE COLLECTION orders AS o SET o.a = o.b + 1, o.c[0] = -1 UNSET o.x, y APPLY o.n PN_INCREMENT BY :k, m PN_INCREMENT BY 1.5')).toEqual({
      kind: 'update',
      collection: 'orders',
      alias: 'o',
      where: undefined,
      set: [
        { path: ['a'], value: bin('+', path('b'), lit(1)) },
        { path: ['c', 0], value: lit(-1) },
      ],
      unset: [{ path: ['x'] }, { path: ['y'] }],
      increments: [
        { path: ['n'], by: param('k') },
        { path: ['m'], by: lit(1.5) },
      ],
    });
  });

  it('reads a bare alias but not a clause keyword after the collection name', () => {
    expect(ast('UPDATE t o SET a = 1')).toMatchObject({ alias: 'o', set: [{ path: ['a'] }] });
    expect(ast('UPDATE t set a = 1')).toMatchObject({ alias: undefined, set: [{ path: ['a'] }] });
    expect(ast('UPDATE collection SET a = 1')).toMatchObject({ collection: 'collection', alias: undefined });
  });

  it('requires at least one clause', () => {
    expect(messageOf('UPDATE t WHERE a = 1')).toBe('Syntax error at line 1 column 10: expected SET, UNSET or APPLY, found WHERE');
    expect(messageOf('UPDATE t')).toBe('Syntax error at line 1 column 9: expected SET, UNSET or APPLY, found end of input');
  });

  it('reports a malformed clause', () => {
    expect(messageOf('UPDATE t SET a 1')).toBe('Syntax error at line 1 column 16: expected =, found 1');
    expect(messageOf('UPDATE t SET 1 = 1')).toBe('Syntax error at line 1 column 14: expected a path, found 1');
    expect(messageOf('UPDATE t APPLY n BY 1')).toBe('Syntax error at line 1 column 18: expected PN_INCREMENT, found BY');
  });
});

describe('DELETE and EVICT', () => {
  it('parses DELETE with an alias and a condition', () => {
    expect(ast('DELETE FROM COLLECTION t AS x WHERE x.a IS NULL')).toEqual({
      kind: 'delete',
      collection: 't',
      alias: 'x',
      where: { kind: 'is', negated: false, test: 'NULL', value: path('a') },
    });
    expect(ast('delete from t')).toEqual({ kind: 'delete', collection: 't', alias: undefined, where: undefined });
  });

  it('parses EVICT with WHERE, ORDER BY, LIMIT and OFFSET', () => {
    expect(ast('EVICT FROM logs WHERE createdAt < :cutoff ORDER BY createdAt LIMIT 100 OFFSET 5')).toEqual({
      kind: 'evict',
      collection: 'logs',
      alias: undefined,
      where: bin('<', path('createdAt'), param('cutoff')),
      orderBy: [{ expr: path('createdAt'), direction: 'ASC' }],
      limit: lit(100),
      offset: lit(5),
    });
  });

  it('requires FROM after DELETE and EVICT', () => {
    expect(messageOf('DELETE t')).toBe('Syntax error at line 1 column 8: expected FROM, found t');
    expect(messageOf('EVICT t WHERE a')).toBe('Syntax error at line 1 column 7: expected FROM, found t');
  });
});

describe('expressions', () => {
  it('gives OR the lowest precedence, then AND, then NOT, then comparison', () => {
    expect(where('a OR b AND NOT c = 1')).toEqual(bin('OR', path('a'), bin('AND', path('b'), unary('NOT', bin('=', path('c'), lit(1))))));
    expect(where('NOT a OR b')).toEqual(bin('OR', unary('NOT', path('a')), path('b')));
    expect(where('NOT NOT a')).toEqual(unary('NOT', unary('NOT', path('a'))));
  });

  it('associates AND, OR and arithmetic to the left', () => {
    expect(where('a OR b OR c')).toEqual(bin('OR', bin('OR', path('a'), path('b')), path('c')));
    expect(where('a - b - c = 0')).toEqual(bin('=', bin('-', bin('-', path('a'), path('b')), path('c')), lit(0)));
    expect(where('a / b % c = 0')).toEqual(bin('=', bin('%', bin('/', path('a'), path('b')), path('c')), lit(0)));
  });

  it('binds * / % tighter than + -, and + - tighter than ||, and || tighter than comparison', () => {
    expect(where("a || b + c * d = 'x'")).toEqual(bin('=', bin('||', path('a'), bin('+', path('b'), bin('*', path('c'), path('d')))), lit('x')));
    expect(where('(a + b) * c = 1')).toEqual(bin('=', bin('*', bin('+', path('a'), path('b')), path('c')), lit(1)));
  });

  it('parses every comparison operator, normalising == to = and <> to !=', () => {
    const ops = { '=': '=', '==': '=', '!=': '!=', '<>': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
    for (const [written, op] of Object.entries(ops)) expect(where(`a ${written} 1`)).toEqual(bin(op, path('a'), lit(1)));
  });

  it('parses unary minus and plus, folding minus directly before a number into a negative literal', () => {
    expect(where('a = -5')).toEqual(bin('=', path('a'), lit(-5)));
    expect(where('a = - 2.5e1')).toEqual(bin('=', path('a'), lit(-25)));
    expect(where('a = -b')).toEqual(bin('=', path('a'), unary('-', path('b'))));
    expect(where('a = +1')).toEqual(bin('=', path('a'), unary('+', lit(1))));
    expect(where('a = - -1')).toEqual(bin('=', path('a'), unary('-', lit(-1))));
    expect(where('a = -(1)')).toEqual(bin('=', path('a'), unary('-', lit(1))));
    expect(where('a - -1 = 0')).toEqual(bin('=', bin('-', path('a'), lit(-1)), lit(0)));
    expect(where('-2 * 3 = a')).toEqual(bin('=', bin('*', lit(-2), lit(3)), path('a')));
  });

  it('positions a folded negative literal at its minus sign and a binary node at its left operand', () => {
    expect((parseStatement('SELECT * FROM t WHERE a < -1') as SelectStatement).where).toEqual({
      kind: 'binary',
      op: '<',
      pos: { line: 1, column: 23, offset: 22 },
      left: { kind: 'path', segments: ['a'], pos: { line: 1, column: 23, offset: 22 } },
      right: { kind: 'literal', value: -1, pos: { line: 1, column: 27, offset: 26 } },
    });
  });

  it('reads -- as the start of a comment, as SQL does', () => {
    expect(where('a--1\n= 2')).toEqual(bin('=', path('a'), lit(2)));
  });

  it('parses IN with a parenthesised list, an array, a parameter and a field, and NOT IN', () => {
    const inExpr = (negated: boolean, haystack: unknown) => ({ kind: 'in', negated, needle: path('a'), haystack });
    expect(where("a IN (1, 'x', :p)")).toEqual(inExpr(false, { kind: 'array', items: [lit(1), lit('x'), param('p')] }));
    expect(where('a IN (b)')).toEqual(inExpr(false, { kind: 'array', items: [path('b')] }));
    expect(where('a IN [1, 2]')).toEqual(inExpr(false, { kind: 'array', items: [lit(1), lit(2)] }));
    expect(where('a IN :ids')).toEqual(inExpr(false, param('ids')));
    expect(where('a IN tags')).toEqual(inExpr(false, path('tags')));
    expect(where('a NOT IN (1)')).toEqual(inExpr(true, { kind: 'array', items: [lit(1)] }));
  });

  it('parses LIKE and ILIKE, negated or not', () => {
    const like = (negated: boolean, caseInsensitive: boolean) => ({ kind: 'like', negated, caseInsensitive, value: path('name'), pattern: lit('a%') });
    expect(where("name LIKE 'a%'")).toEqual(like(false, false));
    expect(where("name NOT LIKE 'a%'")).toEqual(like(true, false));
    expect(where("name ilike 'a%'")).toEqual(like(false, true));
    expect(where("name NOT ILIKE 'a%'")).toEqual(like(true, true));
  });

  it('parses BETWEEN, whose AND belongs to it, and NOT BETWEEN', () => {
    const between = (negated: boolean) => ({ kind: 'between', negated, value: path('x'), low: lit(1), high: lit(2) });
    expect(where('x BETWEEN 1 AND 2 AND y')).toEqual(bin('AND', between(false), path('y')));
    expect(where('x NOT BETWEEN 1 AND 2 OR y')).toEqual(bin('OR', between(true), path('y')));
    expect(where('x BETWEEN a + 1 AND b * 2')).toEqual({
      kind: 'between',
      negated: false,
      value: path('x'),
      low: bin('+', path('a'), lit(1)),
      high: bin('*', path('b'), lit(2)),
    });
  });

  it('parses IS [NOT] NULL and IS [NOT] MISSING', () => {
    const is = (negated: boolean, test: string) => ({ kind: 'is', negated, test, value: path('a') });
    expect(where('a IS NULL')).toEqual(is(false, 'NULL'));
    expect(where('a is not null')).toEqual(is(true, 'NULL'));
    expect(where('a IS MISSING')).toEqual(is(false, 'MISSING'));
    expect(where('a IS NOT MISSING')).toEqual(is(true, 'MISSING'));
  });

  it('does not chain comparisons', () => {
    expect(messageOf('SELECT * FROM t WHERE a = b = c')).toBe(
      'Syntax error at line 1 column 29: expected a single comparison (use parentheses to chain comparisons), found =',
    );
    expect(messageOf('SELECT * FROM t WHERE a IS NULL IS NULL')).toBe(
      'Syntax error at line 1 column 33: expected a single comparison (use parentheses to chain comparisons), found IS',
    );
    expect(where('(a = b) = c')).toEqual(bin('=', bin('=', path('a'), path('b')), path('c')));
  });

  it('reports a predicate missing its parts', () => {
    expect(messageOf('SELECT * FROM t WHERE a NOT b')).toBe('Syntax error at line 1 column 29: expected IN, LIKE, ILIKE or BETWEEN, found b');
    expect(messageOf('SELECT * FROM t WHERE a IS 1')).toBe('Syntax error at line 1 column 28: expected NULL or MISSING, found 1');
    expect(messageOf('SELECT * FROM t WHERE a BETWEEN 1 OR 2')).toBe('Syntax error at line 1 column 35: expected AND, found OR');
  });
});

describe('literals', () => {
  it('parses numbers as JavaScript numbers', () => {
    expect(where('a IN [0, 42, 3.25, 1e3, 2.5E-2]')).toMatchObject({ haystack: { items: [lit(0), lit(42), lit(3.25), lit(1000), lit(0.025)] } });
  });

  it('rejects a number too large to be finite', () => {
    expect(messageOf('SELECT 1e999 FROM t')).toBe('Syntax error at line 1 column 8: expected a finite number, found 1e999');
  });

  it('parses strings in both quotes with doubled quotes and escapes', () => {
    expect(where(String.raw`a IN ['it''s', "say ""hi""", 'tab\there', "\u00e9\n", 'back\\slash']`)).toMatchObject({
      haystack: { items: [lit("it's"), lit('say "hi"'), lit('tab\there'), lit('é\n'), lit('back\\slash')] },
    });
  });

  it('parses true, false and null in any case', () => {
    expect(where('a IN [true, FALSE, Null]')).toMatchObject({ haystack: { items: [lit(true), lit(false), lit(null)] } });
  });

  it('parses nested arrays and objects, and empty ones', () => {
    expect(where("a = {x: [1, {y: []}], 'z': {}}")).toEqual(
      bin('=', path('a'), {
        kind: 'object',
        entries: [
          { key: 'x', value: { kind: 'array', items: [lit(1), { kind: 'object', entries: [{ key: 'y', value: { kind: 'array', items: [] } }] }] } },
          { key: 'z', value: { kind: 'object', entries: [] } },
        ],
      }),
    );
  });

  it('reads a colon glued to the value in an object as the colon, so {a:b} holds the path b', () => {
    const entries = (text: string) => (where(`x = ${text}`) as { right: { entries: unknown } }).right.entries;
    expect(entries('{a:b}')).toEqual([{ key: 'a', value: path('b') }]);
    expect(entries('{a:1}')).toEqual([{ key: 'a', value: lit(1) }]);
    expect(entries('{a:true, "b":c.d}')).toEqual([
      { key: 'a', value: lit(true) },
      { key: 'b', value: path('c', 'd') },
    ]);
    expect(entries('{a: :p}')).toEqual([{ key: 'a', value: param('p') }]);
    expect(entries('{a::p}')).toEqual([{ key: 'a', value: param('p') }]);
    expect(entries('{a :f(1)}')).toEqual([{ key: 'a', value: call('f', [lit(1)]) }]);
  });

  it('accepts any identifier, reserved or not, as an object key', () => {
    expect(where('a = {order: 1, select: 2}')).toEqual(
      bin('=', path('a'), {
        kind: 'object',
        entries: [
          { key: 'order', value: lit(1) },
          { key: 'select', value: lit(2) },
        ],
      }),
    );
  });

  it('rejects trailing commas and malformed objects', () => {
    expect(messageOf('SELECT [1,] FROM t')).toBe('Syntax error at line 1 column 11: expected an expression, found ]');
    expect(messageOf('SELECT [1 2] FROM t')).toBe('Syntax error at line 1 column 11: expected , or ], found 2');
    expect(messageOf('SELECT {a: 1,} FROM t')).toBe('Syntax error at line 1 column 14: expected an object key, found }');
    expect(messageOf('SELECT {a 1} FROM t')).toBe('Syntax error at line 1 column 11: expected :, found 1');
    expect(messageOf('SELECT f(1,) FROM t')).toBe('Syntax error at line 1 column 12: expected an expression, found )');
  });

  it('parses a named parameter and rejects a lone colon', () => {
    expect(where('a = :minPrice')).toEqual(bin('=', path('a'), param('minPrice')));
    expect(messageOf('SELECT * FROM t WHERE a = : p')).toBe('Syntax error at line 1 column 27: expected an expression, found :');
  });
});

describe('paths', () => {
  it('parses dots, backticks, indexes and quoted keys', () => {
    expect(where('a.b[0].`c d`[\'e f\']["g"][12] = 1')).toEqual(bin('=', path('a', 'b', 0, 'c d', 'e f', 'g', 12), lit(1)));
    expect(where('_id = 1')).toEqual(bin('=', path('_id'), lit(1)));
  });

  it('removes an alias only from paths of more than one segment that start with it', () => {
    const statement = ast('SELECT o, o.a, `o`.b, O.c, x.o, p FROM t AS o') as { projections: { expr: unknown }[] };
    expect(statement.projections.map((p) => p.expr)).toEqual([path('o'), path('a'), path('b'), path('O', 'c'), path('x', 'o'), path('p')]);
  });

  it('does not remove the collection name when there is no alias', () => {
    expect(ast('SELECT t.a FROM t')).toMatchObject({ projections: [{ expr: path('t', 'a') }] });
  });

  it('rejects indexes that are not non-negative integer literals', () => {
    expect(messageOf('SELECT a[-1] FROM t')).toBe('Syntax error at line 1 column 10: expected an array index or a quoted key, found -');
    expect(messageOf('SELECT a[1.5] FROM t')).toBe('Syntax error at line 1 column 10: expected an array index or a quoted key, found 1.5');
    expect(messageOf('SELECT a[:i] FROM t')).toBe('Syntax error at line 1 column 10: expected an array index or a quoted key, found :i');
    expect(messageOf('SELECT a[0 FROM t')).toBe('Syntax error at line 1 column 12: expected ], found FROM');
    expect(messageOf('SELECT a. FROM t')).toBe('Syntax error at line 1 column 11: expected a field name, found FROM');
  });
});

describe('comments and positions', () => {
  it('skips line and block comments anywhere between tokens', () => {
    expect(ast('-- leading\nSELECT /* all */ * FROM t -- trailing')).toEqual(select({}));
    expect(ast('SELECT * FROM t WHERE /* a\nmulti-line\ncomment */ a = 1')).toEqual(select({ where: bin('=', path('a'), lit(1)) }));
  });

  it('reports the line and column of an error on a later line', () => {
    const error = errorOf('SELECT *\nFROM t\nWHERE a = 1\n    AND ) = 2');
    expect(error.message).toBe('Syntax error at line 4 column 9: expected an expression, found )');
    expect(error.position).toEqual({ line: 4, column: 9, offset: 36 });
    expect(messageOf('SELECT *\r\n  FROM t\r\n    # x')).toBe('Syntax error at line 3 column 5: expected a token, found #');
  });

  it('counts lines inside block comments and strings before an error', () => {
    expect(messageOf("SELECT /* one\ntwo */ 'a\nb' AS\n  FROM t")).toBe('Syntax error at line 4 column 3: expected an alias, found FROM');
  });

  it('counts columns in UTF-16 code units', () => {
    expect(messageOf("SELECT '😀' ) FROM t")).toBe('Syntax error at line 1 column 13: expected FROM, found )');
  });
});

describe('malformed statements', () => {
  it('reports an empty statement as expecting a statement', () => {
    const error = errorOf('');
    expect(error.message).toBe('Syntax error at line 1 column 1: expected a statement, found end of input');
    expect(error.code).toBe('query/invalid');
    expect(error.position).toEqual({ line: 1, column: 1, offset: 0 });
    expect(error.details).toEqual({ expected: 'a statement', found: 'end of input', line: 1, column: 1 });
    expect(error.toValue()).toEqual({ code: 'query/invalid', message: error.message, details: error.details });
  });

  it('reports a whitespace- or comment-only statement as expecting a statement', () => {
    expect(messageOf('   ')).toBe('Syntax error at line 1 column 4: expected a statement, found end of input');
    expect(messageOf('-- nothing\n/* here */')).toBe('Syntax error at line 2 column 11: expected a statement, found end of input');
  });

  it('reports an unknown statement', () => {
    expect(messageOf('GRANT ALL ON t')).toBe('Syntax error at line 1 column 1: expected a statement, found GRANT');
    expect(messageOf('DROP INDEX i ON t')).toBe(
      'Syntax error at line 1 column 1: expected a statement (CREATE INDEX, DROP INDEX and EXPLAIN run on their own, through execute), found DROP',
    );
    expect(messageOf('`SELECT` * FROM t')).toBe('Syntax error at line 1 column 1: expected a statement, found `SELECT`');
  });

  it('reports the example from the design: SELECT * WHERE', () => {
    expect(messageOf('SELECT * WHERE x = 1')).toBe('Syntax error at line 1 column 10: expected FROM, found WHERE');
  });

  it('refuses a semicolon, alone or followed by another statement', () => {
    expect(messageOf('SELECT * FROM t;')).toBe('Syntax error at line 1 column 16: expected end of statement, found ;');
    expect(messageOf('SELECT * FROM t; DELETE FROM t')).toBe('Syntax error at line 1 column 16: expected end of statement, found ;');
  });

  it('refuses trailing garbage and clauses out of order', () => {
    expect(messageOf('SELECT * FROM t x y')).toBe('Syntax error at line 1 column 19: expected end of statement, found y');
    expect(messageOf('SELECT * FROM t LIMIT 1 WHERE a')).toBe('Syntax error at line 1 column 25: expected end of statement, found WHERE');
    expect(messageOf("DELETE FROM t WHERE a = 'x' 'y'")).toBe("Syntax error at line 1 column 29: expected end of statement, found 'y'");
  });

  it('reports a missing piece at the end of input', () => {
    expect(messageOf('SELECT * FROM')).toBe('Syntax error at line 1 column 14: expected a collection name, found end of input');
    expect(messageOf('SELECT * FROM t WHERE')).toBe('Syntax error at line 1 column 22: expected an expression, found end of input');
    expect(messageOf('SELECT * FROM t WHERE (a = 1')).toBe('Syntax error at line 1 column 29: expected ), found end of input');
    expect(messageOf('SELECT * FROM t ORDER a')).toBe('Syntax error at line 1 column 23: expected BY, found a');
  });

  it('reports lexer errors through parseStatement', () => {
    expect(messageOf("SELECT * FROM t WHERE name = 'abc")).toBe(
      "Syntax error at line 1 column 34: expected a closing ' for the string started at line 1 column 30, found end of input",
    );
    expect(messageOf('SELECT * FROM t WHERE a = 1 # 2')).toBe('Syntax error at line 1 column 29: expected a token, found #');
  });

  it('reports the first error in reading order', () => {
    expect(messageOf("SELECT * WHERE 'unterminated")).toBe('Syntax error at line 1 column 10: expected FROM, found WHERE');
  });

  it('shortens a long string or name in an error message', () => {
    expect(messageOf(`SELECT * FROM t '${'x'.repeat(60)}'`)).toBe(`Syntax error at line 1 column 17: expected end of statement, found '${'x'.repeat(40)}…'`);
  });
});

describe('limits', () => {
  const nested = (depth: number) => `SELECT ${'('.repeat(depth)}1${')'.repeat(depth)} FROM t`;

  it(`accepts ${MAX_NESTING_DEPTH} levels of nesting`, () => {
    expect(parseStatement(nested(MAX_NESTING_DEPTH)).kind).toBe('select');
    expect(parseStatement(`SELECT ${'['.repeat(MAX_NESTING_DEPTH)}${']'.repeat(MAX_NESTING_DEPTH)} FROM t`).kind).toBe('select');
  });

  it('refuses one level more, naming the position of the opening that is too deep', () => {
    const error = errorOf(nested(MAX_NESTING_DEPTH + 1));
    expect(error.message).toBe(`Syntax error at line 1 column ${8 + MAX_NESTING_DEPTH}: expected at most 200 levels of nesting, found (`);
    expect(error.position?.offset).toBe(7 + MAX_NESTING_DEPTH);
  });

  it('refuses very deep nesting of every kind with a ParseError, not a stack overflow', () => {
    const deep = 100_000;
    for (const text of [
      nested(deep),
      `SELECT ${'['.repeat(deep)} FROM t`,
      `SELECT ${'{a: '.repeat(deep)} FROM t`,
      `SELECT ${'f('.repeat(deep)} FROM t`,
      `SELECT * FROM t WHERE ${'NOT '.repeat(deep)} a`,
      `SELECT ${'- '.repeat(deep)}a FROM t`,
      `SELECT * FROM t WHERE a IN ${'('.repeat(deep)}`,
    ]) {
      expect(errorOf(text).message).toMatch(/^Syntax error at line 1 column \d+: expected at most 200 levels of nesting, found /);
    }
  });

  it('refuses an operator chain taller than MAX_EXPRESSION_HEIGHT, so that walking the tree cannot overflow', () => {
    const chain = (terms: number) => `SELECT * FROM t AS x WHERE ${Array.from({ length: terms }, () => 'x.a').join(' OR ')}`;
    expect(parseStatement(chain(MAX_EXPRESSION_HEIGHT)).kind).toBe('select');
    const prefix = 'SELECT * FROM t AS x WHERE '.length;
    expect(messageOf(chain(MAX_EXPRESSION_HEIGHT + 1))).toBe(
      `Syntax error at line 1 column ${prefix + MAX_EXPRESSION_HEIGHT * 7 - 2}: expected an expression at most 1000 operators deep, found OR`,
    );
    expect(messageOf(`SELECT ${'1 + '.repeat(200_000)}1 FROM t`)).toMatch(/expected an expression at most 1000 operators deep, found \+$/);
  });

  it('accepts a statement of exactly MAX_STATEMENT_LENGTH characters', () => {
    const head = "SELECT * FROM t WHERE a = '";
    const text = `${head}${'x'.repeat(MAX_STATEMENT_LENGTH - head.length - 1)}'`;
    expect(text.length).toBe(MAX_STATEMENT_LENGTH);
    expect(parseStatement(text).kind).toBe('select');
  });

  it('refuses a longer statement before reading it, at line 1 column 1', () => {
    const error = errorOf(`SELECT * FROM t ${' '.repeat(MAX_STATEMENT_LENGTH)}`);
    expect(error.message).toBe('statement is longer than 1000000 characters');
    expect(error.position).toEqual({ line: 1, column: 1, offset: 0 });
    expect(error.code).toBe('query/invalid');
  });
});

describe('the expression tree', () => {
  it('types as the AST contract', () => {
    const statement = parseStatement('SELECT * FROM t WHERE a = 1') as SelectStatement;
    const condition: Expr | undefined = statement.where;
    expect(condition?.kind).toBe('binary');
  });
});
