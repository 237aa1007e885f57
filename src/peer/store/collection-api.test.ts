/**
 * The older per-collection API (`find`, `findByID`, `update`, `upsert`) on both storages: it
 * must give the same answers as the DQL statements it stands for.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/json.ts';
import { ParseError } from '../errors.ts';
import { Collection } from './collection.ts';
import { STORAGES, failureOf, freshPeer, seed } from '../../testing/dql-test-peers.ts';

const CARS: JsonObject[] = [
  { _id: 'a', make: 'Volvo', isDeleted: false, owner: { name: 'Ann', city: 'Oslo' }, km: 100 },
  { _id: 'b', make: 'Saab', isDeleted: true, km: 50 },
  { _id: 'c', make: 'Fiat', km: 300 },
  { _id: 'd', make: 'Audi', isDeleted: false, km: 10 },
];

describe.each(STORAGES)('collection API on %s storage', (_kind, open) => {
  const { peer } = freshPeer(open);
  const cars = () => peer().store.collection('cars');
  const all = async (collection = 'cars') => (await peer().store.execute(`SELECT * FROM ${collection}`)).items;

  describe('find', () => {
    it('makes sync.store.<name> the same collection as collection(name), without hiding the store', async () => {
      await seed(peer(), 'orders', [{ _id: 1, total: 5 }]);
      const viaProperty = peer().store.orders;
      expect(viaProperty).toBeInstanceOf(Collection);
      expect(viaProperty?.name).toBe('orders');
      expect(await viaProperty?.findAll().exec()).toEqual(await peer().store.collection('orders').findAll().exec());
      expect(await viaProperty?.findAll().exec()).toEqual([{ _id: 1, total: 5 }]);
      expect(typeof peer().store.execute).toBe('function');
      expect((peer().store as unknown as { then?: unknown }).then).toBeUndefined();
    });

    it("matches 'isDeleted == false' only where the field is present, as DQL does", async () => {
      await seed(peer(), 'cars', CARS);
      expect((await cars().find('isDeleted == false').exec()).map((c) => c._id)).toEqual(['a', 'd']);
      expect((await cars().find('coalesce(isDeleted, false) == false').exec()).map((c) => c._id)).toEqual(['a', 'c', 'd']);
    });

    it('refuses an empty or malformed query with a ParseError', () => {
      for (const query of ['', '   ', 'km >', 'km > 1 ORDER BY km']) {
        let error: unknown;
        try {
          cars().find(query);
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(ParseError);
        expect((error as ParseError).code).toBe('query/invalid');
      }
    });

    it('binds named arguments, and refuses an unbound one when run', async () => {
      await seed(peer(), 'cars', CARS);
      expect(await cars().find('km > :min AND make != :not', { min: 60, not: 'Fiat' }).exec()).toEqual([CARS[0]]);
      expect((await failureOf(cars().find('km > :min').exec())).code).toBe('query/invalid');
      expect(
        (
          await failureOf(
            cars()
              .find('km > :min', { min: new Date(0) })
              .exec(),
          )
        ).code,
      ).toBe('query/arguments-invalid');
    });

    it('sorts by a dotted path in either direction, then limits and offsets', async () => {
      await seed(peer(), 'cars', CARS);
      expect((await cars().findAll().sort('km', 'descending').limit(2).offset(1).exec()).map((c) => c._id)).toEqual(['a', 'b']);
      expect((await cars().find('km > 0').sort('owner.city').exec()).map((c) => c._id)).toEqual(['a', 'b', 'c', 'd']);
      expect((await cars().find('km > 0').sort('isDeleted').sort('km').exec()).map((c) => c._id)).toEqual(['d', 'a', 'b', 'c']);
    });

    it('returns every live document in _id order with findAll', async () => {
      await seed(peer(), 'cars', CARS);
      await peer().store.execute("DELETE FROM cars WHERE _id = 'b'");
      expect(await cars().findAll().exec()).toEqual([CARS[0], CARS[2], CARS[3]]);
    });
  });

  describe('findByID', () => {
    it('returns the document, or undefined when there is none or it was deleted', async () => {
      await seed(peer(), 'cars', CARS);
      expect(await cars().findByID('a').exec()).toEqual(CARS[0]);
      expect(await cars().findByID('zzz').exec()).toBeUndefined();
      await cars().findByID('a').remove();
      expect(await cars().findByID('a').exec()).toBeUndefined();
      expect(await peer().store.collection('never_written').findByID('a').exec()).toBeUndefined();
    });

    it('finds an object _id whatever the key order, and a number _id written as 10.0', async () => {
      await seed(peer(), 'ids', [
        { _id: { a: 1, b: 2 }, v: 'object' },
        { _id: 10, v: 'number' },
      ]);
      expect(await peer().store.collection('ids').findByID({ b: 2, a: 1 }).exec()).toEqual({ _id: { a: 1, b: 2 }, v: 'object' });
      expect(await peer().store.collection('ids').findByID(10.0).exec()).toEqual({ _id: 10, v: 'number' });
      expect(await peer().store.collection('ids').findByID('10').exec()).toBeUndefined();
    });

    it('updates through a callback: sets, deletes and increments in one commit', async () => {
      await seed(peer(), 'people', [{ _id: 'p', name: 'Ann', y: 1, ownedCars: 2 }]);
      const result = await peer()
        .store.collection('people')
        .findByID('p')
        .update((doc, h) => {
          doc.x = 1;
          delete doc.y;
          h.increment('ownedCars', 1);
        });
      expect(result).toEqual({ items: [], mutatedDocumentIds: ['p'], commitId: 2 });
      expect(await all('people')).toEqual([{ _id: 'p', name: 'Ann', x: 1, ownedCars: 1 }]);
      await peer()
        .store.collection('people')
        .findByID('p')
        .update((_doc, h) => h.increment('ownedCars', 2));
      expect(await all('people')).toEqual([{ _id: 'p', name: 'Ann', x: 1, ownedCars: 3 }]);
    });

    it('updates nested fields and nested counters, keeping sibling fields', async () => {
      await seed(peer(), 'cars', CARS);
      await cars()
        .findByID('a')
        .update((doc, h) => {
          (doc.owner as { city: string }).city = 'Bergen';
          h.increment(['stats', 'trips'], 3);
        });
      expect(await cars().findByID('a').exec()).toEqual({ ...CARS[0], owner: { name: 'Ann', city: 'Bergen' }, stats: { trips: 3 } });
    });

    it('writes nothing for a document that does not exist', async () => {
      const result = await cars()
        .findByID('ghost')
        .update((doc) => {
          doc.x = 1;
        });
      expect(result.mutatedDocumentIds).toEqual([]);
      expect(await all()).toEqual([]);
    });

    it('refuses to change _id, and writes nothing when the callback throws or stores a Date', async () => {
      await seed(peer(), 'cars', CARS);
      const before = peer().store.lastTxnId;
      const changeId = await failureOf(
        cars()
          .findByID('a')
          .update((doc) => {
            doc._id = 'z';
            doc.km = 1;
          }),
      );
      expect(changeId.code).toBe('query/evaluation');
      await expect(
        cars()
          .findByID('a')
          .update((doc) => {
            doc.km = 1;
            throw new Error('changed my mind');
          }),
      ).rejects.toThrow('changed my mind');
      const date = await failureOf(
        cars()
          .findByID('a')
          .update((doc) => {
            (doc as Record<string, unknown>).at = new Date(0);
          }),
      );
      expect(date.code).toBe('query/arguments-invalid');
      expect(await all()).toEqual(CARS);
      expect(peer().store.lastTxnId).toBe(before);
    });

    it('removes with a tombstone and evicts without one', async () => {
      await seed(peer(), 'cars', CARS);
      expect((await cars().findByID('a').remove()).mutatedDocumentIds).toEqual(['a']);
      expect((await cars().findByID('b').evict()).mutatedDocumentIds).toEqual(['b']);
      expect(
        peer()
          .store.collections()
          .find((c) => c.name === 'cars'),
      ).toEqual({ name: 'cars', documents: 2, tombstones: 1 });
      expect((await all()).map((c) => c._id)).toEqual(['c', 'd']);
    });
  });

  it('removes and evicts in a collection whose name needs quoting', async () => {
    const odd = peer().store.collection('odd `name` here');
    await odd.upsert({ _id: 'a' });
    await odd.upsert({ _id: 'b' });
    expect((await odd.findByID('a').remove()).mutatedDocumentIds).toEqual(['a']);
    expect((await odd.findByID('b').evict()).mutatedDocumentIds).toEqual(['b']);
    expect(
      peer()
        .store.collections()
        .find((c) => c.name === 'odd `name` here'),
    ).toEqual({ name: 'odd `name` here', documents: 0, tombstones: 1 });
  });

  describe('upsert', () => {
    it('inserts a new document and returns its _id, generating one when absent', async () => {
      expect(await cars().upsert({ _id: 'x', make: 'Kia' })).toBe('x');
      const generated = await cars().upsert({ make: 'Seat' });
      expect(generated).toMatch(/^[0-9a-f]{32}$/);
      expect(await all()).toEqual([
        { _id: generated, make: 'Seat' },
        { _id: 'x', make: 'Kia' },
      ]);
    });

    it('sets the fields it names and keeps the fields it does not', async () => {
      await seed(peer(), 'cars', CARS);
      expect(await cars().upsert({ _id: 'a', km: 150, color: 'red' })).toBe('a');
      expect(await cars().findByID('a').exec()).toEqual({ ...CARS[0], km: 150, color: 'red' });
    });

    it('refuses a null _id and a document that is not an object with query/invalid', async () => {
      expect((await failureOf(cars().upsert({ _id: null, make: 'Kia' }))).code).toBe('query/invalid');
      expect((await failureOf(cars().upsert(5 as never))).code).toBe('query/invalid');
      expect(await all()).toEqual([]);
    });
  });

  it('refuses writes to __presence through the collection API with query/unsupported', async () => {
    const presence = peer().store.collection('__presence');
    expect((await failureOf(presence.upsert({ _id: 1 }))).code).toBe('query/unsupported');
    expect((await failureOf(presence.findByID(1).update((doc) => void (doc.x = 1)))).code).toBe('query/unsupported');
    expect((await failureOf(presence.findByID(1).remove())).code).toBe('query/unsupported');
    expect(await presence.findAll().exec()).toEqual([]);
  });
});
