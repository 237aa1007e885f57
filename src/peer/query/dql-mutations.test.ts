/**
 * Exact effects of INSERT, UPDATE, DELETE and EVICT on both storages: conflict policies, ids and
 * commit ids reported, nested paths, counters, tombstones, and all-or-nothing statements.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { STORAGES, failureOf, freshPeer, seed } from '../../testing/dql-test-peers.ts';
import { ManualTimers } from '../time.ts';

describe.each(STORAGES)('mutations on %s storage', (_kind, open) => {
  const { peer, open: openPeer } = freshPeer(open);
  const run = (statement: string, args?: Record<string, unknown>) => peer().store.execute(statement, args);
  const all = async (collection: string): Promise<JsonObject[]> => (await run(`SELECT * FROM ${collection}`)).items;

  describe('INSERT', () => {
    it('generates a 32-hex _id laid out as a UUID version 7 for a document without one', async () => {
      const result = await run("INSERT INTO cars DOCUMENTS ({make: 'Volvo'})");
      expect(result.mutatedDocumentIds).toHaveLength(1);
      const id = result.mutatedDocumentIds[0] as string;
      expect(id).toMatch(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
      expect(await all('cars')).toEqual([{ _id: id, make: 'Volvo' }]);
    });

    it('generates ids that sort in insertion order as the clock advances', async () => {
      const timers = new ManualTimers(Date.UTC(2030, 0, 1));
      const sync = openPeer({ timers });
      const ids: JsonValue[] = [];
      for (const n of [1, 2, 3, 4]) {
        timers.advance(1);
        ids.push(...(await sync.store.execute('INSERT INTO t DOCUMENTS ({n: :n})', { n })).mutatedDocumentIds);
      }
      expect([...ids].sort()).toEqual(ids);
      expect((await sync.store.execute('SELECT n FROM t')).items).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    });

    it('inserts several documents in one statement and reports their ids in statement order', async () => {
      expect(await run("INSERT INTO t DOCUMENTS ({_id: 'b'}), ({_id: 'a', n: 1}), ({_id: 3})")).toEqual({
        items: [],
        mutatedDocumentIds: ['b', 'a', 3],
        commitId: 1,
      });
      expect(await all('t')).toEqual([{ _id: 3 }, { _id: 'a', n: 1 }, { _id: 'b' }]);
    });

    it('inserts nothing but still commits for an empty array of documents', async () => {
      expect(await run('INSERT INTO t DOCUMENTS (:docs)', { docs: [] })).toEqual({ items: [], mutatedDocumentIds: [], commitId: 1 });
      expect(await all('t')).toEqual([]);
    });

    it('reports generated and given ids together, in statement order', async () => {
      const { mutatedDocumentIds } = await run('INSERT INTO t DOCUMENTS (:docs)', { docs: [{ v: 1 }, { _id: 'given', v: 2 }, { v: 3 }] });
      expect(mutatedDocumentIds).toHaveLength(3);
      expect(mutatedDocumentIds[1]).toBe('given');
      const rows = await all('t');
      expect(rows.map((r) => r.v).sort()).toEqual([1, 2, 3]);
      expect(rows.find((r) => r.v === 1)?._id).toBe(mutatedDocumentIds[0]);
      expect(rows.find((r) => r.v === 3)?._id).toBe(mutatedDocumentIds[2]);
    });

    it('binds an array of documents to one parameter, and accepts VALUES and the COLLECTION keyword', async () => {
      await run('INSERT INTO t DOCUMENTS (:docs)', { docs: [{ _id: 1 }, { _id: 2 }] });
      await run('INSERT INTO COLLECTION t VALUES (:doc), ({_id: 4})', { doc: { _id: 3 } });
      expect(await all('t')).toEqual([{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: 4 }]);
    });

    it('stores values exactly as given: nesting, unicode, control characters, fractions and large numbers', async () => {
      const doc = {
        _id: 'exact',
        nested: { list: [1, { deep: null }, [], {}], empty: '' },
        text: 'Zoë 😀 \n\t "quoted" \u0000 end',
        fraction: 0.1,
        big: 1e21,
        safe: 9007199254740991,
        negative: -2.5e-7,
      };
      await run('INSERT INTO t DOCUMENTS (:doc)', { doc });
      expect(await all('t')).toEqual([doc]);
      expect(await run("INSERT INTO t DOCUMENTS ({_id: 'lit', a: [1, 'two', {three: 3}], b: 1 + 2, c: upper('x')})")).toMatchObject({
        mutatedDocumentIds: ['lit'],
      });
      expect((await run("SELECT * FROM t WHERE _id = 'lit'")).items).toEqual([{ _id: 'lit', a: [1, 'two', { three: 3 }], b: 3, c: 'X' }]);
    });

    it('fails the whole statement on an id conflict under the default FAIL policy, writing none of it', async () => {
      await seed(peer(), 't', [{ _id: 'c', v: 'old' }]);
      const before = peer().store.lastTxnId;
      const error = await failureOf(run("INSERT INTO t DOCUMENTS ({_id: 'a'}), ({_id: 'b'}), ({_id: 'c', v: 'new'})"));
      expect(error.code).toBe('query/evaluation');
      expect(error.message).toContain('"c"');
      expect(error.details).toEqual({ collection: 't', id: 'c' });
      expect(await all('t')).toEqual([{ _id: 'c', v: 'old' }]);
      expect(peer().store.lastTxnId).toBe(before);
      expect((await run("INSERT INTO t DOCUMENTS ({_id: 'a'})")).commitId).toBe(before + 1);
    });

    it('fails the same way when ON ID CONFLICT FAIL is written out', async () => {
      await seed(peer(), 't', [{ _id: 1, v: 'old' }]);
      expect((await failureOf(run('INSERT INTO t DOCUMENTS ({_id: 1, v: 2}) ON ID CONFLICT FAIL'))).code).toBe('query/evaluation');
      expect(await all('t')).toEqual([{ _id: 1, v: 'old' }]);
    });

    it('keeps the stored document under DO NOTHING and reports only the documents it wrote', async () => {
      await seed(peer(), 't', [{ _id: 1, v: 'old', keep: true }]);
      const result = await run("INSERT INTO t DOCUMENTS ({_id: 1, v: 'new'}), ({_id: 2, v: 'new'}) ON ID CONFLICT DO NOTHING");
      expect(result).toEqual({ items: [], mutatedDocumentIds: [2], commitId: 2 });
      expect(await all('t')).toEqual([
        { _id: 1, v: 'old', keep: true },
        { _id: 2, v: 'new' },
      ]);
    });

    it('sets the given top-level fields under DO UPDATE, keeps the others, and reports the id even when nothing changed', async () => {
      await seed(peer(), 't', [
        { _id: 1, a: { x: 1, y: 2 }, b: 'kept', c: 'old' },
        { _id: 2, v: 1 },
      ]);
      const result = await run("INSERT INTO t DOCUMENTS ({_id: 1, a: {x: 5}, c: 'new', d: null}), ({_id: 2, v: 1}) ON ID CONFLICT DO UPDATE");
      expect(result.mutatedDocumentIds).toEqual([1, 2]);
      expect(await all('t')).toEqual([
        { _id: 1, a: { x: 5 }, b: 'kept', c: 'new', d: null },
        { _id: 2, v: 1 },
      ]);
    });

    it('reports only documents whose values really changed under DO UPDATE_LOCAL_DIFF', async () => {
      await seed(peer(), 't', [
        { _id: 'a', v: 1, o: { p: 1, q: 2 }, w: 'kept' },
        { _id: 'b', v: 1 },
      ]);
      const result = await run(
        "INSERT INTO t DOCUMENTS ({_id: 'a', v: 1.0, o: {q: 2, p: 1}}), ({_id: 'b', v: 2}), ({_id: 'c', v: 3}) ON ID CONFLICT DO UPDATE_LOCAL_DIFF",
      );
      expect(result.mutatedDocumentIds).toEqual(['b', 'c']);
      expect(await all('t')).toEqual([
        { _id: 'a', v: 1, o: { p: 1, q: 2 }, w: 'kept' },
        { _id: 'b', v: 2 },
        { _id: 'c', v: 3 },
      ]);
    });

    it('merges nested objects key by key under DO MERGE and replaces what is not an object on both sides', async () => {
      await seed(peer(), 't', [{ _id: 1, a: { x: 1, y: { p: 1, q: 2 } }, s: { k: 1 }, keep: true }]);
      const result = await run('INSERT INTO t DOCUMENTS ({_id: 1, a: {y: {q: 3, r: 4}, z: 5}, s: 7}) ON ID CONFLICT DO MERGE');
      expect(result.mutatedDocumentIds).toEqual([1]);
      expect(await all('t')).toEqual([{ _id: 1, a: { x: 1, y: { p: 1, q: 3, r: 4 }, z: 5 }, s: 7, keep: true }]);
    });

    it('rejects ids repeated inside one INSERT, also as 10 and 10.0 or with object keys in another order, writing nothing', async () => {
      for (const docs of [
        [{ _id: 'a' }, { _id: 'a' }],
        [{ _id: 10 }, { _id: 10.0 }],
        [{ _id: { a: 1, b: 2 } }, { _id: { b: 2, a: 1 } }],
      ]) {
        const error = await failureOf(run('INSERT INTO t DOCUMENTS (:docs) ON ID CONFLICT DO UPDATE', { docs: [{ _id: 'first' }, ...docs] }));
        expect(error.code).toBe('query/invalid');
      }
      expect(await all('t')).toEqual([]);
      expect(peer().store.lastTxnId).toBe(0);
    });

    it('rejects a document that is not an object with query/invalid, writing nothing', async () => {
      expect((await failureOf(run('INSERT INTO t DOCUMENTS (:doc)', { doc: 5 }))).code).toBe('query/invalid');
      expect((await failureOf(run('INSERT INTO t DOCUMENTS (:docs)', { docs: [{ _id: 1 }, 'text'] }))).code).toBe('query/invalid');
      expect((await failureOf(run('INSERT INTO t DOCUMENTS ({_id: 2}), ([1, 2])'))).code).toBe('query/invalid');
      expect((await failureOf(run('INSERT INTO t DOCUMENTS (null)'))).code).toBe('query/invalid');
      expect(await all('t')).toEqual([]);
    });

    it('rejects a null _id, and one that is a boolean or an array, with query/invalid', async () => {
      for (const _id of [null, true, [1]]) {
        expect((await failureOf(run('INSERT INTO t DOCUMENTS (:doc)', { doc: { _id, v: 1 } }))).code).toBe('query/invalid');
      }
      expect(await all('t')).toEqual([]);
    });

    it('treats object ids with their keys in another order as one id for conflicts', async () => {
      await run('INSERT INTO t DOCUMENTS ({_id: {a: 1, b: 2}, v: 1})');
      expect((await failureOf(run('INSERT INTO t DOCUMENTS ({_id: {b: 2, a: 1}, v: 2})'))).code).toBe('query/evaluation');
      const result = await run('INSERT INTO t DOCUMENTS ({_id: {b: 2, a: 1}, w: 3}) ON ID CONFLICT DO UPDATE');
      expect(result.mutatedDocumentIds).toEqual([{ b: 2, a: 1 }]);
      expect(await all('t')).toEqual([{ _id: { a: 1, b: 2 }, v: 1, w: 3 }]);
      expect((await run('UPDATE t SET v = 2 WHERE _id = {b: 2, a: 1}')).mutatedDocumentIds).toEqual([{ a: 1, b: 2 }]);
      expect(await all('t')).toEqual([{ _id: { a: 1, b: 2 }, v: 2, w: 3 }]);
      expect((await run('DELETE FROM t WHERE _id = :id', { id: { b: 2, a: 1.0 } })).mutatedDocumentIds).toEqual([{ a: 1, b: 2 }]);
      expect(await all('t')).toEqual([]);
    });

    it('keeps a string id and a number id apart', async () => {
      await run("INSERT INTO t DOCUMENTS ({_id: 10, v: 'number'}), ({_id: '10', v: 'string'})");
      expect(await all('t')).toEqual([
        { _id: 10, v: 'number' },
        { _id: '10', v: 'string' },
      ]);
    });
  });

  describe('UPDATE', () => {
    it('sets fields of every matching document, keeps the others, and reports the ids in _id order', async () => {
      await seed(peer(), 'cars', [
        { _id: 'b', color: 'red', km: 1 },
        { _id: 2, color: 'red' },
        { _id: 'a', color: 'blue' },
      ]);
      expect(await run("UPDATE cars SET color = 'green', checked = true WHERE color = 'red'")).toEqual({
        items: [],
        mutatedDocumentIds: [2, 'b'],
        commitId: 2,
      });
      expect(await all('cars')).toEqual([
        { _id: 2, color: 'green', checked: true },
        { _id: 'a', color: 'blue' },
        { _id: 'b', color: 'green', km: 1, checked: true },
      ]);
    });

    it('reports every matched document, also when SET wrote the value it already had', async () => {
      await seed(peer(), 'cars', [
        { _id: 1, color: 'red' },
        { _id: 2, color: 'blue' },
      ]);
      expect((await run("UPDATE cars SET color = 'red' WHERE _id IN [1, 2]")).mutatedDocumentIds).toEqual([1, 2]);
      expect(await all('cars')).toEqual([
        { _id: 1, color: 'red' },
        { _id: 2, color: 'red' },
      ]);
    });

    it('creates the objects along a nested SET path and replaces a scalar in the way', async () => {
      await seed(peer(), 't', [{ _id: 1 }, { _id: 2, a: 5 }, { _id: 3, a: { keep: 1, b: { old: 2 } } }]);
      await run("UPDATE t SET a.b.c = 'x'");
      expect(await all('t')).toEqual([
        { _id: 1, a: { b: { c: 'x' } } },
        { _id: 2, a: { b: { c: 'x' } } },
        { _id: 3, a: { keep: 1, b: { old: 2, c: 'x' } } },
      ]);
    });

    it('evaluates every SET against the document as it was, so SET a = b, b = a swaps', async () => {
      await seed(peer(), 't', [{ _id: 1, a: 'A', b: 'B', n: 1 }]);
      await run('UPDATE t SET a = b, b = a, n = n + 1, m = n * 10');
      expect(await all('t')).toEqual([{ _id: 1, a: 'B', b: 'A', n: 2, m: 10 }]);
    });

    it('unsets a field when SET takes a missing value, and keeps null as a value', async () => {
      await seed(peer(), 't', [{ _id: 1, x: 1, y: 1 }]);
      await run('UPDATE t SET x = nothing_here, y = null, z = nothing.at.all');
      expect(await all('t')).toEqual([{ _id: 1, y: null }]);
    });

    it('removes fields with UNSET, nested ones too, and ignores paths that do not exist', async () => {
      await seed(peer(), 't', [{ _id: 1, a: 1, b: { c: 2, d: 3 }, e: 4 }]);
      const result = await run('UPDATE t UNSET a, b.c, nope, e.f');
      expect(result.mutatedDocumentIds).toEqual([1]);
      expect(await all('t')).toEqual([{ _id: 1, b: { d: 3 }, e: 4 }]);
    });

    it('sets an array element in range and fails out of range or on UNSET of an element, changing nothing', async () => {
      await seed(peer(), 't', [{ _id: 1, arr: [1, 2, 3] }]);
      await run("UPDATE t SET arr[1] = 'two'");
      expect(await all('t')).toEqual([{ _id: 1, arr: [1, 'two', 3] }]);
      expect((await failureOf(run('UPDATE t SET arr[3] = 4'))).code).toBe('query/evaluation');
      expect((await failureOf(run('UPDATE t UNSET arr[0]'))).code).toBe('query/evaluation');
      expect(await all('t')).toEqual([{ _id: 1, arr: [1, 'two', 3] }]);
    });

    it('undoes the documents already updated when a later one fails', async () => {
      await seed(peer(), 't', [
        { _id: 1, arr: [1, 2, 3] },
        { _id: 2, arr: [1] },
      ]);
      const before = peer().store.lastTxnId;
      expect((await failureOf(run('UPDATE t SET arr[2] = 0, touched = true'))).code).toBe('query/evaluation');
      expect(await all('t')).toEqual([
        { _id: 1, arr: [1, 2, 3] },
        { _id: 2, arr: [1] },
      ]);
      expect(peer().store.lastTxnId).toBe(before);
    });

    it('refuses to change _id by SET, UNSET or APPLY, with query/evaluation, writing nothing', async () => {
      await seed(peer(), 't', [{ _id: 1, v: 1 }]);
      for (const statement of ['UPDATE t SET v = 2, _id = 5', 'UPDATE t UNSET _id', 'UPDATE t APPLY _id PN_INCREMENT BY 1', 'UPDATE t SET _id.x = 1']) {
        const error = await failureOf(run(statement));
        expect(error.code).toBe('query/evaluation');
        expect(error.message).toContain('_id cannot be changed');
      }
      expect(await all('t')).toEqual([{ _id: 1, v: 1 }]);
      expect(peer().store.lastTxnId).toBe(1);
    });

    it('reports no ids but still commits when nothing matched, also in a never-written collection', async () => {
      await seed(peer(), 't', [{ _id: 1, v: 1 }]);
      expect(await run('UPDATE t SET v = 2 WHERE v = 100')).toEqual({ items: [], mutatedDocumentIds: [], commitId: 2 });
      expect(await run('UPDATE never_written SET v = 2')).toEqual({ items: [], mutatedDocumentIds: [], commitId: 3 });
      expect(await all('t')).toEqual([{ _id: 1, v: 1 }]);
    });

    it('reads paths through the collection alias', async () => {
      await seed(peer(), 't', [
        { _id: 1, v: 1 },
        { _id: 2, v: 2 },
      ]);
      await run('UPDATE t AS d SET d.w = d.v * 2 WHERE d.v > 1');
      expect(await all('t')).toEqual([
        { _id: 1, v: 1 },
        { _id: 2, v: 2, w: 4 },
      ]);
    });
  });

  describe('counters', () => {
    it('creates a counter from 0 on the first increment', async () => {
      await seed(peer(), 'cars', [{ _id: 1 }]);
      await run('UPDATE cars APPLY km PN_INCREMENT BY 5');
      expect(await all('cars')).toEqual([{ _id: 1, km: 5 }]);
    });

    it('replaces a plain value with a counter that starts from 0', async () => {
      await seed(peer(), 'cars', [{ _id: 1, n: 10 }]);
      await run('UPDATE cars APPLY n PN_INCREMENT BY 2');
      expect(await all('cars')).toEqual([{ _id: 1, n: 2 }]);
    });

    it('sums repeated increments and decrements, several per statement', async () => {
      await seed(peer(), 'cars', [{ _id: 1 }]);
      await run('UPDATE cars APPLY n PN_INCREMENT BY 2');
      await run('UPDATE cars APPLY n PN_INCREMENT BY :k', { k: 3 });
      await run('UPDATE cars APPLY n PN_INCREMENT BY -1.5, m PN_INCREMENT BY -1');
      expect(await all('cars')).toEqual([{ _id: 1, n: 3.5, m: -1 }]);
    });

    it('reads a counter as a plain number in WHERE, ORDER BY and projections', async () => {
      await seed(peer(), 'cars', [{ _id: 1 }, { _id: 2 }, { _id: 3, n: 'plain' }]);
      await run('UPDATE cars APPLY n PN_INCREMENT BY 4 WHERE _id IN [1, 2]');
      await run('UPDATE cars APPLY n PN_INCREMENT BY 1 WHERE _id = 1');
      expect((await run('SELECT _id, n FROM cars WHERE n >= 4 ORDER BY n DESC')).items).toEqual([
        { _id: 1, n: 5 },
        { _id: 2, n: 4 },
      ]);
      expect((await run('SELECT _id FROM cars ORDER BY n DESC')).items).toEqual([{ _id: 3 }, { _id: 1 }, { _id: 2 }]);
      expect((await run('SELECT _id FROM cars WHERE n = 5')).items).toEqual([{ _id: 1 }]);
    });

    it('creates nested counters along a path', async () => {
      await seed(peer(), 'posts', [{ _id: 1, stats: 'none' }]);
      await run('UPDATE posts APPLY stats.views PN_INCREMENT BY 1');
      await run('UPDATE posts APPLY stats.views PN_INCREMENT BY 1');
      expect(await all('posts')).toEqual([{ _id: 1, stats: { views: 2 } }]);
    });

    it('starts again from 0 after SET has replaced the counter with a plain value', async () => {
      await seed(peer(), 'cars', [{ _id: 1 }]);
      await run('UPDATE cars APPLY n PN_INCREMENT BY 5');
      await run('UPDATE cars SET n = 100');
      expect(await all('cars')).toEqual([{ _id: 1, n: 100 }]);
      await run('UPDATE cars APPLY n PN_INCREMENT BY 1');
      expect(await all('cars')).toEqual([{ _id: 1, n: 1 }]);
    });

    it('refuses an increment that is not a number with query/evaluation, writing nothing', async () => {
      await seed(peer(), 'cars', [{ _id: 1, n: 1 }]);
      for (const by of ["'2'", 'null', 'missing_field', '1 / 0']) {
        expect((await failureOf(run(`UPDATE cars APPLY n PN_INCREMENT BY ${by}`))).code).toBe('query/evaluation');
      }
      expect(await all('cars')).toEqual([{ _id: 1, n: 1 }]);
    });
  });

  describe('DELETE', () => {
    it('removes the document from every query', async () => {
      await seed(peer(), 'cars', [
        { _id: 1, color: 'red' },
        { _id: 2, color: 'red' },
      ]);
      expect(await run('DELETE FROM cars WHERE _id = 1')).toEqual({ items: [], mutatedDocumentIds: [1], commitId: 2 });
      expect(await all('cars')).toEqual([{ _id: 2, color: 'red' }]);
      expect((await run('SELECT * FROM cars WHERE _id = 1')).items).toEqual([]);
      expect((await run('SELECT color, COUNT(*) AS n FROM cars GROUP BY color')).items).toEqual([{ color: 'red', n: 1 }]);
      expect((await run('SELECT COUNT(*) AS n FROM cars')).items).toEqual([{ n: 1 }]);
      expect(await peer().store.collection('cars').findByID(1).exec()).toBeUndefined();
    });

    it('lets an INSERT of the same _id start a fresh document with none of the old fields, without a conflict', async () => {
      await seed(peer(), 'cars', [{ _id: 1, color: 'red', km: 10 }]);
      await run('DELETE FROM cars WHERE _id = 1');
      expect((await run("INSERT INTO cars DOCUMENTS ({_id: 1, color: 'blue'})")).mutatedDocumentIds).toEqual([1]);
      expect(await all('cars')).toEqual([{ _id: 1, color: 'blue' }]);
    });

    it('lets DO MERGE and DO NOTHING over a deleted document start a fresh one too', async () => {
      await seed(peer(), 'cars', [
        { _id: 1, a: { x: 1 } },
        { _id: 2, old: true },
      ]);
      await run('DELETE FROM cars');
      await run('INSERT INTO cars DOCUMENTS ({_id: 1, a: {y: 2}}) ON ID CONFLICT DO MERGE');
      expect((await run('INSERT INTO cars DOCUMENTS ({_id: 2, fresh: true}) ON ID CONFLICT DO NOTHING')).mutatedDocumentIds).toEqual([2]);
      expect(await all('cars')).toEqual([
        { _id: 1, a: { y: 2 } },
        { _id: 2, fresh: true },
      ]);
    });

    it('does not let UPDATE see a deleted document', async () => {
      await seed(peer(), 'cars', [{ _id: 1, v: 1 }]);
      await run('DELETE FROM cars WHERE v = 1');
      expect((await run('UPDATE cars SET v = 2')).mutatedDocumentIds).toEqual([]);
      expect(await all('cars')).toEqual([]);
    });

    it('deletes every document without WHERE, reports their ids in _id order, and commits also when nothing matched', async () => {
      await seed(peer(), 'cars', [{ _id: 'b' }, { _id: 1 }, { _id: 'a' }]);
      expect(await run('DELETE FROM cars')).toEqual({ items: [], mutatedDocumentIds: [1, 'a', 'b'], commitId: 2 });
      expect(await run('DELETE FROM cars')).toEqual({ items: [], mutatedDocumentIds: [], commitId: 3 });
      expect(await all('cars')).toEqual([]);
    });

    it('keeps a tombstone that collections() counts apart from live documents', async () => {
      await seed(peer(), 'cars', [{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
      await run('DELETE FROM cars WHERE _id = 2');
      expect(
        peer()
          .store.collections()
          .find((c) => c.name === 'cars'),
      ).toEqual({ name: 'cars', documents: 2, tombstones: 1 });
    });
  });

  describe('EVICT', () => {
    const EVENTS: JsonObject[] = [
      { _id: 'e1', createdAt: '2024-01-03T00:00:00.000Z' },
      { _id: 'e2', createdAt: '2024-01-01T00:00:00.000Z' },
      { _id: 'e3', createdAt: '2024-01-04T00:00:00.000Z' },
      { _id: 'e4', createdAt: '2024-01-02T00:00:00.000Z' },
    ];

    it('removes the matching documents and reports their ids', async () => {
      await seed(peer(), 'events', EVENTS);
      expect(await run('EVICT FROM events WHERE createdAt < :ttl', { ttl: '2024-01-03T00:00:00.000Z' })).toEqual({
        items: [],
        mutatedDocumentIds: ['e2', 'e4'],
        commitId: 2,
      });
      expect((await run('SELECT _id FROM events')).items).toEqual([{ _id: 'e1' }, { _id: 'e3' }]);
    });

    it('respects ORDER BY and LIMIT: evicts the two oldest by createdAt', async () => {
      await seed(peer(), 'events', EVENTS);
      expect((await run('EVICT FROM events ORDER BY createdAt LIMIT 2')).mutatedDocumentIds).toEqual(['e2', 'e4']);
      expect((await run('SELECT _id FROM events')).items).toEqual([{ _id: 'e1' }, { _id: 'e3' }]);
    });

    it('reports evicted ids in _id order, not in the ORDER BY order', async () => {
      await seed(peer(), 'events', EVENTS);
      expect((await run('EVICT FROM events ORDER BY createdAt LIMIT 3')).mutatedDocumentIds).toEqual(['e1', 'e2', 'e4']);
      expect((await run('SELECT _id FROM events')).items).toEqual([{ _id: 'e3' }]);
    });

    it('respects DESC, OFFSET and WHERE together', async () => {
      await seed(peer(), 'events', EVENTS);
      expect((await run("EVICT FROM events WHERE _id != 'e3' ORDER BY createdAt DESC LIMIT 1 OFFSET 1")).mutatedDocumentIds).toEqual(['e4']);
      expect((await run('SELECT _id FROM events')).items).toEqual([{ _id: 'e1' }, { _id: 'e2' }, { _id: 'e3' }]);
    });

    it('leaves no tombstone, so collections() shows none and an INSERT of the same _id needs no conflict policy', async () => {
      await seed(peer(), 'events', EVENTS);
      await run('EVICT FROM events');
      expect(
        peer()
          .store.collections()
          .some((c) => c.name === 'events'),
      ).toBe(false);
      await run("INSERT INTO events DOCUMENTS ({_id: 'e1', again: true})");
      expect(await all('events')).toEqual([{ _id: 'e1', again: true }]);
    });

    it('evicts everything matching under a LIMIT beyond the largest safe integer', async () => {
      await seed(peer(), 'events', EVENTS);
      expect((await run('EVICT FROM events ORDER BY createdAt LIMIT 1e20 OFFSET 2')).mutatedDocumentIds).toEqual(['e1', 'e3']);
      expect((await run('SELECT _id FROM events')).items).toEqual([{ _id: 'e2' }, { _id: 'e4' }]);
    });

    it('evicts nothing but still commits when nothing matched', async () => {
      await seed(peer(), 'events', EVENTS);
      expect(await run("EVICT FROM events WHERE createdAt < '2000'")).toEqual({ items: [], mutatedDocumentIds: [], commitId: 2 });
    });
  });

  describe('commit ids', () => {
    it('numbers commits 1, 2, 3 across mutation kinds while a SELECT has commitId null', async () => {
      expect(peer().store.lastTxnId).toBe(0);
      expect((await run('INSERT INTO t DOCUMENTS ({_id: 1})')).commitId).toBe(1);
      expect((await run('SELECT * FROM t')).commitId).toBeNull();
      expect((await run('UPDATE t SET v = 1')).commitId).toBe(2);
      expect((await run('DELETE FROM t WHERE _id = 1')).commitId).toBe(3);
      expect((await run('EVICT FROM t')).commitId).toBe(4);
      expect(peer().store.lastTxnId).toBe(4);
    });

    it('does not consume a commit id for a failed statement', async () => {
      await run('INSERT INTO t DOCUMENTS ({_id: 1})');
      await failureOf(run('INSERT INTO t DOCUMENTS ({_id: 1})'));
      await failureOf(run('UPDATE t SET _id = 2'));
      await failureOf(run('INSERT INTO t DOCUMENTS (:d)', { d: 1 }));
      expect(peer().store.lastTxnId).toBe(1);
      expect((await run('INSERT INTO t DOCUMENTS ({_id: 2})')).commitId).toBe(2);
    });
  });
});
