/**
 * The document sync trace (`documents:trace`) on a stand-in Big Peer with two registers over
 * WebSockets on 127.0.0.1: an order one register has and the other does not, with the reason
 * (no subscription, no permission, session down), and on a register, its own write acknowledged
 * by the Big Peer and one that came from it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { OverviewSnapshot } from '../../../shared/inspector/overview.ts';
import type { DocumentTrace, RemoteTrace } from '../../../shared/inspector/trace.ts';
import { netKit, until, type NetKit } from '../../../testing/inspector/net-kit.ts';
import { createInspector, type Inspector } from '../inspector.ts';
import { serveCall } from '../serve-call.ts';

let kit: NetKit | undefined;
const inspectors: Inspector[] = [];
afterEach(async () => {
  for (const i of inspectors.splice(0)) i.close();
  await kit?.dispose();
});

async function trace(inspector: Inspector, collection: string, id: string): Promise<DocumentTrace> {
  const result = await serveCall(inspector.openSession().handlers, 'documents:trace', { collection, id });
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value as DocumentTrace;
}

function of(t: DocumentTrace, peerKey: string): RemoteTrace | undefined {
  return t.remotes.find((r) => r.peerKey === peerKey);
}

describe('documents:trace', () => {
  it('tells, on the Big Peer, why an order reached one register and not the other: its subscription, its permission, its session', async () => {
    kit = netKit();
    const big = await kit.bigPeer();
    const readsOwn = (store: string) => ({
      read: { everything: false, queries_by_collection: { orders: [`store = '${store}'`] } },
      write: { everything: true, queries_by_collection: {} },
    });
    const a = kit.smallPeer('register-a', { bigPeerURL: big.url, permissions: readsOwn('A') });
    const b = kit.smallPeer('register-b', { bigPeerURL: big.url });
    a.sync.store.registerSubscription('SELECT * FROM orders');
    b.sync.store.registerSubscription("SELECT * FROM orders WHERE store = 'B'");
    const inspector = createInspector(big.sync);
    inspectors.push(inspector);
    await a.sync.startSync();
    await b.sync.startSync();
    await until('both registers in session', () => big.sync.sessions.length === 2);
    await until('both said their subscriptions', () => big.sync.sessions.every((s) => s.remoteSubscriptions !== undefined));

    await big.sync.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'o-a', store: 'A' }, b: { _id: 'o-b', store: 'B' } });
    await until('register a has o-a', async () => (await a.sync.store.execute("SELECT * FROM orders WHERE _id = 'o-a'")).items.length === 1);
    await until('register b has o-b', async () => (await b.sync.store.execute("SELECT * FROM orders WHERE _id = 'o-b'")).items.length === 1);

    const forA = await trace(inspector, 'orders', 'o-a');
    expect(forA).toMatchObject({ collection: 'orders', id: 'o-a', held: 'live', lastWriter: big.sync.peerKey });
    await until('register a acknowledged o-a', async () => of(await trace(inspector, 'orders', 'o-a'), a.sync.peerKey)?.delivery.state === 'acknowledged');
    // Register b subscribes to store B only.
    expect(of(forA, b.sync.peerKey)?.delivery).toEqual({ state: 'not-subscribed' });

    const forB = await trace(inspector, 'orders', 'o-b');
    // Register a subscribes to every order, but may read only store A's: the rule that decides is named.
    expect(of(forB, a.sync.peerKey)).toEqual({ peerKey: a.sync.peerKey, role: 'small-peer', delivery: { state: 'not-readable', rules: ["store = 'A'"] } });

    // Register b goes away: its session is down since a time, with the reason.
    await b.sync.stopSync();
    await until('register b’s session ended', () => big.sync.sessions.length === 1);
    const down = of(await trace(inspector, 'orders', 'o-b'), b.sync.peerKey);
    expect(down?.delivery.state).toBe('session-down');
    expect(down?.delivery.state === 'session-down' ? down.delivery.since : null).toBeGreaterThan(0);

    // A document this peer does not hold is traced as absent.
    expect(await trace(inspector, 'orders', 'nowhere')).toEqual({
      collection: 'orders',
      id: 'nowhere',
      held: 'absent',
      txnId: null,
      lastWriter: null,
      lastWrittenAt: null,
      remotes: [],
    });
  });

  it('tells, on a register, that the Big Peer acknowledged its own write and that a document it received came from the Big Peer', async () => {
    kit = netKit();
    const big = await kit.bigPeer();
    const a = kit.smallPeer('register-a', { bigPeerURL: big.url });
    a.sync.store.registerSubscription('SELECT * FROM orders');
    const inspector = createInspector(a.sync);
    inspectors.push(inspector);
    await a.sync.startSync();
    await until('in session', () => a.sync.sessions.length === 1);
    await a.sync.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'mine', total: 3 })");
    await big.sync.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'theirs', total: 4 })");
    await until('the register has theirs', async () => (await a.sync.store.execute("SELECT * FROM orders WHERE _id = 'theirs'")).items.length === 1);
    await until(
      'the Big Peer acknowledged mine',
      async () => of(await trace(inspector, 'orders', 'mine'), big.sync.peerKey)?.delivery.state === 'acknowledged',
    );
    const mine = await trace(inspector, 'orders', 'mine');
    expect(mine).toMatchObject({
      held: 'live',
      lastWriter: a.sync.peerKey,
      remotes: [{ peerKey: big.sync.peerKey, role: 'big-peer', delivery: { state: 'acknowledged', query: '*' } }],
    });
    const theirs = await trace(inspector, 'orders', 'theirs');
    expect(theirs).toMatchObject({ held: 'live', lastWriter: big.sync.peerKey, remotes: [{ peerKey: big.sync.peerKey, delivery: { state: 'from-remote' } }] });
  });

  it('shows on the Overview an upload queue that empties as the Big Peer acknowledges, and when each remote last synced', async () => {
    kit = netKit();
    const big = await kit.bigPeer();
    const a = kit.smallPeer('register-a', { bigPeerURL: big.url });
    a.sync.store.registerSubscription('SELECT * FROM orders');
    const inspector = createInspector(a.sync);
    inspectors.push(inspector);
    const handlers = inspector.openSession().handlers;
    const overview = async () => {
      const result = await serveCall(handlers, 'overview:get', {});
      if (!result.ok) throw new Error(JSON.stringify(result.error));
      return result.value as OverviewSnapshot;
    };
    // Written offline: two commits wait for the Big Peer, the oldest since its commit.
    const before = Date.now();
    await a.sync.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'o1' })");
    await a.sync.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'o2' })");
    const offline = await overview();
    expect(offline.upload.pendingCommits).toBe(2);
    expect(offline.remotes).toEqual([]);

    await a.sync.startSync();
    await until('the Big Peer acknowledged both', async () => (await overview()).upload.pendingCommits === 0);
    const online = await overview();
    expect(online.upload).toEqual({ pendingCommits: 0, oldestPendingAt: null, acknowledgedUpTo: a.sync.store.lastTxnId });
    expect(online.remotes).toEqual([{ peerKey: big.sync.peerKey, role: 'big-peer', inSession: true, lastSyncedAt: expect.any(Number) }]);
    expect(online.remotes[0]?.lastSyncedAt).toBeGreaterThanOrEqual(before);
    const mesh = await serveCall(handlers, 'mesh:get', {});
    expect(mesh.ok && (mesh.value as { peers: { lastSyncedAt: number | null }[] }).peers[0]?.lastSyncedAt).toBeGreaterThanOrEqual(
      online.remotes[0]?.lastSyncedAt ?? 0,
    );

    // The session ends; when it last synced stays.
    await a.sync.stopSync();
    const stopped = (await overview()).remotes;
    expect(stopped).toEqual([{ peerKey: big.sync.peerKey, role: 'big-peer', inSession: false, lastSyncedAt: expect.any(Number) }]);
    expect(stopped[0]?.lastSyncedAt).toBeGreaterThanOrEqual(online.remotes[0]?.lastSyncedAt ?? 0);
  });
});
