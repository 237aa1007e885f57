/**
 * The mesh over WebSockets on 127.0.0.1, built from the peer's own state: a small peer dialing a
 * stand-in Big Peer, seen from both inspectors as it connects, disconnects and waits to redial,
 * with the log level at ERROR so that nothing can come from log lines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MeshSnapshot } from '../../../shared/inspector/mesh.ts';
import type { OverviewSnapshot } from '../../../shared/inspector/overview.ts';
import { webSocketUrl } from '../../sync.ts';
import { createInspector, type Inspector } from '../inspector.ts';
import { netKit, until, type NetKit } from '../net-kit.ts';
import { serveCall } from '../serve-call.ts';

let kit: NetKit | undefined;
const inspectors: Inspector[] = [];
afterEach(async () => {
  for (const i of inspectors.splice(0)) i.close();
  await kit?.dispose();
});

function watch(inspector: Inspector) {
  inspectors.push(inspector);
  const session = inspector.openSession();
  const changes: MeshSnapshot[] = [];
  session.onEvent((event, payload) => {
    if (event === 'mesh:changed') changes.push(payload as MeshSnapshot);
  });
  return {
    changes,
    async get(): Promise<MeshSnapshot> {
      const result = await serveCall(session.handlers, 'mesh:get', {});
      if (!result.ok) throw new Error(result.error.message);
      return result.value as MeshSnapshot;
    },
    async overview(): Promise<OverviewSnapshot> {
      const result = await serveCall(session.handlers, 'overview:get', {});
      if (!result.ok) throw new Error(result.error.message);
      return result.value as OverviewSnapshot;
    },
  };
}

describe('the mesh', () => {
  it('follows a small peer’s connection to the Big Peer from both sides as it connects, ends and is redialed', async () => {
    kit = netKit();
    const big = await kit.bigPeer();
    const small = kit.smallPeer('clerk', { bigPeerURL: big.url, sync: { reconnect: { minDelayMs: 5_000, maxDelayMs: 5_000 } } });
    small.hub.minimumLogLevel = 'ERROR';
    big.hub.minimumLogLevel = 'ERROR';
    const logsBefore = small.logs.length;
    const onSmall = watch(createInspector(small.sync));
    const onBig = watch(createInspector(big.sync));
    expect((await onSmall.get()).connections).toEqual([]);
    expect((await onSmall.get()).local).toEqual({ peerKey: small.sync.peerKey, role: 'local', appId: 'inspector-app' });

    await small.sync.startSync();
    await until('the small peer’s mesh shows the elected connection', () => onSmall.changes.at(-1)?.connections[0]?.state === 'elected');
    const wsUrl = webSocketUrl(big.url);
    expect((await onSmall.overview()).bigPeer).toEqual({ url: big.url, state: 'connected', peerKey: big.sync.peerKey });
    const fromSmall = await onSmall.get();
    expect(fromSmall.peers).toEqual([{ peerKey: big.sync.peerKey, role: 'big-peer', appId: 'inspector-app' }]);
    expect(fromSmall.connections).toEqual([
      {
        id: expect.stringMatching(/^WsClient#\d+$/),
        type: 'WsClient',
        direction: 'dialed',
        address: wsUrl,
        state: 'elected',
        since: expect.any(Number),
        remotePeerKey: big.sync.peerKey,
        reason: undefined,
        retryInMs: undefined,
      },
    ]);
    await until('the Big Peer’s mesh shows the accepted connection', () => onBig.changes.at(-1)?.connections[0]?.state === 'elected');
    const fromBig = await onBig.get();
    expect(fromBig.peers).toEqual([{ peerKey: small.sync.peerKey, role: 'small-peer', appId: 'inspector-app' }]);
    expect(fromBig.connections).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^WsServer#\d+$/), type: 'WsServer', direction: 'accepted', address: expect.stringMatching(/^127\.0\.0\.1:\d+$/), state: 'elected', remotePeerKey: small.sync.peerKey }),
    ]);

    // The Big Peer goes away: the small peer's address is closed, to be dialed again in about 5 s.
    await big.stop();
    await until('the small peer’s mesh shows the address closed with a retry', () => onSmall.changes.at(-1)?.connections[0]?.retryInMs !== undefined);
    const down = (await onSmall.get()).connections[0];
    expect(down).toMatchObject({ state: 'closed', reason: expect.stringMatching(/^session ended \(\d+\)/) });
    expect(down?.retryInMs).toBeGreaterThan(1_000);
    expect(down?.retryInMs).toBeLessThanOrEqual(5_000);
    await until('the Big Peer’s mesh shows the accepted connection closed', async () => (await onBig.get()).connections[0]?.state === 'closed');
    expect((await onSmall.get()).peers).toHaveLength(1); // still listed: met in this run
    expect((await onSmall.overview()).bigPeer).toEqual({ url: big.url, state: 'connecting', peerKey: big.sync.peerKey });

    await small.sync.stopSync();
    await until('the small peer’s mesh says sync stopped', () => onSmall.changes.at(-1)?.connections[0]?.retryInMs === undefined);
    expect((await onSmall.get()).connections[0]).toMatchObject({ state: 'closed', reason: 'sync stopped', retryInMs: undefined });
    expect((await onSmall.overview()).bigPeer).toEqual({ url: big.url, state: 'stopped', peerKey: big.sync.peerKey });
    expect(small.logs.slice(logsBefore).filter((e) => e.level !== 'ERROR')).toEqual([]);
  });

  it('shows two small peers that dial each other directly: the dialed address on one side, the accepted connection on the other', async () => {
    kit = netKit();
    const big = await kit.bigPeer();
    const a = kit.smallPeer('a', { bigPeerURL: big.url, sync: { bigPeer: false, listen: { host: '127.0.0.1', port: 0 } } });
    await a.sync.startSync();
    await until('a has its certificate', () => a.sync.auth.certificate !== undefined);
    const b = kit.smallPeer('b', { bigPeerURL: big.url, sync: { bigPeer: false, connect: [a.sync.listenUrl as string] } });
    const onA = watch(createInspector(a.sync));
    const onB = watch(createInspector(b.sync));
    await b.sync.startSync();
    await until('both sides elected', async () => (await onA.get()).connections[0]?.state === 'elected' && (await onB.get()).connections[0]?.state === 'elected');
    expect((await onB.get()).connections.map((c) => [c.direction, c.address, c.remotePeerKey])).toEqual([['dialed', a.sync.listenUrl, a.sync.peerKey]]);
    expect((await onA.get()).connections.map((c) => [c.direction, c.type, c.remotePeerKey])).toEqual([['accepted', 'WsServer', b.sync.peerKey]]);
    expect((await onA.get()).peers).toEqual([{ peerKey: b.sync.peerKey, role: 'small-peer', appId: 'inspector-app' }]);
  });
});
