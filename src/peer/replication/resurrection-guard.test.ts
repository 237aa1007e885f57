/**
 * The resurrection guard on its own, over the in-memory transport: the Big Peer's reap is
 * played by removing its tombstones with the storage operation and saving the horizon, as the
 * reaper does (the reaper and the whole story are in src/peer/eviction/tombstone-resurrection.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatHlc } from '../crdt/hlc.ts';
import { createMesh, ids, type Mesh, type MeshPeer } from '../../testing/test-mesh.ts';
import { REAP_HORIZON_SETTING, advanceHorizon } from './resurrection-guard.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

/** Removes every tombstone of the Big Peer and saves the horizon, as a reap at `cutMs` would. */
async function reapAll(big: MeshPeer, cutMs: number): Promise<void> {
  const cut = formatHlc(cutMs, 0xffff);
  await big.store.internalWrites.write('Internal', 'reap tombstones', (w) => {
    const reaped = w.writer.reapTombstones({ deletedUpTo: cut });
    const horizon = advanceHorizon(undefined, cut, Math.max(0, ...reaped.map((r) => r.txnId)), cutMs);
    w.writer.setSetting(REAP_HORIZON_SETTING, JSON.stringify(horizon));
  });
}

const frames = (peer: MeshPeer, type: string): number => peer.lines().filter((l) => l.includes(type)).length;

describe('the resurrection guard', () => {
  it('drops what the Big Peer reaped, keeps what changed here since, and asks only about documents the Big Peer held', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const a = mesh.peer('a');
    const b = mesh.peer('b');
    for (const p of [a, b]) p.store.registerSubscription('SELECT * FROM orders');
    await big.store.execute('INSERT INTO orders DOCUMENTS (:x), (:y), (:z)', { x: { _id: 'x' }, y: { _id: 'y' }, z: { _id: 'z' } });
    await mesh.connect(a, big);
    const away = await mesh.connect(b, big);
    await mesh.settle();
    away.dialer.close(1000, 'offline');
    await mesh.settle();
    await a.store.execute("DELETE FROM orders WHERE _id IN ['x', 'y']");
    await mesh.settle();
    // b edits y (deleted elsewhere) while away: its edit is newer than what the Big Peer acknowledged, so it is kept.
    await b.store.execute("UPDATE orders SET note = 'offline' WHERE _id = 'y'");
    await reapAll(big, Date.now() + 1000);
    expect(big.store.readNow((r) => [r.get('orders', 'x'), r.get('orders', 'y')])).toEqual([undefined, undefined]);

    await mesh.connect(b, big);
    await mesh.settle();
    expect(await ids(b, 'orders')).toEqual(['y', 'z']);
    // y comes back as b's offline work (its deletion was reaped: nothing says it was deleted).
    expect(await ids(big, 'orders')).toEqual(['y', 'z']);
    const line = b.logs.find((e) => e.event === 'replication.reaped-dropped');
    expect(line?.level).toBe('WARN');
    expect(line?.fields).toMatchObject({ remote: big.peerKey, named: 2, dropped: 1, collections: 'orders: 1' }); // x and z named; z is still there;
  });

  it('sends no reaped horizon from a Big Peer that never reaped, and no small peer sends one', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const a = mesh.peer('a');
    a.store.registerSubscription('SELECT * FROM orders');
    await a.store.internalSettings.set({ [REAP_HORIZON_SETTING]: JSON.stringify({ before: formatHlc(Date.now(), 0), upto: 99, at: 0 }) });
    const sessions = await mesh.connect(a, big);
    await mesh.settle();
    expect(sessions.dialer.remoteSubscriptions).toBeDefined();
    expect(a.logs.some((e) => e.event === 'replication.reaped-dropped')).toBe(false);
    expect(big.logs.some((e) => e.event === 'replication.reaped-dropped')).toBe(false);
    expect(frames(a, 'reconcile')).toBe(0);
  });
});
