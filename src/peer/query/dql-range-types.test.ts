/**
 * Range comparisons (`<`, `<=`, `>`, `>=`, BETWEEN) hold only between two values of one type
 * (issue 20): a TTL condition with a string TTL never selects a document whose `createdAt` is a
 * number, a boolean, an array or an object. On both storages, through SELECT, UPDATE and EVICT;
 * ORDER BY, MIN and MAX keep the cross-type order.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { STORAGES, freshPeer, seed } from '../../testing/dql-test-peers.ts';

const TTL = '2026-11-18T00:00:00.000Z';

/** `createdAt` of every type: only `old` is a string at or before the TTL. */
const ORDERS: JsonObject[] = [
  { _id: 'old', createdAt: '2026-11-01T00:00:00.000Z', evictionFlag: false },
  { _id: 'new', createdAt: '2026-11-20T00:00:00.000Z', evictionFlag: false },
  { _id: 'number', createdAt: 1700000000000, evictionFlag: false },
  { _id: 'true', createdAt: true, evictionFlag: false },
  { _id: 'false', createdAt: false, evictionFlag: false },
  { _id: 'null', createdAt: null, evictionFlag: false },
  { _id: 'missing', evictionFlag: false },
  { _id: 'array', createdAt: ['2026-11-01T00:00:00.000Z'], evictionFlag: false },
  { _id: 'object', createdAt: { at: '2026-11-01T00:00:00.000Z' }, evictionFlag: false },
];

/** One field `v` of every type. */
const VALUES: JsonObject[] = [
  { _id: 'f', v: false },
  { _id: 't', v: true },
  { _id: 'n0', v: 0 },
  { _id: 'n1', v: 1 },
  { _id: 'n5', v: 5.5 },
  { _id: 'n10', v: 10 },
  { _id: 'n11', v: 11 },
  { _id: 's', v: 'abc' },
  { _id: 's5', v: '5' },
  { _id: 'a0', v: [] },
  { _id: 'a1', v: [1] },
  { _id: 'a2', v: [1, 'z'] },
  { _id: 'o', v: { k: 1 } },
  { _id: 'null', v: null },
  { _id: 'missing' },
];

describe.each(STORAGES)('range comparisons between types on %s storage', (_kind, open) => {
  const { peer } = freshPeer(open);
  const ids = async (statement: string, args?: Record<string, unknown>): Promise<JsonValue[]> =>
    (await peer().store.execute(statement, args)).items.map((row) => row._id as JsonValue);
  const where = (collection: string, condition: string, args?: Record<string, unknown>): Promise<JsonValue[]> =>
    ids(`SELECT _id FROM ${collection} WHERE ${condition}`, args);

  describe('a TTL condition with a string TTL', () => {
    it('selects only the string createdAt at or before the TTL, never a number, boolean, null, missing, array or object', async () => {
      await seed(peer(), 'orders', ORDERS);
      expect(await where('orders', 'createdAt <= :ttl', { ttl: TTL })).toEqual(['old']);
      expect(await where('orders', ':ttl >= createdAt', { ttl: TTL })).toEqual(['old']);
      expect(await where('orders', 'createdAt <= :ttl AND evictionFlag = false', { ttl: TTL })).toEqual(['old']);
      expect(await where('orders', 'createdAt > :ttl', { ttl: TTL })).toEqual(['new']);
      expect(await where('orders', 'createdAt BETWEEN :lo AND :ttl', { lo: '', ttl: TTL })).toEqual(['old']);
    });

    it('updates only the string createdAt at or before the TTL, as the TTL job does', async () => {
      await seed(peer(), 'orders', ORDERS);
      const result = await peer().store.execute('UPDATE orders SET evictionFlag = true WHERE createdAt <= :ttl AND evictionFlag = false', { ttl: TTL });
      expect(result.mutatedDocumentIds).toEqual(['old']);
      expect(await where('orders', 'evictionFlag = true')).toEqual(['old']);
    });

    it('evicts only the string createdAt at or before the TTL and keeps every other document', async () => {
      await seed(peer(), 'orders', ORDERS);
      const result = await peer().store.execute('EVICT FROM orders WHERE createdAt <= :ttl', { ttl: TTL });
      expect(result.mutatedDocumentIds).toEqual(['old']);
      expect(await ids('SELECT _id FROM orders')).toEqual(['array', 'false', 'missing', 'new', 'null', 'number', 'object', 'true']);
    });

    it('neither selects nor evicts other types through NOT either: the range is unknown for them, and so is its negation', async () => {
      await seed(peer(), 'orders', ORDERS);
      expect(await where('orders', 'NOT (createdAt > :ttl)', { ttl: TTL })).toEqual(['old']);
      expect(await where('orders', 'NOT (createdAt <= :ttl)', { ttl: TTL })).toEqual(['new']);
      expect(await where('orders', 'createdAt NOT BETWEEN :lo AND :ttl', { lo: '', ttl: TTL })).toEqual(['new']);
      const result = await peer().store.execute('EVICT FROM orders WHERE NOT (createdAt > :ttl)', { ttl: TTL });
      expect(result.mutatedDocumentIds).toEqual(['old']);
    });
  });

  describe('the checks made against the established store', () => {
    it('matches v > false only for true', async () => {
      await seed(peer(), 'values', VALUES);
      expect(await where('values', 'v > false')).toEqual(['t']);
      expect(await where('values', 'v >= false')).toEqual(['f', 't']);
      expect(await where('values', 'v < true')).toEqual(['f']);
    });

    it('matches v >= [1] only for arrays', async () => {
      await seed(peer(), 'values', VALUES);
      expect(await where('values', 'v >= [1]')).toEqual(['a1', 'a2']);
      expect(await where('values', 'v >= :a', { a: [1] })).toEqual(['a1', 'a2']);
      expect(await where('values', 'v < [1]')).toEqual(['a0']);
    });

    it('matches v BETWEEN 1 AND 10 only for numbers', async () => {
      await seed(peer(), 'values', VALUES);
      expect(await where('values', 'v BETWEEN 1 AND 10')).toEqual(['n1', 'n10', 'n5']);
      expect(await where('values', 'v NOT BETWEEN 1 AND 10')).toEqual(['n0', 'n11']);
    });

    it('matches nothing with v < null', async () => {
      await seed(peer(), 'values', VALUES);
      expect(await where('values', 'v < null')).toEqual([]);
      expect(await where('values', 'NOT (v < null)')).toEqual([]);
      expect(await where('values', 'v >= :n', { n: null })).toEqual([]);
    });
  });

  describe('every type', () => {
    it('compares strings byte-wise, objects in their order, and never across types', async () => {
      await seed(peer(), 'values', VALUES);
      expect(await where('values', "v > '10'")).toEqual(['s', 's5']);
      expect(await where('values', 'v > {a: 1}')).toEqual(['o']);
      expect(await where('values', 'v < 1')).toEqual(['n0']);
      expect(await where('values', "v BETWEEN 1 AND 'z'")).toEqual([]);
    });

    it('compares two fields only when they hold values of one type', async () => {
      await seed(peer(), 'pairs', [
        { _id: 1, a: 1, b: 2 },
        { _id: 2, a: 1, b: '2' },
        { _id: 3, a: 'x', b: 'y' },
        { _id: 4, a: false, b: true },
        { _id: 5, a: [1], b: { k: 1 } },
        { _id: 6, a: null, b: 1 },
        { _id: 7, b: 1 },
      ]);
      expect(await where('pairs', 'a < b')).toEqual([1, 3, 4]);
      expect(await where('pairs', 'NOT (a < b)')).toEqual([]);
      expect(await where('pairs', 'a >= b')).toEqual([]);
      expect(await where('pairs', 'a != b')).toEqual([1, 2, 3, 4, 5]);
    });

    it('leaves = and != as they were: a number is never equal to a string, so != holds', async () => {
      await seed(peer(), 'values', VALUES);
      expect(await where('values', "v != 'abc'")).toEqual(['a0', 'a1', 'a2', 'f', 'n0', 'n1', 'n10', 'n11', 'n5', 'o', 's5', 't']);
      expect(await where('values', 'v = 1')).toEqual(['n1']);
    });

    it('keeps the cross-type order for ORDER BY, MIN and MAX', async () => {
      await seed(peer(), 'values', VALUES);
      expect(await ids('SELECT _id FROM values ORDER BY v, _id')).toEqual([
        'f',
        't',
        'n0',
        'n1',
        'n5',
        'n10',
        'n11',
        's5',
        's',
        'a0',
        'a1',
        'a2',
        'o',
        'null',
        'missing',
      ]);
      expect((await peer().store.execute('SELECT MIN(v) AS lo, MAX(v) AS hi FROM values')).items).toEqual([{ lo: false, hi: { k: 1 } }]);
    });
  });
});
