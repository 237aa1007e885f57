/**
 * Tombstone reaping across a Big Peer and two small peers on one injected clock, over the
 * in-memory transport (test-mesh.ts): a small peer away for longer than the Big Peer's
 * tombstone TTL comes back holding a live copy of a document deleted and reaped meanwhile. The
 * resurrection guard drops that copy (and says so) instead of keeping a zombie that would sync
 * back, while the work it did offline still uploads. A peer away for less merges as always.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMesh, ids, rows, type Mesh, type MeshPeer } from '../../testing/test-mesh.ts';
import { ManualTimers } from '../time.ts';
import type { Session } from '../replication/session.ts';
import { TombstoneReaper } from './tombstone-reaper.ts';

const DAY = 24 * 3_600_000;
const YEAR = 365 * DAY;

let mesh: Mesh;
const reapers: TombstoneReaper[] = [];
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => {
  for (const r of reapers.splice(0)) r.close();
  mesh.dispose();
});

function reaper(peer: MeshPeer, timers: ManualTimers, ttlDays: number, uploads: boolean): TombstoneReaper {
  const r = new TombstoneReaper(
    {
      store: peer.store,
      timers,
      logger: peer.hub.logger('tombstones'),
      reapUpTo: () => (uploads ? (peer.replicator.bigPeerHolds() ?? 0) : undefined),
    },
    { ttlDays, scheduled: false },
  );
  reapers.push(r);
  return r;
}

/** A Big Peer and two small peers subscribed to the orders, o1 and o2 everywhere, on one manual clock. */
async function world() {
  const timers = new ManualTimers(Date.now());
  const options = { timers, clock: timers, certificateLifetimeMs: YEAR };
  const big = mesh.peer('big', { ...options, bigPeer: true });
  const a = mesh.peer('a', options);
  const b = mesh.peer('b', options);
  for (const p of [a, b]) p.store.registerSubscription('SELECT * FROM orders');
  await big.store.execute('INSERT INTO orders DOCUMENTS (:o1), (:o2)', { o1: { _id: 'o1', n: 1 }, o2: { _id: 'o2', n: 1 } });
  await mesh.connect(a, big);
  const bSessions = await mesh.connect(b, big);
  await mesh.settle();
  expect(await ids(b, 'orders')).toEqual(['o1', 'o2']);
  return { timers, big, a, b, bSessions };
}

/** B goes offline: its session with the Big Peer closes. */
async function offline(sessions: { dialer: Session; acceptor: Session }): Promise<void> {
  sessions.dialer.close(1000, 'offline');
  await mesh.settle();
}

const guardLines = (peer: MeshPeer): string[] => peer.logs.filter((e) => e.event === 'replication.reaped-dropped').map((e) => `[${e.level}] ${e.message}`);
const reconcileFrames = (peer: MeshPeer): number => peer.logs.filter((e) => e.event === 'replication.reaped-dropped').length;

describe('tombstone reaping and the resurrection guard', () => {
  it('drops, on a peer back after longer than the Big Peer TTL, a document deleted and reaped meanwhile; its offline work still uploads', async () => {
    const { timers, big, a, b, bSessions } = await world();
    await offline(bSessions);
    // Offline, a day before what will be the horizon: a new order never uploaded.
    timers.advance(DAY / 2);
    await b.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'o4', n: 4 } });
    await a.store.execute("DELETE FROM orders WHERE _id = 'o1'");
    await mesh.settle();
    expect(big.store.readNow((r) => r.get('orders', 'o1'))?.value).toBeNull();

    timers.advance(31 * DAY);
    const bigRun = await reaper(big, timers, 30, false).runNow();
    expect(bigRun).toMatchObject({ outcome: 'reaped', reaped: 1, collections: { orders: 1 } });
    expect(await reaper(a, timers, 7, true).runNow()).toMatchObject({ reaped: 1 });
    expect(big.store.readNow((r) => r.get('orders', 'o1'))).toBeUndefined();
    expect(a.store.readNow((r) => r.get('orders', 'o1'))).toBeUndefined();

    // Offline, after the horizon: an edit of o2 and a new order.
    await b.store.execute("UPDATE orders SET n = 2 WHERE _id = 'o2'");
    await b.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'o3', n: 3 } });
    expect(await ids(b, 'orders')).toEqual(['o1', 'o2', 'o3', 'o4']);

    await mesh.connect(b, big);
    await mesh.settle();

    // Without the guard, b would send o1 back: the Big Peer's progress of b's store starts from 0.
    for (const peer of [big, a]) {
      expect(await ids(peer, 'orders'), peer.name).toEqual(['o2', 'o3', 'o4']);
      expect(peer.store.readNow((r) => r.get('orders', 'o1'))).toBeUndefined();
      expect(await rows(peer, "SELECT n FROM orders WHERE _id = 'o2'")).toEqual([{ n: 2 }]);
    }
    expect(await ids(b, 'orders')).toEqual(['o2', 'o3', 'o4']);
    expect(b.store.readNow((r) => r.get('orders', 'o1'))).toBeUndefined();
    const horizon = new Date(Date.parse(bigRun.deletedBefore)).toISOString();
    expect(guardLines(b)).toEqual([
      `[WARN] Reconciled with the Big Peer past its reap horizon; remote = ${big.peerKey}; horizon = ${horizon} (txn_id ${bigRun.horizon?.upto}); ` +
        `named = 1; dropped = 1; collections = orders: 1; txn_id = ${b.store.lastTxnId}`,
    ]);
  });

  it('reconciles once: the next session with the same horizon names nothing and sends no reconcile', async () => {
    const { timers, big, a, b, bSessions } = await world();
    await offline(bSessions);
    await a.store.execute("DELETE FROM orders WHERE _id = 'o1'");
    await mesh.settle();
    timers.advance(31 * DAY);
    await reaper(big, timers, 30, false).runNow();
    const back = await mesh.connect(b, big);
    await mesh.settle();
    expect(reconcileFrames(b)).toBe(1);
    await offline(back);
    await mesh.connect(b, big);
    await mesh.settle();
    expect(reconcileFrames(b)).toBe(1);
    expect(await ids(b, 'orders')).toEqual(['o2']);
  });

  it('merges normally, with no reconcile, a peer back after less than the Big Peer TTL: the tombstone reaches it', async () => {
    const { timers, big, a, b, bSessions } = await world();
    await offline(bSessions);
    await a.store.execute("DELETE FROM orders WHERE _id = 'o1'");
    await mesh.settle();
    timers.advance(10 * DAY);
    expect(await reaper(big, timers, 30, false).runNow()).toMatchObject({ reaped: 0 });
    await b.store.execute("UPDATE orders SET n = 2 WHERE _id = 'o2'");
    await mesh.connect(b, big);
    await mesh.settle();
    expect(b.store.readNow((r) => r.get('orders', 'o1'))?.value).toBeNull();
    expect(await ids(b, 'orders')).toEqual(['o2']);
    expect(await rows(big, "SELECT n FROM orders WHERE _id = 'o2'")).toEqual([{ n: 2 }]);
    expect(guardLines(b)).toEqual([]);
  });

  it('does not reconcile a peer that had every reaped tombstone before it went away', async () => {
    const { timers, big, a, b, bSessions } = await world();
    await a.store.execute("DELETE FROM orders WHERE _id = 'o1'");
    await mesh.settle();
    expect(b.store.readNow((r) => r.get('orders', 'o1'))?.value).toBeNull();
    await offline(bSessions);
    timers.advance(31 * DAY);
    expect(await reaper(big, timers, 30, false).runNow()).toMatchObject({ reaped: 1 });
    await mesh.connect(b, big);
    await mesh.settle();
    expect(guardLines(b)).toEqual([]);
    expect(await ids(b, 'orders')).toEqual(['o2']);
  });
});
