/**
 * How far the Big Peer holds a small peer's store, as the replicator tells it over the in-memory
 * transport: the figure eviction trusts and the Sync's wait for uploads are built on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMesh, type Mesh } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

describe('what the Big Peer holds of a small peer', () => {
  it('reaches the last txn_id once the Big Peer acknowledges the update, and onBigPeerHoldsChange tells each step', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    const told: (number | undefined)[] = [];
    small.replicator.onBigPeerHoldsChange(() => told.push(small.replicator.bigPeerHolds()));
    await small.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    expect(small.replicator.hasBigPeerSession).toBe(false);
    await mesh.connect(small, big);
    expect(small.replicator.hasBigPeerSession).toBe(true);
    await mesh.settle();
    expect(small.replicator.bigPeerHolds()).toBe(1);
    await small.store.execute('INSERT INTO orders DOCUMENTS (:b)', { b: { _id: 'b' } });
    await mesh.settle();
    expect(small.replicator.bigPeerHolds()).toBe(2);
    // At the session start the Big Peer said it held nothing; then each acknowledged update.
    expect(told).toEqual([0, 1, 2]);
  });

  it('moves on over commits that only stored what the Big Peer sent', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    small.store.registerSubscription('SELECT * FROM orders');
    await mesh.connect(small, big);
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'from-big' } });
    await mesh.settle();
    expect(small.store.lastTxnId).toBe(1);
    expect(small.replicator.bigPeerHolds()).toBe(1);
  });

  it('tells its listeners when the session with the Big Peer ends, and keeps what it held', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    await small.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    const { dialer } = await mesh.connect(small, big);
    await mesh.settle();
    let calls = 0;
    small.replicator.onBigPeerHoldsChange(() => calls++);
    dialer.close(1001, 'going away');
    await mesh.settle();
    expect(calls).toBe(1);
    expect(small.replicator.hasBigPeerSession).toBe(false);
    expect(small.replicator.bigPeerHolds()).toBe(1); // saved with the store as the session ended
  });
});
