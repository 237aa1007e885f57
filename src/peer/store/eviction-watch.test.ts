/**
 * The evict/re-sync loop, watched: an EVICT that a subscription overlaps is warned of before it
 * runs, with the subscription and how many documents come back; documents that replication brings
 * back soon after this peer evicted them are reported as the loop. The right way (spec 3.2:
 * cancel, evict, register the complementary subscription) stays quiet. Over the in-memory
 * transport, between a small peer and a Big Peer.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMesh, ids, type Mesh, type MeshPeer } from '../../testing/test-mesh.ts';
import type { ResyncEvent } from './eviction-watch.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

const OLD = '2026-11-01T00:00:00.000Z';
const NEW = '2026-11-21T00:00:00.000Z';
const TTL = '2026-11-10T00:00:00.000Z';

async function seed(peer: MeshPeer): Promise<void> {
  const docs: Record<string, unknown> = {};
  const names: string[] = [];
  for (let i = 0; i < 10; i++) {
    docs[`d${i}`] = { _id: `o${i}`, createdAt: i < 6 ? OLD : NEW };
    names.push(`(:d${i})`);
  }
  await peer.store.execute(`INSERT INTO orders DOCUMENTS ${names.join(', ')}`, docs);
}

const warnings = (peer: MeshPeer, event: string): string[] => peer.logs.filter((e) => e.event === event).map((e) => e.message);

describe('an EVICT checked against the subscriptions', () => {
  it('warns before it runs, naming the overlapping subscription and how many of its documents come back', async () => {
    const small = mesh.peer('small');
    await seed(small);
    small.store.registerSubscription('SELECT * FROM orders');
    small.store.registerSubscription('SELECT * FROM orders WHERE createdAt > :ttl', { ttl: TTL });
    small.store.registerSubscription('SELECT * FROM customers');
    await small.store.execute('EVICT FROM orders WHERE createdAt <= :ttl', { ttl: TTL });
    expect(warnings(small, 'eviction.overlap')).toEqual([
      'EVICT overlaps an active subscription: its documents will come back; collection = orders; subscription = SELECT * FROM orders; come_back = 6 of 6; cancel it before evicting and register the complementary one after (spec 3.2)',
    ]);
  });

  it('gives the same verdict as a dry run, without evicting', async () => {
    const small = mesh.peer('small');
    await seed(small);
    small.store.registerSubscription('SELECT * FROM orders WHERE createdAt <= :ttl', { ttl: NEW });
    const check = small.store.checkEviction('EVICT FROM orders WHERE createdAt <= :ttl', { ttl: TTL });
    expect(check).toMatchObject({ collection: 'orders', evicted: 6, overlaps: [{ statement: 'SELECT * FROM orders WHERE createdAt <= :ttl', comeBack: 6 }] });
    expect(warnings(small, 'eviction.overlap')).toEqual([]);
    expect((await ids(small, 'orders')).length).toBe(10);
  });

  it('is quiet for the complementary subscription of section 3.2', async () => {
    const small = mesh.peer('small');
    await seed(small);
    small.store.registerSubscription('SELECT * FROM orders WHERE createdAt > :ttl', { ttl: TTL });
    await small.store.execute('EVICT FROM orders WHERE createdAt <= :ttl', { ttl: TTL });
    expect(warnings(small, 'eviction.overlap')).toEqual([]);
    expect(await ids(small, 'orders')).toEqual(['o6', 'o7', 'o8', 'o9']);
  });
});

describe('the loop detector', () => {
  it('reports evicted documents that replication brings back, the wrong way (the subscription left in place)', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    await seed(big);
    small.store.registerSubscription('SELECT * FROM orders');
    const events: ResyncEvent[] = [];
    small.store.onResync((e) => events.push(e));
    await mesh.connect(small, big);
    await mesh.settle();
    expect((await ids(small, 'orders')).length).toBe(10);
    await small.store.execute('EVICT FROM orders WHERE createdAt <= :ttl', { ttl: TTL });
    await mesh.settle();
    expect((await ids(small, 'orders')).length).toBe(10); // All back: the loop.
    expect(events).toMatchObject([{ collection: 'orders', count: 6, subscriptions: ['SELECT * FROM orders'] }]);
    expect(warnings(small, 'eviction.resynced')).toEqual([
      expect.stringMatching(
        /^Evicted documents came back by replication \(evict\/re-sync loop\); collection = orders; count = 6; seconds_after_evict = [\d.]+; subscriptions = SELECT \* FROM orders$/,
      ),
    ]);
  });

  it('sees the loop too when the EVICT ran while no session was up: the next session brings the documents back', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    await seed(big);
    small.store.registerSubscription('SELECT * FROM orders');
    const { dialer } = await mesh.connect(small, big);
    await mesh.settle();
    dialer.close(1000, 'offline');
    await mesh.settle();
    await small.store.execute('EVICT FROM orders WHERE createdAt <= :ttl', { ttl: TTL });
    expect((await ids(small, 'orders')).length).toBe(4);
    await mesh.connect(small, big);
    await mesh.settle();
    expect((await ids(small, 'orders')).length).toBe(10); // The subscription still matches them (spec 3.1, last row).
    expect(warnings(small, 'eviction.resynced')).toHaveLength(1);
  });

  it('does not count a document this peer wrote again after evicting it', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    small.store.registerSubscription('SELECT * FROM orders');
    await small.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'mine', v: 1 } });
    await small.store.execute('EVICT FROM orders');
    await small.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'mine', v: 2 } });
    await new Promise((resolve) => setTimeout(resolve, 5)); // The Big Peer's creation is strictly later: it wins.
    await big.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'mine', w: 1 } });
    await mesh.connect(small, big);
    await mesh.settle();
    // Replication brought the Big Peer's version of `mine` (its later creation won the merge).
    expect((await small.store.execute('SELECT * FROM orders')).items).toEqual([{ _id: 'mine', w: 1 }]);
    expect(warnings(small, 'eviction.resynced')).toEqual([]);
  });

  it('stays quiet the right way: cancel, evict, register the complementary subscription', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    await seed(big);
    const all = small.store.registerSubscription('SELECT * FROM orders');
    await mesh.connect(small, big);
    await mesh.settle();
    all.cancel();
    await small.store.execute('EVICT FROM orders WHERE createdAt <= :ttl', { ttl: TTL });
    small.store.registerSubscription('SELECT * FROM orders WHERE createdAt > :ttl', { ttl: TTL });
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['o6', 'o7', 'o8', 'o9']);
    expect(warnings(small, 'eviction.overlap')).toEqual([]);
    expect(warnings(small, 'eviction.resynced')).toEqual([]);
  });
});
