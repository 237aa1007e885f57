/**
 * The inspector's statements run through the real DQL engine (an in-memory `Sync`): each parses,
 * and an edit's UPDATE turns the stored document into exactly the edited JSON.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Sync } from '../sync/sync.ts';
import type { JsonObject } from '../../shared/json.ts';
import { deleteDocument, evictDocument, insertDocument, selectCollection, subscriptionStatement, updateDocument } from '../../shared/inspector/statements.ts';

let sync: Sync;

beforeEach(() => {
  sync = new Sync({ inMemory: true });
});

afterEach(() => {
  sync.close();
});

async function only(collection: string): Promise<JsonObject | undefined> {
  const { statement, args } = selectCollection(collection);
  const { items } = await sync.store.execute(statement, args);
  return items[0];
}

describe('the statements of the UI actions, run by the engine', () => {
  it('inserts, selects, deletes and evicts in collections whose names need backticks', async () => {
    for (const collection of ['orders', 'order', 'my orders', 'collection', 'tick`tock']) {
      const insert = insertDocument(collection, { _id: 'd1', total: 5 });
      expect((await sync.store.execute(insert.statement, insert.args)).mutatedDocumentIds).toEqual(['d1']);
      expect(await only(collection)).toEqual({ _id: 'd1', total: 5 });
      const del = deleteDocument(collection, 'd1');
      expect((await sync.store.execute(del.statement, del.args)).mutatedDocumentIds).toEqual(['d1']);
      expect(await only(collection)).toBeUndefined();
      await sync.store.execute(insert.statement, insert.args);
      const evict = evictDocument(collection, 'd1');
      expect((await sync.store.execute(evict.statement, evict.args)).mutatedDocumentIds).toEqual(['d1']);
    }
  });

  it('turns the stored document into the edited one with one UPDATE', async () => {
    const original: JsonObject = {
      _id: { shop: 1, n: 7 },
      status: 'open',
      draft: true,
      order: 3,
      'odd key': 'x',
      address: { city: 'Oslo', zip: '0150', lines: ['a', 'b'] },
      tags: ['x', 'y'],
      nested: { deep: { keep: 1, drop: 2 } },
    };
    const edited: JsonObject = {
      _id: { n: 7, shop: 1 },
      status: 'paid',
      order: 4,
      'odd key': 'y',
      address: { city: 'Bergen', zip: '0150', lines: ['a'] },
      tags: [],
      nested: { deep: { keep: 1, add: { x: null } } },
      paidAt: '2026-01-01T00:00:00.000Z',
    };
    const insert = insertDocument('orders', original);
    await sync.store.execute(insert.statement, insert.args);
    const update = updateDocument('orders', original, edited);
    expect(update).toBeDefined();
    const result = await sync.store.execute(update!.statement, update!.args);
    expect(result.mutatedDocumentIds).toEqual([{ n: 7, shop: 1 }]);
    expect(await only('orders')).toEqual(edited);
  });

  it('keeps a counter a counter when an edit changes its number', async () => {
    await sync.store.execute("INSERT INTO c DOCUMENTS ({_id: 'k'})");
    await sync.store.execute("UPDATE c APPLY visits PN_INCREMENT BY 10 WHERE _id = 'k'");
    const update = updateDocument('c', { _id: 'k', visits: 10 }, { _id: 'k', visits: 4 }, { counters: new Set(['visits']) });
    expect(update?.statement).toContain('APPLY visits PN_INCREMENT BY :visits');
    await sync.store.execute(update!.statement, update!.args);
    await sync.store.execute("UPDATE c APPLY visits PN_INCREMENT BY 1 WHERE _id = 'k'");
    expect(await only('c')).toEqual({ _id: 'k', visits: 5 });
  });

  it('registers the subscription statement a draft builds', async () => {
    const statement = subscriptionStatement({ collection: 'order', where: 'locationId = :loc', orderBy: 'createdAt DESC', limit: 10 });
    const subscription = sync.store.registerSubscription(statement, { loc: 'A' });
    expect(sync.store.subscriptionSet().queries['order']).toEqual([{ expr: "(locationId = 'A')", order_by: ['createdAt DESC'], limit: 10 }]);
    subscription.cancel();
  });
});
