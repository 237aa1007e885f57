/**
 * `__presence` (spec 2.2: internal, every peer subscribes to it) under read rules that do not
 * name it: presence is readable by every authenticated peer of the app whatever the app's read
 * rules say, so it is served, and no refusal is logged at each wake-up of the session.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileReadRules, coversCollection } from './matching.ts';
import { createMesh, ids, rows, type Mesh } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

const ORDERS_ONLY = {
  read: { everything: false, queries_by_collection: { orders: ['true'] } },
  write: { everything: false, queries_by_collection: { orders: ['true'] } },
};

describe('presence under read rules that do not name it', () => {
  it('is served to the peer, and the Big Peer logs no refusal however often the session wakes', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small', { permissions: ORDERS_ONLY });
    await big.store.internalWrites.execute('Internal', 'presence', 'INSERT INTO __presence DOCUMENTS (:p)', { p: { _id: 'big-peer', online: true } });
    small.store.registerSubscription('SELECT * FROM orders');
    await mesh.connect(small, big);
    // Presence changes, and the peer changes its subscriptions: each time, a new update for it.
    for (let i = 0; i < 5; i++) {
      await big.store.internalWrites.execute('Internal', 'presence', 'UPDATE __presence SET seen = :i WHERE _id = :id', { i, id: 'big-peer' });
      await big.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: `o${i}`, n: i } });
      small.store.registerSubscription('SELECT * FROM orders WHERE n >= :i', { i });
      await mesh.settle();
    }
    expect(await ids(small, 'orders')).toEqual(['o0', 'o1', 'o2', 'o3', 'o4']);
    expect(big.logs.filter((e) => e.event === 'replication.subscription-not-served').map((e) => e.message)).toEqual([]);
    expect(await rows(small, 'SELECT * FROM __presence')).toEqual([{ _id: 'big-peer', online: true, seen: 4 }]);
  });

  it('still refuses, and logs, an application collection the rules do not name', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small', { permissions: ORDERS_ONLY });
    small.store.registerSubscription('SELECT * FROM people');
    await mesh.connect(small, big);
    await mesh.settle();
    expect(big.logs.filter((e) => e.event === 'replication.subscription-not-served').map((e) => e.fields.collection)).toContain('people');
  });

  it('compiles read rules with presence readable, and leaves write rules as they are', () => {
    const read = compileReadRules(ORDERS_ONLY.read);
    expect(coversCollection(read, '__presence')).toBe(true);
    expect(coversCollection(read, 'orders')).toBe(true);
    expect(coversCollection(read, 'people')).toBe(false);
    // An app rule on __presence cannot narrow it: the whole collection is readable.
    const narrowed = compileReadRules({ everything: false, queries_by_collection: { __presence: ['false'] } });
    expect(narrowed.byCollection.get('__presence')).toContain(undefined);
  });
});
