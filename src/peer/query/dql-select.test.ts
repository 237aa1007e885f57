/**
 * Exact results of SELECT on both storages: missing versus null, three-valued logic, range
 * comparisons within a type, the cross-type order in ORDER BY, IN, LIKE, arithmetic,
 * projections and aggregates.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { STORAGES, freshPeer, seed } from '../../testing/dql-test-peers.ts';

/** One field `x` holding every type, `_id`s deliberately not in the order of `x`. */
const EVERY_TYPE: JsonObject[] = [
  { _id: 'p', x: 'abc' },
  { _id: 'q', x: false },
  { _id: 'r', x: null },
  { _id: 's', x: 10 },
  { _id: 't', x: [1, 2] },
  { _id: 'u' },
  { _id: 'v', x: true },
  { _id: 'w', x: { k: 1 } },
  { _id: 'x', x: -1.5 },
  { _id: 'y', x: '10' },
  { _id: 'z', x: 3 },
  { _id: 'o', x: [0, 'z'] },
  { _id: 'n', x: { a: 5 } },
];

const PEOPLE: JsonObject[] = [
  { _id: 1, name: 'Alice' },
  { _id: 2, name: 'alex' },
  { _id: 3, name: 'Al' },
  { _id: 4, name: 42 },
  { _id: 5, name: null },
  { _id: 6 },
  { _id: 7, name: 'a*b?[c]' },
  { _id: 8, name: 'Zoë😀' },
];

const SALES: JsonObject[] = [
  { _id: 1, region: 'north', amount: 10 },
  { _id: 2, region: 'north', amount: 5.5 },
  { _id: 3, region: 'south', amount: '7' },
  { _id: 4, region: 'south', amount: null },
  { _id: 5, region: null, amount: 2 },
  { _id: 6, amount: 3 },
  { _id: 7, region: 'north' },
];

describe.each(STORAGES)('SELECT on %s storage', (_kind, open) => {
  const { peer } = freshPeer(open);
  const items = async (statement: string, args?: Record<string, unknown>): Promise<JsonObject[]> => (await peer().store.execute(statement, args)).items;
  /** The `_id`s of the documents of `collection` matching `condition`, in `_id` order. */
  const idsWhere = async (collection: string, condition: string, args?: Record<string, unknown>): Promise<JsonValue[]> =>
    (await items(`SELECT _id FROM ${collection} WHERE ${condition}`, args)).map((row) => row._id as JsonValue);

  describe('missing is not null', () => {
    it('matches isDeleted == false only where the field is present, and coalesce(isDeleted, false) = false also where it is missing', async () => {
      await seed(peer(), 'cars', [{ _id: 'a', isDeleted: false }, { _id: 'b', isDeleted: true }, { _id: 'c' }, { _id: 'd', isDeleted: null }]);
      expect(await idsWhere('cars', 'isDeleted == false')).toEqual(['a']);
      expect(await idsWhere('cars', 'coalesce(isDeleted, false) = false')).toEqual(['a', 'c', 'd']);
    });

    it('matches nothing with x = null, not even a document holding null', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', 'x = null')).toEqual([]);
      expect(await idsWhere('things', 'x != null')).toEqual([]);
      expect(await idsWhere('things', 'NOT (x = null)')).toEqual([]);
    });

    it('tells IS NULL from IS MISSING, and their negations', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', 'x IS NULL')).toEqual(['r']);
      expect(await idsWhere('things', 'x IS MISSING')).toEqual(['u']);
      expect(await idsWhere('things', 'x IS NOT NULL')).toEqual(['n', 'o', 'p', 'q', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z']);
      expect(await idsWhere('things', 'x IS NOT MISSING')).toEqual(['n', 'o', 'p', 'q', 'r', 's', 't', 'v', 'w', 'x', 'y', 'z']);
    });

    it("excludes null and missing values from x != 'abc' while keeping every other type", async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', "x != 'abc'")).toEqual(['n', 'o', 'q', 's', 't', 'v', 'w', 'x', 'y', 'z']);
      expect(await idsWhere('things', "x <> 'abc'")).toEqual(['n', 'o', 'q', 's', 't', 'v', 'w', 'x', 'y', 'z']);
    });

    it('treats a path through a scalar or past the end of an array as missing', async () => {
      await seed(peer(), 'nested', [
        { _id: 1, a: { b: { c: 1 } }, arr: [10, 20] },
        { _id: 2, a: 5, arr: [] },
        { _id: 3, a: { b: null } },
      ]);
      expect(await items('SELECT _id, a.b.c AS c, arr[1] AS second FROM nested')).toEqual([{ _id: 1, c: 1, second: 20 }, { _id: 2 }, { _id: 3 }]);
      expect(await idsWhere('nested', 'a.b.c IS MISSING')).toEqual([2, 3]);
      expect(await idsWhere('nested', 'a.b IS NULL')).toEqual([3]);
      expect(await idsWhere('nested', 'arr[0] = 10')).toEqual([1]);
    });
  });

  describe('three-valued logic', () => {
    it('keeps a document only where the condition is true: unknown OR true is true, unknown AND true is unknown', async () => {
      await seed(peer(), 'pairs', [{ _id: 1, a: 1, b: 1 }, { _id: 2, b: 1 }, { _id: 3, a: 1 }, { _id: 4 }]);
      expect(await idsWhere('pairs', 'a = 1 OR b = 1')).toEqual([1, 2, 3]);
      expect(await idsWhere('pairs', 'a = 1 AND b = 1')).toEqual([1]);
      expect(await idsWhere('pairs', 'NOT (a = 1 AND b = 1)')).toEqual([]);
      expect(await idsWhere('pairs', 'NOT (a = 1 OR b = 1)')).toEqual([]);
      expect(await idsWhere('pairs', 'a = 1 OR a IS MISSING')).toEqual([1, 2, 3, 4]);
    });

    it('uses a boolean field as a condition and treats every other value as unknown', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', 'x')).toEqual(['v']);
      expect(await idsWhere('things', 'NOT x')).toEqual(['q']);
      expect(await idsWhere('things', 'x = true')).toEqual(['v']);
    });
  });

  describe('no coercion', () => {
    it('finds 10 with 10.0, and never a number with a string or a boolean', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', 'x = 10.0')).toEqual(['s']);
      expect(await idsWhere('things', 'x = 10')).toEqual(['s']);
      expect(await idsWhere('things', "x = '10'")).toEqual(['y']);
      expect(await idsWhere('things', 'x = 1')).toEqual([]);
      expect(await idsWhere('things', 'x = 0')).toEqual([]);
    });

    it('finds 0 with -0', async () => {
      await seed(peer(), 'zeros', [
        { _id: 1, z: 0 },
        { _id: 2, z: -0 },
        { _id: 3, z: '0' },
      ]);
      expect(await idsWhere('zeros', 'z = -0')).toEqual([1, 2]);
      expect(await idsWhere('zeros', 'z = :z', { z: -0 })).toEqual([1, 2]);
      expect(await idsWhere('zeros', 'z IN [-0]')).toEqual([1, 2]);
    });

    it('finds integers beyond 2^53 exactly as JavaScript reads them, in comparisons and IN lists', async () => {
      // eslint-disable-next-line no-loss-of-precision -- literals beyond 2^53 are what this test is about
      const big = [2 ** 60, 2 ** 60 + 256, 1700000000123456789, -(2 ** 62) - 1024, 9223372036854775000];
      await seed(
        peer(),
        'big',
        big.map((x, i) => ({ _id: i, x })),
      );
      for (const [i, x] of big.entries()) {
        expect(await idsWhere('big', 'x = :x', { x })).toEqual([i]);
        expect(await idsWhere('big', 'x IN [:x, 1]', { x })).toEqual([i]);
      }
      expect(await idsWhere('big', 'x >= :x', { x: 2 ** 60 + 256 })).toEqual([1, 2, 4]);
      expect(await idsWhere('big', 'x > :x', { x: 9223372036854775000 })).toEqual([]);
      expect((await items('SELECT _id FROM big ORDER BY x DESC')).map((r) => r._id)).toEqual([4, 2, 1, 0, 3]);
    });

    it('compares arrays and objects by value, whatever the key order', async () => {
      await seed(peer(), 'things', [...EVERY_TYPE, { _id: 'm', x: { a: 1, b: [2, { c: 3 }] } }]);
      expect(await idsWhere('things', 'x = [1, 2.0]')).toEqual(['t']);
      expect(await idsWhere('things', 'x = {k: 1}')).toEqual(['w']);
      expect(await idsWhere('things', 'x = {b: [2, {c: 3}], a: 1}')).toEqual(['m']);
      expect(await idsWhere('things', 'x = :v', { v: { b: [2, { c: 3.0 }], a: 1 } })).toEqual(['m']);
      expect(await idsWhere('things', 'x = [2, 1]')).toEqual([]);
    });

    it('compares strings case-sensitively', async () => {
      await seed(peer(), 'people', PEOPLE);
      expect(await idsWhere('people', "name = 'alice'")).toEqual([]);
      expect(await idsWhere('people', "name = 'Alice'")).toEqual([1]);
      expect(await idsWhere('people', "name = \"Alice\" OR name = 'it''s'")).toEqual([1]);
    });
  });

  describe('range comparisons hold only between values of one type', () => {
    it('makes x > 5 true only for larger numbers, and x <= true only for booleans', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', 'x > 5')).toEqual(['s']);
      expect(await idsWhere('things', 'x < 0')).toEqual(['x']);
      expect(await idsWhere('things', 'x <= true')).toEqual(['q', 'v']);
      expect(await idsWhere('things', 'x < false')).toEqual([]);
    });

    it("compares strings only with strings, arrays with arrays and objects with objects: x >= 'a'", async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', "x >= 'a'")).toEqual(['p']);
      expect(await idsWhere('things', 'x >= [1, 2]')).toEqual(['t']);
      expect(await idsWhere('things', 'x > {a: 5}')).toEqual(['w']);
    });

    it('includes both ends in BETWEEN, and NOT BETWEEN leaves out other types, null and missing', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', 'x BETWEEN 3 AND 10')).toEqual(['s', 'z']);
      expect(await idsWhere('things', 'x NOT BETWEEN 3 AND 10')).toEqual(['x']);
      // Bounds of two types: no value is of both, and NOT BETWEEN keeps a value outside one of them.
      expect(await idsWhere('things', "x BETWEEN 3 AND '10'")).toEqual([]);
      expect(await idsWhere('things', "x NOT BETWEEN 3 AND '10'")).toEqual(['p', 'x']);
    });

    it('compares strings by code point, so U+FFFF sorts before an emoji and upper case before lower case', async () => {
      await seed(peer(), 'words', [
        { _id: 1, s: 'b' },
        { _id: 2, s: 'B' },
        { _id: 3, s: 'é' },
        { _id: 4, s: '\uFFFF' },
        { _id: 5, s: '\u{1F600}' },
        { _id: 6, s: 'ab' },
        { _id: 7, s: 'a' },
      ]);
      expect(await idsWhere('words', "s > '\uFFFF'")).toEqual([5]);
      expect(await idsWhere('words', "s < 'a'")).toEqual([2]);
      expect((await items('SELECT s FROM words ORDER BY s')).map((r) => r.s)).toEqual(['B', 'a', 'ab', 'b', 'é', '\uFFFF', '\u{1F600}']);
    });
  });

  describe('ORDER BY', () => {
    it('orders a field holding every type as false, true, numbers, strings, arrays, objects, null, missing', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await items('SELECT _id, x FROM things ORDER BY x')).toEqual([
        { _id: 'q', x: false },
        { _id: 'v', x: true },
        { _id: 'x', x: -1.5 },
        { _id: 'z', x: 3 },
        { _id: 's', x: 10 },
        { _id: 'y', x: '10' },
        { _id: 'p', x: 'abc' },
        { _id: 'o', x: [0, 'z'] },
        { _id: 't', x: [1, 2] },
        { _id: 'n', x: { a: 5 } },
        { _id: 'w', x: { k: 1 } },
        { _id: 'r', x: null },
        { _id: 'u' },
      ]);
    });

    it('orders DESC as the exact reverse of ASC', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      const asc = (await items('SELECT _id FROM things ORDER BY x ASC')).map((r) => r._id);
      const desc = (await items('SELECT _id FROM things ORDER BY x DESC')).map((r) => r._id);
      expect(desc).toEqual(['u', 'r', 'w', 'n', 't', 'o', 'p', 'y', 's', 'z', 'x', 'v', 'q']);
      expect(desc).toEqual([...asc].reverse());
    });

    it('orders arrays element by element, a prefix first', async () => {
      const arrays: JsonValue[] = [[{}], ['a'], [1, 'a'], [], [[1]], [2], [1, 2], [1]];
      await seed(
        peer(),
        'lists',
        arrays.map((v, i) => ({ _id: i, v })),
      );
      expect((await items('SELECT v FROM lists ORDER BY v')).map((r) => r.v)).toEqual([[], [1], [1, 2], [1, 'a'], [2], ['a'], [[1]], [{}]]);
    });

    it('orders objects by their sorted keys, then values, fewer entries first on a common prefix', async () => {
      const objects: JsonObject[] = [{ b: 1 }, { a: 'x' }, { a: 2 }, { b: 5, a: 1 }, { a: 1 }, {}];
      await seed(
        peer(),
        'maps',
        objects.map((v, i) => ({ _id: i, v })),
      );
      expect((await items('SELECT v FROM maps ORDER BY v')).map((r) => r.v)).toEqual([{}, { a: 1 }, { a: 1, b: 5 }, { a: 2 }, { a: 'x' }, { b: 1 }]);
      expect(await idsWhere('maps', 'v > {a: 1}')).toEqual([0, 1, 2, 3]);
    });

    it('breaks ties by _id ascending, also under DESC', async () => {
      await seed(peer(), 'sales', SALES);
      expect((await items('SELECT _id FROM sales ORDER BY region DESC')).map((r) => r._id)).toEqual([6, 5, 3, 4, 1, 2, 7]);
      expect((await items('SELECT _id FROM sales ORDER BY region')).map((r) => r._id)).toEqual([1, 2, 7, 3, 4, 5, 6]);
    });

    it('orders by several terms, each in its own direction', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT _id FROM sales WHERE region IS NOT MISSING ORDER BY region DESC, amount')).toEqual([
        { _id: 5 },
        { _id: 3 },
        { _id: 4 },
        { _id: 2 },
        { _id: 1 },
        { _id: 7 },
      ]);
    });

    it('orders by an alias as by its projection, even when the alias is also a field name', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT _id, amount * -1 AS neg FROM sales WHERE is_number(amount) ORDER BY neg')).toEqual([
        { _id: 1, neg: -10 },
        { _id: 2, neg: -5.5 },
        { _id: 6, neg: -3 },
        { _id: 5, neg: -2 },
      ]);
      expect(await items('SELECT _id, amount AS region FROM sales WHERE _id <= 3 ORDER BY region DESC')).toEqual([
        { _id: 3, region: '7' },
        { _id: 1, region: 10 },
        { _id: 2, region: 5.5 },
      ]);
    });

    it('orders by a computed expression in the cross-type order', async () => {
      await seed(peer(), 'people', PEOPLE);
      expect((await items('SELECT _id FROM people ORDER BY lower(name) DESC')).map((r) => r._id)).toEqual([6, 4, 5, 8, 1, 2, 3, 7]);
    });

    it('applies LIMIT and OFFSET after ordering, and takes them from parameters', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT _id FROM sales ORDER BY _id DESC LIMIT 2 OFFSET 1')).toEqual([{ _id: 6 }, { _id: 5 }]);
      expect(await items('SELECT _id FROM sales LIMIT :n OFFSET :skip', { n: 3, skip: 5 })).toEqual([{ _id: 6 }, { _id: 7 }]);
      expect(await items('SELECT _id FROM sales LIMIT 0')).toEqual([]);
    });

    it('treats a LIMIT or OFFSET beyond the largest safe integer as beyond every document', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT _id FROM sales WHERE _id < 3 LIMIT 1e20')).toEqual([{ _id: 1 }, { _id: 2 }]);
      expect(await items('SELECT _id FROM sales ORDER BY _id DESC LIMIT 9223372036854775807 OFFSET 5')).toEqual([{ _id: 2 }, { _id: 1 }]);
      expect(await items('SELECT _id FROM sales LIMIT 1 OFFSET 1e300')).toEqual([]);
      expect(await items('SELECT DISTINCT region FROM sales LIMIT 1e20 OFFSET 3')).toEqual([{}]);
    });
  });

  describe('default order', () => {
    it('returns documents in the cross-type order of _id when there is no ORDER BY', async () => {
      const ids: JsonValue[] = ['b', 10, { a: 1 }, 'B', 2, { z: 1, a: 0 }, 'é', '\u{1F600}', '\uFFFF', -3.5];
      await seed(
        peer(),
        'ids',
        ids.map((_id) => ({ _id })),
      );
      expect((await items('SELECT * FROM ids')).map((r) => r._id)).toEqual([-3.5, 2, 10, 'B', 'b', 'é', '\uFFFF', '\u{1F600}', { a: 0, z: 1 }, { a: 1 }]);
    });

    it('finds an object _id whatever the key order of the lookup', async () => {
      await seed(peer(), 'ids', [
        { _id: { a: 1, b: 2 }, v: 1 },
        { _id: { a: 1 }, v: 2 },
      ]);
      expect(await items('SELECT * FROM ids WHERE _id = {b: 2, a: 1}')).toEqual([{ _id: { a: 1, b: 2 }, v: 1 }]);
      expect(await items('SELECT v FROM ids WHERE _id = :id', { id: { b: 2, a: 1 } })).toEqual([{ v: 1 }]);
      expect(await items('SELECT v FROM ids WHERE _id IN [{b: 2, a: 1}, {a: 1.0}]')).toEqual([{ v: 2 }, { v: 1 }]);
    });

    it('finds a number _id written as 10 with 10.0, and never with the string', async () => {
      await seed(peer(), 'ids', [
        { _id: 10, v: 'number' },
        { _id: '10', v: 'string' },
      ]);
      expect(await items('SELECT v FROM ids WHERE _id = 10.0')).toEqual([{ v: 'number' }]);
      expect(await items("SELECT v FROM ids WHERE _id = '10'")).toEqual([{ v: 'string' }]);
      expect(await items("SELECT v FROM ids WHERE _id != '10'")).toEqual([{ v: 'number' }]);
    });
  });

  describe('IN', () => {
    it('finds a value among scalars of several types', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', "x IN (10, 'abc')")).toEqual(['p', 's']);
      expect(await idsWhere('things', "x IN [true, '10', 3.0]")).toEqual(['v', 'y', 'z']);
      expect(await idsWhere('things', 'x IN [[1, 2], {k: 1}]')).toEqual(['t', 'w']);
    });

    it('is unknown when not found and the list holds null, so NOT IN then excludes the document', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', 'x IN (3, null)')).toEqual(['z']);
      expect(await idsWhere('things', 'x IN (4, null)')).toEqual([]);
      expect(await idsWhere('things', 'x NOT IN (3, null)')).toEqual([]);
      expect(await idsWhere('things', '_id IN (:a, null)', { a: 'p' })).toEqual(['p']);
      expect(await idsWhere('things', '_id NOT IN (:a, null)', { a: 'p' })).toEqual([]);
    });

    it('excludes null and missing values from NOT IN', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect(await idsWhere('things', 'x NOT IN (3, 10)')).toEqual(['n', 'o', 'p', 'q', 't', 'v', 'w', 'x', 'y']);
    });

    it('searches an array bound as a parameter or held by a field', async () => {
      await seed(peer(), 'posts', [
        { _id: 1, tags: ['red', 'blue'], favourite: 'blue' },
        { _id: 2, tags: ['green'], favourite: 'red' },
        { _id: 3, tags: 'red', favourite: 'red' },
        { _id: 4, favourite: 'red' },
      ]);
      expect(await idsWhere('posts', "'red' IN tags")).toEqual([1]);
      expect(await idsWhere('posts', 'favourite IN tags')).toEqual([1]);
      expect(await idsWhere('posts', 'favourite IN :wanted', { wanted: ['red', 'yellow'] })).toEqual([2, 3, 4]);
      expect(await idsWhere('posts', 'array_contains(tags, favourite)')).toEqual([1]);
    });

    it('is unknown for a haystack that is not an array, so NOT IN excludes it too', async () => {
      await seed(peer(), 'posts', [
        { _id: 1, tags: 'red' },
        { _id: 2, tags: ['red'] },
      ]);
      expect(await idsWhere('posts', "'red' IN tags")).toEqual([2]);
      expect(await idsWhere('posts', "'red' NOT IN tags")).toEqual([]);
      expect(await idsWhere('posts', '_id IN :p', { p: 1 })).toEqual([]);
      expect(await idsWhere('posts', '_id NOT IN :p', { p: 1 })).toEqual([]);
    });
  });

  describe('LIKE and ILIKE', () => {
    it('matches % and _ case-sensitively with LIKE and case-insensitively with ILIKE', async () => {
      await seed(peer(), 'people', PEOPLE);
      expect(await idsWhere('people', "name LIKE 'Al%'")).toEqual([1, 3]);
      expect(await idsWhere('people', "name LIKE 'al%'")).toEqual([2]);
      expect(await idsWhere('people', "name ILIKE 'AL%'")).toEqual([1, 2, 3]);
      expect(await idsWhere('people', "name LIKE 'A_'")).toEqual([3]);
      expect(await idsWhere('people', "name LIKE '%'")).toEqual([1, 2, 3, 7, 8]);
    });

    it('is false for a value that is not a string and unknown for null and missing', async () => {
      await seed(peer(), 'people', PEOPLE);
      expect(await idsWhere('people', "name NOT LIKE 'Al%'")).toEqual([2, 4, 7, 8]);
      expect(await idsWhere('people', "name NOT ILIKE 'al%'")).toEqual([4, 7, 8]);
    });

    it('matches *, ? and [ literally, and _ against one whole character', async () => {
      await seed(peer(), 'people', PEOPLE);
      expect(await idsWhere('people', "name LIKE 'a*b?[c]'")).toEqual([7]);
      expect(await idsWhere('people', "name LIKE '%?%'")).toEqual([7]);
      expect(await idsWhere('people', "name LIKE '[%'")).toEqual([]);
      expect(await idsWhere('people', "name LIKE 'Zo__'")).toEqual([8]);
      expect(await idsWhere('people', "name ILIKE 'zoË%'")).toEqual([8]);
    });

    it('matches text holding NUL characters over its whole length', async () => {
      await seed(peer(), 'nul', [
        { _id: 1, s: 'a\u0000b' },
        { _id: 2, s: 'a' },
        { _id: 3, s: 'ab' },
      ]);
      expect(await idsWhere('nul', "s LIKE 'a%b'")).toEqual([1, 3]);
      expect(await idsWhere('nul', "s LIKE '_'")).toEqual([2]);
      expect(await idsWhere('nul', "s NOT LIKE '_'")).toEqual([1, 3]);
      expect(await idsWhere('nul', 's LIKE :p', { p: 'a\u0000%' })).toEqual([1]);
      expect(await idsWhere('nul', "s = 'a\\u0000b'")).toEqual([1]);
    });

    it('takes its pattern from a parameter or a field', async () => {
      await seed(peer(), 'patterns', [
        { _id: 1, s: 'abc', p: 'a%' },
        { _id: 2, s: 'abc', p: 'b%' },
        { _id: 3, s: 'ABC', p: 'a%' },
      ]);
      expect(await idsWhere('patterns', 's LIKE p')).toEqual([1]);
      expect(await idsWhere('patterns', 's ILIKE p')).toEqual([1, 3]);
      expect(await idsWhere('patterns', 's LIKE :p', { p: '%C' })).toEqual([3]);
    });
  });

  describe('arithmetic and functions', () => {
    it('gives null for arithmetic on a non-number or a division by zero, and leaves a missing operand out of the row', async () => {
      await seed(peer(), 'nums', [{ _id: 1, n: 10 }, { _id: 2, n: '10' }, { _id: 3, n: null }, { _id: 4 }, { _id: 5, n: 0 }]);
      expect(await items('SELECT _id, n * 2 AS twice, 10 / n AS q, n % 3 AS r, -n AS neg FROM nums')).toEqual([
        { _id: 1, twice: 20, q: 1, r: 1, neg: -10 },
        { _id: 2, twice: null, q: null, r: null, neg: null },
        { _id: 3, twice: null, q: null, r: null, neg: null },
        { _id: 4 },
        { _id: 5, twice: 0, q: null, r: 0, neg: 0 },
      ]);
    });

    it('filters on arithmetic in WHERE with the same answers', async () => {
      await seed(peer(), 'nums', [{ _id: 1, n: 10 }, { _id: 2, n: '10' }, { _id: 3, n: null }, { _id: 4 }, { _id: 5, n: 0 }]);
      expect(await idsWhere('nums', 'n * 2 = 20')).toEqual([1]);
      expect(await idsWhere('nums', '10 / n IS NULL')).toEqual([2, 3, 5]);
      expect(await idsWhere('nums', 'n + 1 IS MISSING')).toEqual([4]);
      expect(await idsWhere('nums', 'n - 1 > 5')).toEqual([1]);
    });

    it('concatenates strings with || and gives null for other types', async () => {
      await seed(peer(), 'people', PEOPLE);
      expect(await items("SELECT _id, 'Hi ' || name AS greeting FROM people WHERE _id <= 6")).toEqual([
        { _id: 1, greeting: 'Hi Alice' },
        { _id: 2, greeting: 'Hi alex' },
        { _id: 3, greeting: 'Hi Al' },
        { _id: 4, greeting: null },
        { _id: 5, greeting: null },
        { _id: 6 },
      ]);
    });

    it('applies string and array functions, counting characters by code point', async () => {
      await seed(peer(), 'people', [...PEOPLE, { _id: 9, name: ['x', 'y'] }]);
      expect(await items('SELECT _id, upper(name) AS u, length(name) AS n, array_length(name) AS a FROM people WHERE _id >= 7')).toEqual([
        { _id: 7, u: 'A*B?[C]', n: 7, a: null },
        { _id: 8, u: 'ZOË😀', n: 4, a: null },
        { _id: 9, u: null, n: null, a: 2 },
      ]);
      expect(await idsWhere('people', 'length(name) = 4')).toEqual([2, 8]);
    });

    it('names the type of every value, missing included', async () => {
      await seed(peer(), 'things', EVERY_TYPE);
      expect((await items('SELECT type(x) AS t FROM things ORDER BY x')).map((r) => r.t)).toEqual([
        'boolean',
        'boolean',
        'number',
        'number',
        'number',
        'string',
        'string',
        'array',
        'array',
        'object',
        'object',
        'null',
        'missing',
      ]);
    });
  });

  describe('projections', () => {
    it('names a projection by its alias, else a path by its last field, else by its position', async () => {
      await seed(peer(), 'people', [{ _id: 1, name: 'Ann', address: { city: 'Oslo' }, n: 1 }]);
      expect(await items('SELECT name, address.city, n + 1, upper(name) AS shout, address FROM people')).toEqual([
        { name: 'Ann', city: 'Oslo', '($3)': 2, shout: 'ANN', address: { city: 'Oslo' } },
      ]);
    });

    it('leaves a missing projected value out of the row but keeps a null one', async () => {
      await seed(peer(), 'people', PEOPLE);
      expect(await items('SELECT _id, name FROM people WHERE _id IN [4, 5, 6]')).toEqual([{ _id: 4, name: 42 }, { _id: 5, name: null }, { _id: 6 }]);
    });

    it('projects * with further expressions', async () => {
      await seed(peer(), 'people', [{ _id: 1, name: 'Ann' }]);
      expect(await items('SELECT *, lower(name) AS low FROM people')).toEqual([{ _id: 1, name: 'Ann', low: 'ann' }]);
    });

    it('reads paths through a collection alias, backticks and keywords in any case', async () => {
      await seed(peer(), 'orders', [
        { _id: 1, total: 5, 'odd name': 'x', order: 1 },
        { _id: 2, total: 0, order: 2 },
      ]);
      expect(await items('SELECT o.total FROM orders o WHERE o.total > 1')).toEqual([{ total: 5 }]);
      expect(await items('select `odd name`, `order` from COLLECTION orders where `order` = 1')).toEqual([{ 'odd name': 'x', order: 1 }]);
      expect(await items('SELECT _id FROM orders ORDER BY _id DESC LIMIT 1')).toEqual([{ _id: 2 }]);
    });

    it('filters on a field whose name cannot be written as a JSON path: a quote, a backslash, a NUL', async () => {
      await seed(peer(), 'odd', [
        { _id: 1, 'we"ird': 1 },
        { _id: 2, 'we"ird': 2 },
        { _id: 3, 'back\\slash': 1, 'n\u0000ul': { v: 1 } },
      ]);
      expect(await items('SELECT * FROM odd WHERE `we"ird` = 2')).toEqual([{ _id: 2, 'we"ird': 2 }]);
      expect(await items('SELECT _id FROM odd WHERE `back\\slash` = 1 ORDER BY `we"ird` DESC')).toEqual([{ _id: 3 }]);
      expect(await items('SELECT _id FROM odd WHERE `n\u0000ul`.v = 1 OR `n\u0000ul` IN [1]')).toEqual([{ _id: 3 }]);
      expect(await items("SELECT _id FROM odd AS o WHERE o['n\\u0000ul'].v = 1")).toEqual([{ _id: 3 }]);
      expect(await items('SELECT _id FROM odd ORDER BY `n\u0000ul` DESC')).toEqual([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
    });

    it('returns copies: changing a result does not change the store', async () => {
      await seed(peer(), 'people', [{ _id: 1, name: 'Ann', tags: ['a'] }]);
      const [first] = await items('SELECT * FROM people');
      (first as JsonObject).name = 'changed';
      ((first as JsonObject).tags as JsonValue[]).push('b');
      expect(await items('SELECT * FROM people')).toEqual([{ _id: 1, name: 'Ann', tags: ['a'] }]);
    });
  });

  describe('aggregates', () => {
    it('counts rows with COUNT(*) and skips null and missing elsewhere; SUM and AVG take numbers only', async () => {
      await seed(peer(), 'sales', SALES);
      expect(
        await items('SELECT COUNT(*) AS n, COUNT(amount) AS c, SUM(amount) AS s, AVG(amount) AS a, MIN(amount) AS lo, MAX(amount) AS hi FROM sales'),
      ).toEqual([{ n: 7, c: 5, s: 20.5, a: 5.125, lo: 2, hi: '7' }]);
    });

    it('gives one row over an empty or never-written collection: COUNT(*) 0, others null', async () => {
      expect(await items('SELECT COUNT(*) FROM never_written')).toEqual([{ '($1)': 0 }]);
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT COUNT(*) AS n, SUM(amount) AS s, MIN(amount) AS lo, AVG(amount) AS a FROM sales WHERE _id > 100')).toEqual([
        { n: 0, s: null, lo: null, a: null },
      ]);
      expect(await items("SELECT SUM(amount) AS s FROM sales WHERE region = 'south'")).toEqual([{ s: null }]);
    });

    it('groups null and missing apart, in the cross-type order of the group key', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT region, COUNT(*) AS n, SUM(amount) AS total FROM sales GROUP BY region')).toEqual([
        { region: 'north', n: 3, total: 15.5 },
        { region: 'south', n: 2, total: null },
        { region: null, n: 1, total: 2 },
        { n: 1, total: 3 },
      ]);
    });

    it('orders groups by an aggregate alias, ties in group order', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT region, SUM(amount) AS total FROM sales GROUP BY region ORDER BY total')).toEqual([
        { region: null, total: 2 },
        { total: 3 },
        { region: 'north', total: 15.5 },
        { region: 'south', total: null },
      ]);
      expect(await items('SELECT region, COUNT(*) AS n FROM sales GROUP BY region ORDER BY n DESC LIMIT 3')).toEqual([
        { region: 'north', n: 3 },
        { region: 'south', n: 2 },
        { region: null, n: 1 },
      ]);
    });

    it('orders groups by a projection name with null and missing kept apart, DESC the exact reverse', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT region AS r, COUNT(*) AS n FROM sales GROUP BY region ORDER BY r DESC')).toEqual([
        { n: 1 },
        { r: null, n: 1 },
        { r: 'south', n: 2 },
        { r: 'north', n: 3 },
      ]);
      expect(await items('SELECT COUNT(*) AS n, region FROM sales GROUP BY region ORDER BY region DESC')).toEqual([
        { n: 1 },
        { n: 1, region: null },
        { n: 2, region: 'south' },
        { n: 3, region: 'north' },
      ]);
    });

    it('orders groups by an aggregate that is not projected, and by a group key that is not projected', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT region FROM sales GROUP BY region ORDER BY COUNT(*), region DESC')).toEqual([
        {},
        { region: null },
        { region: 'south' },
        { region: 'north' },
      ]);
      expect(await items('SELECT COUNT(*) AS n FROM sales GROUP BY region ORDER BY region DESC')).toEqual([{ n: 1 }, { n: 1 }, { n: 2 }, { n: 3 }]);
    });

    it('computes with aggregates inside expressions', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT SUM(amount) / COUNT(amount) AS ratio, COUNT(*) + 1, SUM(amount * 2) AS twice FROM sales')).toEqual([
        { ratio: 4.1, '($2)': 8, twice: 41 },
      ]);
    });

    it('gives no rows when GROUP BY finds no documents', async () => {
      expect(await items('SELECT region, COUNT(*) AS n FROM never_written GROUP BY region')).toEqual([]);
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT region, COUNT(*) AS n FROM sales WHERE _id > 100 GROUP BY region')).toEqual([]);
    });

    it('aggregates distinct values with DISTINCT, skipping null and missing', async () => {
      await seed(peer(), 'sales', [...SALES, { _id: 8, region: 'west', amount: 10.0 }]);
      expect(await items('SELECT COUNT(DISTINCT region) AS regions, SUM(DISTINCT amount) AS s, COUNT(amount) AS c FROM sales')).toEqual([
        { regions: 3, s: 20.5, c: 6 },
      ]);
    });

    it('gives null for a SUM beyond the largest number, and still averages huge numbers', async () => {
      await seed(peer(), 'huge', [
        { _id: 1, x: 1e308 },
        { _id: 2, x: 1e308 },
        { _id: 3, x: -1e308 },
      ]);
      expect(await items('SELECT SUM(x) AS s, AVG(x) AS a, MAX(x) AS hi FROM huge WHERE x > 0')).toEqual([{ s: null, a: 1e308, hi: 1e308 }]);
      expect(await items('SELECT SUM(x) AS s FROM huge WHERE _id = 1')).toEqual([{ s: 1e308 }]);
    });

    it('reads counters as plain numbers in aggregates', async () => {
      await seed(peer(), 'cars', [{ _id: 1 }, { _id: 2 }]);
      await peer().store.execute('UPDATE cars APPLY km PN_INCREMENT BY 5');
      await peer().store.execute('UPDATE cars APPLY km PN_INCREMENT BY 2.5 WHERE _id = 2');
      expect(await items('SELECT SUM(km) AS total, MAX(km) AS most FROM cars')).toEqual([{ total: 12.5, most: 7.5 }]);
    });
  });

  describe('DISTINCT', () => {
    it('removes duplicate rows, keeping the first in order, and treats a missing value as its own row', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT DISTINCT region FROM sales')).toEqual([{ region: 'north' }, { region: 'south' }, { region: null }, {}]);
      expect(await items('SELECT DISTINCT region FROM sales ORDER BY region DESC')).toEqual([{}, { region: null }, { region: 'south' }, { region: 'north' }]);
    });

    it('applies LIMIT and OFFSET to the distinct rows', async () => {
      await seed(peer(), 'sales', SALES);
      expect(await items('SELECT DISTINCT region FROM sales LIMIT 2 OFFSET 1')).toEqual([{ region: 'south' }, { region: null }]);
    });

    it('treats equal objects with different key orders as one row', async () => {
      await seed(peer(), 'shapes', [
        { _id: 1, v: { a: 1, b: 2 } },
        { _id: 2, v: { b: 2, a: 1.0 } },
        { _id: 3, v: { a: 1 } },
      ]);
      expect(await items('SELECT DISTINCT v FROM shapes')).toEqual([{ v: { a: 1, b: 2 } }, { v: { a: 1 } }]);
    });
  });

  it('reads a never-written collection as empty', async () => {
    expect(await items('SELECT * FROM never_written')).toEqual([]);
    expect(await peer().store.execute('SELECT * FROM never_written WHERE x = 1')).toEqual({ items: [], mutatedDocumentIds: [], commitId: null });
  });
});
