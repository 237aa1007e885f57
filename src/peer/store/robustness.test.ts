/**
 * Bad or hostile input gets a typed error and loses nothing; the store stays usable afterwards.
 * Each case here was once a crash, a silent loss or a corruption.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { STORAGES, failureOf, freshPeer } from './dql-test-peers.ts';
import { MAX_JSON_DEPTH } from './args.ts';

const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => BetterSqlite3.Database;

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { k: v };
  return v;
}

describe.each(STORAGES)('robustness on %s storage', (kind, openStorage) => {
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

  it.runIf(kind === 'sqlite')('refuses a write with store/busy while another program holds the database, then writes again', async () => {
    const dir = peer().persistenceDirectory as string;
    const other = new Database(join(dir, 'store.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    try {
      expect((await failureOf(run("INSERT INTO t DOCUMENTS ({_id: 'a'})"))).code).toBe('store/busy');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await run("INSERT INTO t DOCUMENTS ({_id: 'a'})")).commitId).toBe(1);
  });
});
