/**
 * Error kinds of DQL statements on both storages: each is a typed error with a stable code, a
 * position where the statement text has one, and no effect on the store.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentsError, ParseError, QueryEvaluationError, UnsupportedQueryError } from '../errors.ts';
import { STORAGES, failureOf, freshPeer, seed } from '../../testing/dql-test-peers.ts';

describe.each(STORAGES)('errors on %s storage', (_kind, open) => {
  const { peer } = freshPeer(open);
  const run = (statement: string, args?: Record<string, unknown>) => peer().store.execute(statement, args);

  describe('query/invalid', () => {
    it('refuses an empty statement with a ParseError that expects a statement', async () => {
      for (const text of ['', '   ', '-- only a comment']) {
        const error = await failureOf(run(text));
        expect(error).toBeInstanceOf(ParseError);
        expect(error.code).toBe('query/invalid');
        expect(error.message).toContain('expected a statement');
      }
    });

    it('names what it found, where, and what it expected', async () => {
      const error = await failureOf(run('SELECT * orders'));
      expect(error.toValue()).toEqual({
        code: 'query/invalid',
        message: 'Syntax error at line 1 column 10: expected FROM, found orders',
        details: { expected: 'FROM', found: 'orders', line: 1, column: 10 },
      });
    });

    it('refuses a second statement after a semicolon', async () => {
      await seed(peer(), 't', [{ _id: 1 }]);
      const error = await failureOf(run('SELECT * FROM t; DELETE FROM t'));
      expect(error.code).toBe('query/invalid');
      expect(error.message).toBe('Syntax error at line 1 column 16: expected end of statement, found ;');
      expect((await run('SELECT * FROM t')).items).toEqual([{ _id: 1 }]);
    });

    it('refuses an unknown function, pointing at its line and column', async () => {
      const error = await failureOf(run('SELECT * FROM t WHERE nosuch(x) = 1'));
      expect(error).toBeInstanceOf(ParseError);
      expect(error.code).toBe('query/invalid');
      expect(error.message).toContain('unknown function nosuch at line 1 column 23');
      expect((await failureOf(run('SELECT *\nFROM t\nWHERE  x = 1 OR frobnicate(x)'))).message).toContain('line 3 column 17');
    });

    it('refuses an unknown function in a mutation before writing anything', async () => {
      await seed(peer(), 't', [{ _id: 1, v: 1 }]);
      const error = await failureOf(run('UPDATE t SET v = nosuch(v)'));
      expect(error.code).toBe('query/invalid');
      expect(error.message).toContain('line 1 column 18');
      expect((await run('SELECT * FROM t')).items).toEqual([{ _id: 1, v: 1 }]);
      expect(peer().store.lastTxnId).toBe(1);
    });

    it('refuses a function called with the wrong number of arguments', async () => {
      const error = await failureOf(run('SELECT upper(a, b) FROM t'));
      expect(error.code).toBe('query/invalid');
      expect(error.message).toBe('function upper takes 1 argument, found 2 at line 1 column 8');
    });

    it('refuses an unbound parameter, naming it and its position', async () => {
      const error = await failureOf(run('SELECT * FROM t WHERE x = :wanted', { other: 1 }));
      expect(error).toBeInstanceOf(ParseError);
      expect(error.code).toBe('query/invalid');
      expect(error.message).toContain(':wanted');
      expect(error.message).toContain('line 1 column 27');
      expect((await failureOf(run('INSERT INTO t DOCUMENTS (:doc)'))).code).toBe('query/invalid');
    });

    it('refuses aggregates outside the projection and ORDER BY, and SELECT * or ungrouped fields with them', async () => {
      const cases: [string, string][] = [
        ['SELECT * FROM t WHERE COUNT(*) > 1', 'line 1 column 23'],
        ['SELECT *, COUNT(*) FROM t', 'line 1 column 8'],
        ['SELECT name, COUNT(*) FROM t', 'line 1 column 8'],
        ['SELECT region FROM t GROUP BY other', 'line 1 column 8'],
        ['SELECT region FROM t GROUP BY region ORDER BY amount', 'line 1 column 47'],
        ['SELECT SUM(COUNT(x)) FROM t', 'line 1 column 12'],
        ['UPDATE t SET n = COUNT(*)', 'line 1 column 18'],
      ];
      for (const [statement, where] of cases) {
        const error = await failureOf(run(statement));
        expect(error.code).toBe('query/invalid');
        expect(error.message).toContain(where);
      }
    });

    it('orders grouped rows by a projection name, a group key or an aggregate', async () => {
      await run("INSERT INTO t DOCUMENTS ({region: 'n', amount: 1}), ({region: 's', amount: 5}), ({region: 's', amount: 2})");
      expect((await run('SELECT region, SUM(amount) AS total FROM t GROUP BY region ORDER BY total DESC')).items).toEqual([
        { region: 's', total: 7 },
        { region: 'n', total: 1 },
      ]);
      expect((await run('SELECT region FROM t GROUP BY region ORDER BY COUNT(*) DESC, region')).items).toEqual([{ region: 's' }, { region: 'n' }]);
    });

    it('refuses a statement that is not a string', async () => {
      expect((await failureOf(run(42 as unknown as string))).code).toBe('query/invalid');
      expect((await failureOf(run(null as unknown as string))).code).toBe('query/invalid');
    });

    it('refuses a string, key, path or collection name holding a lone surrogate, pointing at it', async () => {
      const cases: [string, string][] = [
        ["SELECT * FROM t WHERE x = 'a\\uD800'", 'the string at line 1 column 27'],
        ["INSERT INTO t DOCUMENTS ({'\\uDC00': 1})", 'a key of the object at line 1 column 26'],
        ["SELECT * FROM t WHERE a['\\uD800'] = 1", 'the path at line 1 column 23'],
        ["UPDATE t SET a['\\uD800'] = 1", 'the path at line 1 column 14'],
        ['SELECT * FROM `t\uD800`', 'the collection name at line 1 column 1'],
        ['SELECT x AS `\uDFFF` FROM t', 'the alias at line 1 column 8'],
      ];
      for (const [statement, where] of cases) {
        const error = await failureOf(run(statement));
        expect(error.code).toBe('query/invalid');
        expect(error.message).toBe(`${where} holds a lone surrogate, which is not Unicode text`);
      }
      expect((await failureOf(() => peer().store.collection('t\uD800'))).code).toBe('query/invalid');
    });

    it('refuses a field in LIMIT', async () => {
      expect((await failureOf(run('SELECT * FROM t LIMIT n'))).code).toBe('query/invalid');
    });
  });

  describe('query/evaluation', () => {
    it('refuses a LIMIT or OFFSET that is not a non-negative integer', async () => {
      await seed(peer(), 't', [{ _id: 1 }]);
      for (const [statement, args] of [
        ['SELECT * FROM t LIMIT -1', {}],
        ['SELECT * FROM t LIMIT 1.5', {}],
        ['SELECT * FROM t LIMIT :n', { n: '2' }],
        ['SELECT * FROM t LIMIT 1 OFFSET null', {}],
        ['EVICT FROM t LIMIT -1', {}],
      ] as const) {
        const error = await failureOf(run(statement, args));
        expect(error).toBeInstanceOf(QueryEvaluationError);
        expect(error.code).toBe('query/evaluation');
      }
      expect((await run('SELECT * FROM t')).items).toEqual([{ _id: 1 }]);
    });
  });

  describe('query/arguments-invalid', () => {
    it('refuses arguments that are not an object of named values', async () => {
      for (const args of [[1, 2], 'text', 5, new Map([['a', 1]])]) {
        const error = await failureOf(run('SELECT * FROM t', args as unknown as Record<string, unknown>));
        expect(error).toBeInstanceOf(InvalidArgumentsError);
        expect(error.code).toBe('query/arguments-invalid');
      }
    });

    it('refuses a Date, undefined, NaN, Infinity, a function, a bigint or a class instance, also nested, naming where', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ when: new Date(0) }, ':when'],
        [{ value: undefined }, ':value'],
        [{ n: Number.NaN }, ':n'],
        [{ n: Number.POSITIVE_INFINITY }, ':n'],
        [{ fn: () => 1 }, ':fn'],
        [{ big: 10n }, ':big'],
        [{ list: [1, new Date(0)] }, ':list[1]'],
        [{ doc: { nested: { at: new Set() } } }, ':doc.nested.at'],
      ];
      for (const [args, path] of cases) {
        const error = await failureOf(run('SELECT * FROM t WHERE x = 1', args));
        expect(error.code).toBe('query/arguments-invalid');
        expect(error.details).toEqual({ path });
      }
    });

    it('refuses a Date inside a document to insert, writing nothing', async () => {
      const error = await failureOf(run('INSERT INTO t DOCUMENTS (:doc)', { doc: { _id: 1, at: new Date(0) } }));
      expect(error.code).toBe('query/arguments-invalid');
      expect(error.message).toContain('pass an ISO 8601 string instead');
      expect((await run('SELECT * FROM t')).items).toEqual([]);
    });

    it('refuses a string or a key holding a lone surrogate, which has no UTF-8 form', async () => {
      for (const [args, path] of [
        [{ v: '\uD800' }, ':v'],
        [{ doc: { _id: 'x\uDC00' } }, ':doc._id'],
        [{ doc: { ['k\uD800']: 1 } }, ':doc'],
      ] as const) {
        const error = await failureOf(run('INSERT INTO t DOCUMENTS (:doc)', { doc: {}, ...args }));
        expect(error.code).toBe('query/arguments-invalid');
        expect(error.details).toEqual({ path });
      }
      expect((await run('SELECT * FROM t')).items).toEqual([]);
    });

    it('keeps a string with a surrogate pair apart from U+FFFD', async () => {
      await run('INSERT INTO t DOCUMENTS (:docs)', {
        docs: [
          { _id: '\u{1F600}', v: 1 },
          { _id: '\uFFFD', v: 2 },
        ],
      });
      expect((await run("SELECT v FROM t WHERE _id = '\\uD83D\\uDE00'")).items).toEqual([{ v: 1 }]);
      expect((await run('SELECT v FROM t WHERE _id = :id', { id: '\uFFFD' })).items).toEqual([{ v: 2 }]);
    });

    it('accepts an object without a prototype and arguments left unused', async () => {
      const args = Object.assign(Object.create(null) as Record<string, unknown>, { v: 1, unused: 'x' });
      await seed(peer(), 't', [{ _id: 1, x: 1 }]);
      expect((await run('SELECT _id FROM t WHERE x = :v', args)).items).toEqual([{ _id: 1 }]);
    });
  });

  describe('query/unsupported and internal collections', () => {
    it('refuses every write to __presence with query/unsupported', async () => {
      for (const statement of [
        'INSERT INTO __presence DOCUMENTS ({_id: 1})',
        'UPDATE __presence SET x = 1',
        'DELETE FROM __presence',
        'EVICT FROM __presence',
      ]) {
        const error = await failureOf(run(statement));
        expect(error).toBeInstanceOf(UnsupportedQueryError);
        expect(error.code).toBe('query/unsupported');
      }
      expect(peer().store.lastTxnId).toBe(0);
    });

    it('reads __presence as an empty collection and lists it among the collections', async () => {
      expect(await run('SELECT * FROM __presence')).toEqual({ items: [], mutatedDocumentIds: [], commitId: null });
      expect((await run('SELECT COUNT(*) AS n FROM __presence')).items).toEqual([{ n: 0 }]);
      await seed(peer(), 'cars', [{ _id: 1 }]);
      expect(peer().store.collections()).toEqual([
        { name: '__presence', documents: 0, tombstones: 0 },
        { name: 'cars', documents: 1, tombstones: 0 },
      ]);
    });
  });

  it('refuses every call on a closed store with store/closed', async () => {
    const sync = peer();
    sync.close();
    expect((await failureOf(run('SELECT * FROM t'))).code).toBe('store/closed');
    expect((await failureOf(() => sync.store.collections())).code).toBe('store/closed');
  });
});
