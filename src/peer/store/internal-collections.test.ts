/**
 * Collections named with a leading `__` (issue 20): the names the peer owns (`__presence`) are
 * reserved, read but never written by the application (`query/unsupported`); any other `__`
 * name is the application's own collection, written, read back and replicated like any other.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UnsupportedQueryError } from '../errors.ts';
import { BUILT_IN_COLLECTIONS, isInternalCollection } from './store.ts';
import { STORAGES, failureOf, freshPeer } from '../../testing/dql-test-peers.ts';
import { createMesh, ids, type Mesh } from '../../testing/test-mesh.ts';

describe('which names are internal', () => {
  it('reserves the names the peer owns, __presence, and no other name with a leading __', () => {
    expect(BUILT_IN_COLLECTIONS).toEqual(['__presence']);
    expect(isInternalCollection('__presence')).toBe(true);
    expect(isInternalCollection('__private')).toBe(false);
    expect(isInternalCollection('__')).toBe(false);
    expect(isInternalCollection('orders')).toBe(false);
  });
});

describe.each(STORAGES)('collections named with a leading __ on %s storage', (_kind, open) => {
  const { peer } = freshPeer(open);
  const run = (statement: string, args?: Record<string, unknown>) => peer().store.execute(statement, args);

  it('inserts into __private and reads it back, and updates, deletes and evicts it like any collection', async () => {
    const inserted = await run('INSERT INTO __private DOCUMENTS (:a), (:b), (:c)', { a: { _id: 'a', n: 1 }, b: { _id: 'b', n: 2 }, c: { _id: 'c', n: 3 } });
    expect(inserted.mutatedDocumentIds).toEqual(['a', 'b', 'c']);
    expect((await run('SELECT * FROM __private')).items).toEqual([
      { _id: 'a', n: 1 },
      { _id: 'b', n: 2 },
      { _id: 'c', n: 3 },
    ]);
    expect((await run('UPDATE __private SET n = 10 WHERE _id = :id', { id: 'a' })).mutatedDocumentIds).toEqual(['a']);
    expect((await run('DELETE FROM __private WHERE _id = :id', { id: 'b' })).mutatedDocumentIds).toEqual(['b']);
    expect((await run('EVICT FROM __private WHERE _id = :id', { id: 'c' })).mutatedDocumentIds).toEqual(['c']);
    expect((await run('SELECT * FROM __private')).items).toEqual([{ _id: 'a', n: 10 }]);
    expect(peer().store.collections()).toEqual([
      { name: '__presence', documents: 0, tombstones: 0 },
      { name: '__private', documents: 1, tombstones: 1 },
    ]);
  });

  it('writes __private through the collection API and in a transaction', async () => {
    const mine = peer().store.collection('__private');
    await mine.upsert({ _id: 'x', n: 1 });
    await mine.findByID('x').update((doc) => void (doc.n = 2));
    await peer().store.transaction(async (tx) => {
      await tx.execute('INSERT INTO __private DOCUMENTS (:d)', { d: { _id: 'y', n: 3 } });
    });
    expect(await mine.findAll().exec()).toEqual([
      { _id: 'x', n: 2 },
      { _id: 'y', n: 3 },
    ]);
    await mine.findByID('y').remove();
    expect(await mine.findAll().exec()).toEqual([{ _id: 'x', n: 2 }]);
  });

  it('still refuses every write to __presence, in DQL, the collection API and a transaction, and reads it', async () => {
    for (const statement of ['INSERT INTO __presence DOCUMENTS ({_id: 1})', 'UPDATE __presence SET x = 1', 'DELETE FROM __presence', 'EVICT FROM __presence']) {
      const error = await failureOf(run(statement));
      expect(error).toBeInstanceOf(UnsupportedQueryError);
      expect(error.code).toBe('query/unsupported');
    }
    expect((await failureOf(peer().store.collection('__presence').upsert({ _id: 1 }))).code).toBe('query/unsupported');
    const inTransaction = await failureOf(peer().store.transaction((tx) => tx.execute('INSERT INTO __presence DOCUMENTS ({_id: 1})')));
    expect(inTransaction.code).toBe('query/unsupported');
    expect((await run('SELECT * FROM __presence')).items).toEqual([]);
    expect(peer().store.lastTxnId).toBe(0);
  });
});

describe('an application collection named with a leading __ between peers', () => {
  let mesh: Mesh | undefined;
  afterEach(() => mesh?.dispose());

  it('replicates __private as usual, both ways', async () => {
    mesh = createMesh();
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    small.store.registerSubscription('SELECT * FROM __private');
    await mesh.connect(small, big);
    await small.store.execute('INSERT INTO __private DOCUMENTS (:d)', { d: { _id: 'from-small' } });
    await big.store.execute('INSERT INTO __private DOCUMENTS (:d)', { d: { _id: 'from-big' } });
    await mesh.settle();
    expect(await ids(big, '__private')).toEqual(['from-big', 'from-small']);
    expect(await ids(small, '__private')).toEqual(['from-big', 'from-small']);
  });
});
