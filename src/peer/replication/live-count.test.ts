/**
 * COUNT(*) of a collection reads the SQLite storage's kept count of live documents
 * (sqlite-live-counts.ts): every way a document comes, goes or turns into a tombstone must move
 * it, locally and by replication. Each test checks COUNT(*) against the documents a SELECT finds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMesh, rows, type Mesh, type MeshPeer } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

async function expectCount(peer: MeshPeer, expected: number): Promise<void> {
  expect(await rows(peer, 'SELECT COUNT(*) AS n FROM orders')).toEqual([{ n: expected }]);
  expect(await rows(peer, 'SELECT _id FROM orders')).toHaveLength(expected);
}

async function withOrders(peer: MeshPeer, n: number): Promise<void> {
  const docs = Array.from({ length: n }, (_, i) => ({ _id: `o${i}`, total: i }));
  await peer.store.execute('INSERT INTO orders DOCUMENTS (:docs)', { docs });
}

describe('COUNT(*) of a collection on SQLite', () => {
  it('counts documents inserted, and not an INSERT that changed nothing', async () => {
    const peer = mesh.peer('a', { sqlite: true });
    await expectCount(peer, 0);
    await withOrders(peer, 5);
    await peer.store.execute('INSERT INTO orders DOCUMENTS (:d) ON ID CONFLICT DO NOTHING', { d: { _id: 'o1', total: 9 } });
    await peer.store.execute('INSERT INTO orders DOCUMENTS (:d) ON ID CONFLICT DO UPDATE', { d: { _id: 'o2', total: 9 } });
    await expectCount(peer, 5);
  });

  it('keeps the count through UPDATEs', async () => {
    const peer = mesh.peer('a', { sqlite: true });
    await withOrders(peer, 6);
    await peer.store.execute('UPDATE orders SET total = total + 1 WHERE total >= 2');
    await peer.store.execute('UPDATE orders UNSET total APPLY n PN_INCREMENT BY 1 WHERE total < 3');
    await expectCount(peer, 6);
  });

  it('takes deleted documents off, and counts one inserted again after its tombstone', async () => {
    const peer = mesh.peer('a', { sqlite: true });
    await withOrders(peer, 6);
    await peer.store.execute('DELETE FROM orders WHERE total < 4');
    await expectCount(peer, 2);
    await peer.store.execute('DELETE FROM orders WHERE total < 4'); // only tombstones match: nothing
    await expectCount(peer, 2);
    await peer.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'o1', total: 1 } });
    await expectCount(peer, 3);
  });

  it('takes evicted documents off, and leaves evicted tombstones uncounted', async () => {
    const peer = mesh.peer('a', { sqlite: true });
    await withOrders(peer, 8);
    await peer.store.execute('DELETE FROM orders WHERE _id = :id', { id: 'o0' });
    await peer.store.execute('EVICT FROM orders WHERE total >= 5');
    await expectCount(peer, 4);
    await peer.store.execute('EVICT FROM orders ORDER BY total DESC LIMIT 2');
    await expectCount(peer, 2);
  });

  it('counts what a transaction wrote inside it, and nothing of what it or a failed statement rolled back', async () => {
    const peer = mesh.peer('a', { sqlite: true });
    await withOrders(peer, 3);
    await peer.store.transaction(async (tx) => {
      await tx.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'x', total: 0 } });
      expect((await tx.execute('SELECT COUNT(*) AS n FROM orders')).items).toEqual([{ n: 4 }]);
      return 'rollback';
    });
    await expectCount(peer, 3);
    await peer.store.transaction(async (tx) => {
      // It inserts n1, then fails on o1: the statement is undone, the transaction goes on and commits.
      await expect(tx.execute('INSERT INTO orders DOCUMENTS (:docs)', { docs: [{ _id: 'n1' }, { _id: 'o1' }] })).rejects.toThrow('already exists');
      await tx.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'n2' } });
    });
    await expectCount(peer, 4);
    await expect(
      peer.store.transaction(async (tx) => {
        await tx.execute('EVICT FROM orders WHERE true');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expectCount(peer, 4);
  });

  it('counts documents that arrive by replication, and takes off tombstones that arrive', async () => {
    const writer = mesh.peer('writer', { sqlite: true });
    const reader = mesh.peer('reader', { sqlite: true });
    reader.store.registerSubscription('SELECT * FROM orders');
    await withOrders(writer, 5);
    await mesh.connect(reader, writer);
    await mesh.settle();
    await expectCount(reader, 5);
    await writer.store.execute('UPDATE orders SET total = 0 WHERE total < 2');
    await writer.store.execute('DELETE FROM orders WHERE total >= 3');
    await writer.store.execute('INSERT INTO orders DOCUMENTS (:docs)', { docs: [{ _id: 'o5' }, { _id: 'o6' }] });
    await mesh.settle();
    await expectCount(writer, 5);
    await expectCount(reader, 5);
  });

  it('counts a document deleted here and brought back by a later write from another peer', async () => {
    const a = mesh.peer('a', { sqlite: true });
    const b = mesh.peer('b', { sqlite: true });
    for (const p of [a, b]) p.store.registerSubscription('SELECT * FROM orders');
    await withOrders(a, 2);
    await mesh.connect(a, b);
    await mesh.settle();
    await a.store.execute('DELETE FROM orders WHERE _id = :id', { id: 'o0' });
    await mesh.settle();
    await expectCount(b, 1);
    await b.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'o0', total: 5 } });
    await mesh.settle();
    await expectCount(a, 2);
    await expectCount(b, 2);
  });
});
