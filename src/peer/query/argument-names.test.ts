/**
 * The names of statement arguments through `sync.store.execute`: `__proto__` is refused
 * (`query/arguments-invalid`) however the arguments were made, and nothing is written; other
 * names that are also names of `Object.prototype` members (`constructor`, `prototype`,
 * `toString`) are ordinary names: they bind only when given, and never reach the prototype.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentsError } from '../errors.ts';
import { STORAGES, failureOf, freshPeer, seed } from '../../testing/dql-test-peers.ts';

describe.each(STORAGES)('argument names on %s storage', (_kind, open) => {
  const { peer } = freshPeer(open);
  const run = (statement: string, args?: unknown) => peer().store.execute(statement, args as Record<string, unknown>);

  it('refuses __proto__ as an argument name, as JSON.parse makes it, with query/arguments-invalid naming it', async () => {
    // JSON.parse makes "__proto__" an own key holding data (as an HTTP body does), not the prototype.
    const args = JSON.parse('{"__proto__": {"polluted": true}, "ttl": "2026-11-18"}') as Record<string, unknown>;
    expect(Object.hasOwn(args, '__proto__')).toBe(true);
    const error = await failureOf(run('SELECT * FROM orders WHERE createdAt <= :ttl', args));
    expect(error).toBeInstanceOf(InvalidArgumentsError);
    expect(error.toValue()).toEqual({
      code: 'query/arguments-invalid',
      message: 'argument :__proto__ has a name that is refused: JavaScript objects cannot hold "__proto__" as plain data; use another name',
      details: { path: ':__proto__' },
    });
  });

  it('refuses __proto__ as an argument name even when the statement does not use it, and writes nothing', async () => {
    const lastTxnId = peer().store.lastTxnId;
    const error = await failureOf(run("INSERT INTO orders DOCUMENTS ({_id: 'o1'})", JSON.parse('{"__proto__": 1}')));
    expect(error.code).toBe('query/arguments-invalid');
    expect(peer().store.lastTxnId).toBe(lastTxnId);
    expect((await run('SELECT * FROM orders')).items).toEqual([]);
  });

  it('refuses __proto__ as an argument name made with a computed key or defineProperty', async () => {
    const computed = { ['__proto__']: 'x' };
    expect(Object.hasOwn(computed, '__proto__')).toBe(true);
    expect((await failureOf(run('SELECT * FROM orders', computed))).code).toBe('query/arguments-invalid');
    const defined: Record<string, unknown> = {};
    Object.defineProperty(defined, '__proto__', { value: 'x', enumerable: true });
    expect((await failureOf(run('SELECT * FROM orders', defined))).code).toBe('query/arguments-invalid');
  });

  it('binds constructor, prototype and toString as ordinary argument names, and leaves Object.prototype alone', async () => {
    await seed(peer(), 'orders', [
      { _id: 'a', n: 1 },
      { _id: 'b', n: 2 },
    ]);
    const args = JSON.parse('{"constructor": 1, "prototype": 2, "toString": 2}') as Record<string, unknown>;
    const result = await run('SELECT * FROM orders WHERE n = :constructor OR (n = :prototype AND n = :toString) ORDER BY _id', args);
    expect(result.items).toEqual([
      { _id: 'a', n: 1 },
      { _id: 'b', n: 2 },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(typeof Object.prototype.toString).toBe('function');
  });

  it('does not take an unbound :constructor or :toString from Object.prototype', async () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      const error = await failureOf(run(`SELECT * FROM orders WHERE n = :${name}`, {}));
      expect(error.code).toBe('query/invalid');
      expect(error.message).toBe(`parameter :${name} is not bound at line 1 column 32; pass it in the arguments`);
    }
  });
});
