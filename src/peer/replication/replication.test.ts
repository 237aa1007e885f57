/**
 * Replication over the in-memory transport: what flows where, and that it converges.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMesh, ids, rows, type Mesh } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

describe('replication between a small peer and the Big Peer', () => {
  it('sends a small peer only the documents its subscriptions match', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b), (:c)', {
      a: { _id: 'a', locationId: 1 },
      b: { _id: 'b', locationId: 2 },
      c: { _id: 'c', locationId: 1 },
    });
    await big.store.execute('INSERT INTO people DOCUMENTS (:p)', { p: { _id: 'p', name: 'Ann' } });
    small.store.registerSubscription('SELECT * FROM orders WHERE locationId = 1');
    await mesh.connect(small, big);
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['a', 'c']);
    expect(await ids(small, 'people')).toEqual([]);
  });

  it('sends the Big Peer every write of the small peer, since it subscribes to everything', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    await mesh.connect(small, big);
    await small.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a', total: 5 } });
    await small.store.execute('INSERT INTO people DOCUMENTS (:p)', { p: { _id: 'p' } });
    await mesh.settle();
    expect(await rows(big, 'SELECT * FROM orders')).toEqual([{ _id: 'a', total: 5 }]);
    expect(await ids(big, 'people')).toEqual(['p']);
  });

  it('backfills the older matching documents when a new subscription is registered', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a', v: 1 }, b: { _id: 'b', v: 2 } });
    await mesh.connect(small, big);
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual([]);
    small.store.registerSubscription('SELECT * FROM orders WHERE v >= 2');
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['b']);
    small.store.registerSubscription('SELECT * FROM orders');
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['a', 'b']);
  });

  it('keeps sending changes as they are committed, once connected', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    small.store.registerSubscription('SELECT * FROM orders');
    await mesh.connect(small, big);
    await mesh.settle();
    for (let i = 0; i < 5; i++) await big.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: `o${i}`, i } });
    await big.store.execute('UPDATE orders SET i = 10 WHERE _id = :id', { id: 'o0' });
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['o0', 'o1', 'o2', 'o3', 'o4']);
    expect(await rows(small, 'SELECT i FROM orders WHERE _id = :id', { id: 'o0' })).toEqual([{ i: 10 }]);
  });

  it('replicates a DELETE as a tombstone, and replicates nothing of an EVICT', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    small.store.registerSubscription('SELECT * FROM orders');
    await mesh.connect(small, big);
    await small.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a' }, b: { _id: 'b' } });
    await mesh.settle();
    await small.store.execute('DELETE FROM orders WHERE _id = :id', { id: 'a' });
    await mesh.settle();
    expect(await ids(big, 'orders')).toEqual(['b']);
    expect(big.store.collections().find((c) => c.name === 'orders')).toMatchObject({ documents: 1, tombstones: 1 });
    const bigTxn = big.store.lastTxnId;
    await small.store.execute('EVICT FROM orders WHERE _id = :id', { id: 'b' });
    await mesh.settle();
    expect(await ids(big, 'orders')).toEqual(['b']);
    expect(big.store.lastTxnId).toBe(bigTxn);
  });
});

describe('merging concurrent edits', () => {
  it('keeps both fields when two peers edit different fields of one document apart', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const a = mesh.peer('a');
    const b = mesh.peer('b');
    for (const p of [a, b]) p.store.registerSubscription('SELECT * FROM orders');
    await big.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'o', name: 'old', price: 1, count: 0 } });
    const sa = await mesh.connect(a, big);
    const sb = await mesh.connect(b, big);
    await mesh.settle();
    sa.dialer.close(1000, 'offline');
    sb.dialer.close(1000, 'offline');
    await mesh.settle();
    await a.store.execute('UPDATE orders SET name = :n WHERE _id = :id', { n: 'from a', id: 'o' });
    await b.store.execute('UPDATE orders SET price = :p WHERE _id = :id', { p: 2, id: 'o' });
    await mesh.connect(a, big);
    await mesh.connect(b, big);
    await mesh.settle();
    for (const p of [a, b, big]) expect(await rows(p, 'SELECT * FROM orders')).toEqual([{ _id: 'o', name: 'from a', price: 2, count: 0 }]);
  });

  it('sums counters incremented on two peers apart', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const a = mesh.peer('a');
    const b = mesh.peer('b');
    for (const p of [a, b]) p.store.registerSubscription('SELECT * FROM people');
    await big.store.execute('INSERT INTO people DOCUMENTS (:d)', { d: { _id: 'p', ownedCars: 0 } });
    await big.store.execute('UPDATE people APPLY ownedCars PN_INCREMENT BY 1.0 WHERE _id = :id', { id: 'p' });
    const sa = await mesh.connect(a, big);
    const sb = await mesh.connect(b, big);
    await mesh.settle();
    sa.dialer.close(1000, 'offline');
    sb.dialer.close(1000, 'offline');
    await mesh.settle();
    await a.store.execute('UPDATE people APPLY ownedCars PN_INCREMENT BY 2.0 WHERE _id = :id', { id: 'p' });
    await b.store.execute('UPDATE people APPLY ownedCars PN_INCREMENT BY 3.0 WHERE _id = :id', { id: 'p' });
    await b.store.execute('UPDATE people APPLY ownedCars PN_INCREMENT BY -1.0 WHERE _id = :id', { id: 'p' });
    await mesh.connect(a, big);
    await mesh.connect(b, big);
    await mesh.settle();
    for (const p of [a, b, big]) expect(await rows(p, 'SELECT ownedCars FROM people')).toEqual([{ ownedCars: 5 }]);
  });
});
