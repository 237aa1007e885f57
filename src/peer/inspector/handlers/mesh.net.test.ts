/**
 * The mesh over WebSockets on 127.0.0.1, built from the peer's own state: a small peer dialing a
 * stand-in Big Peer, seen from both inspectors as it connects, disconnects and waits to redial,
 * with the log level at ERROR so that nothing can come from log lines; and small peers on a LAN
 * (the in-memory discovery twin, real sockets): who is synced with and who is not, and why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MeshSnapshot } from '../../../shared/inspector/mesh.ts';
import type { OverviewSnapshot } from '../../../shared/inspector/overview.ts';
import { OUTER_PROTOCOL_VERSION } from '../../../shared/protocol/announce.ts';
import { MemoryLanNetwork, type MemoryDiscoveryOptions } from '../../lan/memory-discovery.ts';
import { webSocketUrl } from '../../sync/sync.ts';
import type { PeerToPeerOptions } from '../../replication/transport-config.ts';
import { createInspector, type Inspector } from '../inspector.ts';
import { NET_APP, netKit, until, type NetKit, type NetPeer } from '../../../testing/inspector/net-kit.ts';
import { serveCall } from '../serve-call.ts';

/** When an update was last exchanged: a time once one was, null before (these tests do not wait for one). */
const SYNCED_OR_NOT = expect.toBeOneOf([null, expect.any(Number)]);

let kit: NetKit | undefined;
/** A second issuer's peers (strangers to the first's). */
let strangers: NetKit | undefined;
const inspectors: Inspector[] = [];
afterEach(async () => {
  for (const i of inspectors.splice(0)) i.close();
  await kit?.dispose();
  await strangers?.dispose();
  strangers = undefined;
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
    expect((await onSmall.get()).local).toEqual({ peerKey: small.sync.peerKey, role: 'local', appId: 'inspector-app', lastSyncedAt: null });

    await small.sync.startSync();
    await until('the small peer’s mesh shows the elected connection', () => onSmall.changes.at(-1)?.connections[0]?.state === 'elected');
    const wsUrl = webSocketUrl(big.url);
    expect((await onSmall.overview()).bigPeer).toEqual({ url: big.url, state: 'connected', peerKey: big.sync.peerKey });
    const fromSmall = await onSmall.get();
    expect(fromSmall.peers).toEqual([{ peerKey: big.sync.peerKey, role: 'big-peer', appId: 'inspector-app', auth: undefined, lastSyncedAt: SYNCED_OR_NOT }]);
    expect(fromSmall.lanPeers).toEqual([]);
    expect(fromSmall.transports).toEqual([]);
    expect(fromSmall.connections).toEqual([
      {
        id: expect.stringMatching(/^WsClient#\d+$/),
        type: 'WsClient',
        direction: 'dialed',
        address: wsUrl,
        transport: 'WebSocket',
        state: 'elected',
        since: expect.any(Number),
        remotePeerKey: big.sync.peerKey,
        // A dial of the Big Peer's address is meant for the Big Peer last met.
        advertisedPeerKey: big.sync.peerKey,
        reason: undefined,
        refusal: undefined,
        retryInMs: undefined,
      },
    ]);
    await until('the Big Peer’s mesh shows the accepted connection', () => onBig.changes.at(-1)?.connections[0]?.state === 'elected');
    const fromBig = await onBig.get();
    expect(fromBig.peers).toEqual([
      {
        peerKey: small.sync.peerKey,
        role: 'small-peer',
        appId: 'inspector-app',
        auth: { state: 'verified', userID: 'clerk', certificateExpiresAt: small.sync.auth.status.expiresAt, at: expect.any(Number) },
        lastSyncedAt: SYNCED_OR_NOT,
      },
    ]);
    expect(fromBig.connections).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(/^WsServer#\d+$/),
        type: 'WsServer',
        direction: 'accepted',
        address: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        state: 'elected',
        remotePeerKey: small.sync.peerKey,
      }),
    ]);

    // The Big Peer goes away: the small peer's address is closed, to be dialed again in about 5 s.
    await big.stop();
    await until('the small peer’s mesh shows the address closed with a retry', () => onSmall.changes.at(-1)?.connections[0]?.retryInMs !== undefined);
    const down = (await onSmall.get()).connections[0];
    expect(down).toMatchObject({ state: 'closed', reason: expect.stringMatching(/^session ended \(\d+\)/) });
    expect(down?.retryInMs).toBeGreaterThan(1_000);
    expect(down?.retryInMs).toBeLessThanOrEqual(5_000);
    // Each redial, failing before any handshake, stays on the Big Peer's node: no stranger appears.
    await until('a redial of the Big Peer failed', async () => (await onSmall.get()).connections.some((c) => c.remotePeerKey === undefined), 15_000);
    for (const c of (await onSmall.get()).connections) expect(c.remotePeerKey ?? c.advertisedPeerKey).toBe(big.sync.peerKey);
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
    await until(
      'both sides elected',
      async () => (await onA.get()).connections[0]?.state === 'elected' && (await onB.get()).connections[0]?.state === 'elected',
    );
    expect((await onB.get()).connections.map((c) => [c.direction, c.address, c.remotePeerKey])).toEqual([['dialed', a.sync.listenUrl, a.sync.peerKey]]);
    expect((await onA.get()).connections.map((c) => [c.direction, c.type, c.remotePeerKey])).toEqual([['accepted', 'WsServer', b.sync.peerKey]]);
    expect((await onA.get()).peers).toEqual([
      {
        peerKey: b.sync.peerKey,
        role: 'small-peer',
        appId: 'inspector-app',
        auth: expect.objectContaining({ state: 'verified', userID: 'b' }),
        lastSyncedAt: SYNCED_OR_NOT,
      },
    ]);
    expect((await onA.get()).connections[0]?.transport).toBe('WebSocket');
  });
});

describe('the mesh on the LAN', () => {
  const lan = (network: MemoryLanNetwork, label: string, options: { discovery?: MemoryDiscoveryOptions; peerToPeer?: PeerToPeerOptions } = {}) => ({
    bigPeerURL: 'http://127.0.0.1:9',
    sync: { bigPeer: false, peerToPeer: options.peerToPeer ?? { lan: { listen: { host: '127.0.0.1' } } } },
    lanDiscovery: () => network.discovery(label, options.discovery),
  });
  const startAll = async (...peers: NetPeer[]): Promise<void> => {
    for (const p of peers) await p.sync.startSync();
  };

  it('shows the LAN peers synced with and verified, those not synced with and why, a stranger refused, and the transports asked for', async () => {
    kit = netKit();
    strangers = netKit();
    const network = new MemoryLanNetwork();
    const a = kit.smallPeer('alice', lan(network, 'a', { peerToPeer: { lan: { listen: { host: '127.0.0.1' } }, bluetoothLE: true } }));
    const b = kit.smallPeer('bob', lan(network, 'b'));
    const stranger = strangers.smallPeer('eve', lan(network, 'stranger'));
    // Only advertised: a peer of another app, and one of a protocol version this one does not speak.
    const other = { peerKey: 'other-app-peer-key', appID: 'another-app', protocolVersion: OUTER_PROTOCOL_VERSION, port: 9 };
    const future = { peerKey: 'future-peer-key', appID: NET_APP, protocolVersion: 99, port: 9 };
    for (const ad of [other, future]) await network.discovery(ad.peerKey).start(ad, { up: () => {}, down: () => {} });
    a.hub.minimumLogLevel = 'ERROR';
    const onA = watch(createInspector(a.sync));
    await startAll(a, b, stranger);

    // The stranger is redialed and refused again and again: a snapshot taken while it is refused.
    let mesh: MeshSnapshot | undefined;
    await until('a is elected with b and has refused the stranger', async () => {
      const m = (mesh = await onA.get());
      const auth = (peerKey: string) => m.lanPeers.find((p) => p.peerKey === peerKey)?.auth?.state;
      return auth(b.sync.peerKey) === 'verified' && auth(stranger.sync.peerKey) === 'refused' && m.connections.some((c) => c.state === 'elected');
    });
    if (mesh === undefined) throw new Error('no snapshot');
    const byKey = new Map(mesh.lanPeers.map((p) => [p.peerKey, p]));
    expect(mesh.lanPeers).toHaveLength(4);

    // b: the same app and issuer, synced over LAN, its certificate verified.
    const bobAuth = { state: 'verified', userID: 'bob', certificateExpiresAt: b.sync.auth.status.expiresAt, at: expect.any(Number) };
    expect(byKey.get(b.sync.peerKey)).toEqual({
      name: expect.stringMatching(/^syncmesh-/),
      peerKey: b.sync.peerKey,
      appId: 'inspector-app',
      protocolVersion: expect.any(Number),
      url: b.sync.lanListenUrl?.replace('0.0.0.0', '127.0.0.1'),
      compatible: true,
      reason: undefined,
      present: true,
      lastSeenAt: expect.any(Number),
      auth: bobAuth,
    });
    expect(mesh.peers.find((p) => p.peerKey === b.sync.peerKey)).toEqual({
      peerKey: b.sync.peerKey,
      role: 'small-peer',
      appId: 'inspector-app',
      auth: bobAuth,
      lastSyncedAt: SYNCED_OR_NOT,
    });
    const elected = mesh.connections.find((c) => c.state === 'elected');
    expect(elected).toMatchObject({ transport: 'LAN', remotePeerKey: b.sync.peerKey });

    // Another app and another protocol version: seen, never dialed, with why.
    expect(byKey.get(other.peerKey)).toMatchObject({
      appId: 'another-app',
      compatible: false,
      reason: expect.stringMatching(/^another app \(another-app\)/),
      auth: undefined,
    });
    expect(byKey.get(future.peerKey)).toMatchObject({
      protocolVersion: 99,
      compatible: false,
      reason: expect.stringMatching(/^outer_protocol_version 99 is not supported/),
      auth: undefined,
    });
    expect(mesh.connections.filter((c) => c.advertisedPeerKey === other.peerKey || c.advertisedPeerKey === future.peerKey)).toEqual([]);

    // The stranger (another issuer): its handshake refused over its certificate, and no session.
    const eve = byKey.get(stranger.sync.peerKey);
    expect(eve).toMatchObject({
      compatible: true,
      auth: { state: 'refused', refusal: { code: 4401, reason: expect.stringMatching(/^bad certificate \(UnknownIssuer\)/) } },
    });
    expect(mesh.peers.map((p) => p.peerKey)).not.toContain(stranger.sync.peerKey);
    const refusedId = eve?.auth?.state === 'refused' ? eve.auth.connectionId : undefined;
    expect(mesh.connections.find((c) => c.id === refusedId)).toMatchObject({
      transport: 'LAN',
      direction: 'dialed',
      advertisedPeerKey: stranger.sync.peerKey,
      remotePeerKey: undefined,
      state: 'closed',
    });

    // Transports: LAN runs, listening (on 127.0.0.1 here: it warns that other machines cannot reach it); Bluetooth LE is not on this platform.
    expect(mesh.transports).toEqual([
      {
        transport: 'LAN',
        condition: 'Ok',
        reason: expect.stringMatching(/^listening on ws:\/\/127\.0\.0\.1:\d+\/_sync\/ws/),
        since: expect.any(Number),
        warning: expect.stringMatching(/^other machines cannot reach this peer: it listens on 127\.0\.0\.1/),
      },
      { transport: 'BluetoothLE', condition: 'Unavailable', reason: expect.stringContaining('has no such transport'), since: expect.any(Number) },
    ]);

    // b stops: gone from the LAN, and mesh:changed said so.
    await b.sync.stopSync();
    await until('a sees b gone', () => onA.changes.at(-1)?.lanPeers.find((p) => p.peerKey === b.sync.peerKey)?.present === false);
    // a stops: every transport that ran is Stopped, every LAN peer is gone.
    await a.sync.stopSync();
    await until('a’s mesh says LAN stopped', () => onA.changes.at(-1)?.transports[0]?.condition === 'Stopped');
    const stopped = await onA.get();
    expect(stopped.transports.map((t) => [t.transport, t.condition])).toEqual([
      ['LAN', 'Stopped'],
      ['BluetoothLE', 'Unavailable'],
    ]);
    expect(stopped.lanPeers.every((p) => !p.present)).toBe(true);
  });
});
