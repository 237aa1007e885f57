/**
 * Bad or hostile input gets a typed error and loses nothing; the store stays usable afterwards.
 * Each case here was once a crash, a silent loss or a corruption.
 */
import { describe, expect, it } from 'vitest';
import { STORAGES, failureOf, freshPeer } from '../../testing/dql-test-peers.ts';
import { MAX_JSON_DEPTH } from '../query/args.ts';

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { k: v };
  return v;
}

describe.each(STORAGES)('robustness on %s storage', (_kind, openStorage) => {
  const { peer } = freshPeer(openStorage);
  const run = (statement: string, args?: Record<string, unknown>) => peer().store.execute(statement, args);

  it('matches LIKE and ILIKE patterns holding a hyphen, as dates and UUIDs do', async () => {
    await run("INSERT INTO t DOCUMENTS ({_id: 'a', d: '2026-11-21'}), ({_id: 'b', d: '2026/11/21'})");
    expect((await run("SELECT _id FROM t WHERE d LIKE '2026-11-%'")).items).toEqual([{ _id: 'a' }]);
    expect((await run("SELECT _id FROM t WHERE d ILIKE '2026-11-__'")).items).toEqual([{ _id: 'a' }]);
  });

  it('refuses __proto__ as a field, key, alias or argument key, and leaves Object.prototype alone', async () => {
    await run("INSERT INTO t DOCUMENTS ({_id: 'a', x: {}})");
    const statements = [
      "UPDATE t SET `__proto__`.polluted = 'yes'",
      'UPDATE t UNSET `__proto__`.hasOwnProperty',
      "INSERT INTO t DOCUMENTS ({_id: 'b', `__proto__`: {polluted: 1}})",
      'SELECT x AS `__proto__` FROM t',
    ];
    for (const s of statements) expect((await failureOf(run(s))).code).toBe('query/invalid');
    const viaArgs = JSON.parse('{"d":{"_id":"a","__proto__":{"polluted":1}}}') as Record<string, unknown>;
    expect((await failureOf(run('INSERT INTO t DOCUMENTS (:d) ON ID CONFLICT DO MERGE', viaArgs))).code).toBe('query/arguments-invalid');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(typeof Object.prototype.hasOwnProperty).toBe('function');
    expect((await run('SELECT * FROM t')).items).toEqual([{ _id: 'a', x: {} }]);
  });

  it('refuses function names that only exist on Object.prototype as unknown functions', async () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      expect((await failureOf(run(`SELECT ${name}(x) AS v FROM t`))).code).toBe('query/invalid');
    }
  });

  it('writes a field named constructor under DO UPDATE_LOCAL_DIFF', async () => {
    await run("INSERT INTO t DOCUMENTS ({_id: 'a'})");
    const r = await run('INSERT INTO t DOCUMENTS (:d) ON ID CONFLICT DO UPDATE_LOCAL_DIFF', { d: { _id: 'a', constructor: {} } });
    expect(r.mutatedDocumentIds).toEqual(['a']);
    expect((await run('SELECT * FROM t')).items).toEqual([{ _id: 'a', constructor: {} }]);
  });

  it(`refuses arguments nested deeper than ${MAX_JSON_DEPTH} levels instead of overflowing the stack`, async () => {
    expect((await failureOf(run('INSERT INTO t DOCUMENTS (:d)', { d: { _id: 'a', deep: nested(20_000) } }))).code).toBe('query/arguments-invalid');
    await run('INSERT INTO t DOCUMENTS (:d)', { d: { _id: 'ok', deep: nested(MAX_JSON_DEPTH - 2) } });
    expect((await run("SELECT _id FROM t WHERE _id = 'ok'")).items).toEqual([{ _id: 'ok' }]);
  });

  it('stops an UPDATE from nesting a document deeper than documents may, keeping the collection queryable', async () => {
    await run("INSERT INTO t DOCUMENTS ({_id: 'a', x: 1})");
    let refused: string | undefined;
    for (let i = 0; i < MAX_JSON_DEPTH + 5 && refused === undefined; i++) {
      try {
        await run('UPDATE t SET x = [x]');
      } catch (error) {
        refused = (error as { code: string }).code;
      }
    }
    expect(refused).toBe('query/evaluation');
    expect((await run('SELECT _id FROM t WHERE x IS NOT NULL')).items).toEqual([{ _id: 'a' }]);
  });

  it('copies values it sets, so fields never share objects with each other or with the arguments', async () => {
    await run("INSERT INTO t DOCUMENTS ({_id: 'a', a: {x: 1}})");
    const p = { k: 1 };
    await run("UPDATE t SET b = a, a.x = 2, c = :p, c.n = 5 WHERE _id = 'a'", { p });
    expect((await run('SELECT a, b, c FROM t')).items).toEqual([{ a: { x: 2 }, b: { x: 1 }, c: { k: 1, n: 5 } }]);
    expect(p).toEqual({ k: 1 });
  });

  it('undoes a failed statement inside a transaction even when the caller catches it and commits', async () => {
    await run("INSERT INTO t DOCUMENTS ({_id: 'a'})");
    await peer().store.transaction(async (tx) => {
      await expect(tx.execute("INSERT INTO t DOCUMENTS ({_id: 'x'}), ({_id: 'a'})")).rejects.toMatchObject({ code: 'query/evaluation' });
      await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'y'})");
    });
    expect((await run('SELECT _id FROM t')).items).toEqual([{ _id: 'a' }, { _id: 'y' }]);
  });

  it('reports a committed write as committed even when a commit listener throws', async () => {
    peer().store.onCommit(() => {
      throw new Error('listener broke');
    });
    const r = await run("INSERT INTO t DOCUMENTS ({_id: 'a'})");
    expect(r.commitId).toBe(1);
    expect((await run("INSERT INTO t DOCUMENTS ({_id: 'b'})")).commitId).toBe(2);
  });

  it('refuses increments of _id or of no field, and an update callback that returns a promise, writing nothing', async () => {
    await run("INSERT INTO t DOCUMENTS ({_id: 'o1', n: 1})");
    const doc = peer().store.collection('t').findByID('o1');
    expect((await failureOf(doc.update((_d, h) => h.increment('_id', 5)))).code).toBe('query/evaluation');
    expect((await failureOf(doc.update((_d, h) => h.increment([], 1)))).code).toBe('query/evaluation');
    const asyncUpdate = doc.update((async (d: Record<string, unknown>) => {
      d.n = 2;
      await Promise.resolve();
      d.m = 3;
    }) as never);
    expect((await failureOf(asyncUpdate)).code).toBe('query/evaluation');
    expect((await run('SELECT * FROM t')).items).toEqual([{ _id: 'o1', n: 1 }]);
  });

  it('refuses a counter that would pass the largest number, keeping the old value', async () => {
    await run("INSERT INTO t DOCUMENTS ({_id: 'a'})");
    await run('UPDATE t APPLY n PN_INCREMENT BY 1e308');
    expect((await failureOf(run('UPDATE t APPLY n PN_INCREMENT BY 1e308'))).code).toBe('query/evaluation');
    expect((await run('SELECT n FROM t')).items).toEqual([{ n: 1e308 }]);
  });

  it('gives typed errors for a query that is not a string and an _id that is not one', async () => {
    const c = peer().store.collection('t');
    expect((await failureOf(() => c.find(123 as never))).code).toBe('query/invalid');
    expect((await failureOf(() => c.findByID(undefined as never))).code).toBe('query/arguments-invalid');
    expect((await failureOf(() => c.findByID([1] as never))).code).toBe('query/arguments-invalid');
  });

  it('lets a timer started inside a transaction write once the transaction is over', async () => {
    let later: Promise<unknown> | undefined;
    await peer().store.transaction(async (tx) => {
      await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'a'})");
      later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => run("INSERT INTO t DOCUMENTS ({_id: 'b'})"));
    });
    await later;
    expect((await run('SELECT _id FROM t')).items).toEqual([{ _id: 'a' }, { _id: 'b' }]);
  });

  it('commits nothing from a transaction whose peer closes while it runs', async () => {
    const sync = peer();
    const pending = sync.store.transaction(async (tx) => {
      await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'a'})");
      sync.close();
      await tx.execute("INSERT INTO t DOCUMENTS ({_id: 'b'})");
    });
    expect((await failureOf(pending)).code).toBe('store/closed');
  });

  it('orders by a projection named after its last field, as grouped queries do', async () => {
    await run("INSERT INTO t DOCUMENTS ({_id: 1, address: {city: 'Oslo'}}), ({_id: 2, address: {city: 'Bergen'}})");
    expect((await run('SELECT DISTINCT address.city FROM t ORDER BY city DESC')).items).toEqual([{ city: 'Oslo' }, { city: 'Bergen' }]);
  });
});

describe.each(STORAGES)('queries past SQLite’s own limits on %s storage', (_kind, openStorage) => {
  const { peer } = freshPeer(openStorage);
  const run = (statement: string, args?: Record<string, unknown>) => peer().store.execute(statement, args);

  it('answers IN lists of 40,000 values for _id and for a field', async () => {
    await run('INSERT INTO t DOCUMENTS (:docs)', { docs: Array.from({ length: 50 }, (_, i) => ({ _id: `d${i}`, n: i, s: `s${i}` })) });
    const ids = Array.from({ length: 40_000 }, (_, i) => `d${i * 7}`);
    expect((await run('SELECT _id FROM t WHERE _id IN :ids', { ids })).items).toHaveLength(8);
    const numbers = Array.from({ length: 40_000 }, (_, i) => i * 3);
    expect((await run('SELECT COUNT(*) AS c FROM t WHERE n IN :numbers', { numbers })).items).toEqual([{ c: 17 }]);
    const strings = Array.from({ length: 40_000 }, (_, i) => `s${i * 5}`);
    expect((await run('SELECT COUNT(*) AS c FROM t WHERE s NOT IN :strings', { strings })).items).toEqual([{ c: 40 }]);
    expect((await run('EVICT FROM t WHERE _id IN :ids', { ids })).mutatedDocumentIds).toHaveLength(8);
  });

  it('answers a condition of 999 ORs and a sum of 600 terms', async () => {
    await run('INSERT INTO t DOCUMENTS (:docs)', { docs: Array.from({ length: 20 }, (_, i) => ({ _id: i, x: i })) });
    const ors = Array.from({ length: 999 }, (_, i) => `x = ${i * 2}`).join(' OR ');
    expect((await run(`SELECT COUNT(*) AS c FROM t WHERE ${ors}`)).items).toEqual([{ c: 10 }]);
    const sum = Array.from({ length: 600 }, () => '1').join(' + ');
    expect((await run(`SELECT _id FROM t WHERE x + ${sum} = 605`)).items).toEqual([{ _id: 5 }]);
  });
});
