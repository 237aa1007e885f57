/**
 * `mesh:get` and the coalescing of `mesh:changed` on a manual clock: a peer dialing an address
 * on 127.0.0.1 where nothing listens changes state several times at once; the inspector pushes
 * one event per EVENT_COALESCE_MS, with the state then. The snapshot's LAN parts (transports,
 * peers seen on the LAN, handshakes verified or refused) from a mesh tracker fed by hand.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../../shared/permissions.ts';
import { onlinePlayground } from '../../auth/identity.ts';
import { FixtureLogin } from '../../../testing/auth/login-server.ts';
import type { RemotePeer } from '../../replication/handshake.ts';
import { MeshTracker } from '../../replication/mesh-tracker.ts';
import { ManualTimers } from '../../time.ts';
import { EVENT_COALESCE_MS } from '../inspector.ts';
import { until } from '../../../testing/inspector/net-kit.ts';
import { inspectorKit, type InspectorKit } from '../../../testing/inspector/test-kit.ts';
import { buildMeshSnapshot } from './mesh-model.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it('answers this peer alone before sync starts, and refuses input', async () => {
  kit = inspectorKit();
  expect(await kit.call('mesh:get')).toEqual({
    local: {
      peerKey: kit.sync.peerKey,
      role: 'local',
      appId: undefined,
      deviceName: undefined,
      appMetadata: undefined,
      presenceAt: undefined,
      auth: undefined,
      lastSyncedAt: null,
    },
    peers: [],
    indirect: [],
    connections: [],
    lanPeers: [],
    transports: [],
    now: kit.clock.now(),
  });
  expect(await kit.fail('mesh:get', { peer: 'x' })).toMatchObject({ code: 'inspector/bad-request', message: expect.stringMatching(/^peer:/) });
});

it('pushes one mesh:changed per window for a burst of changes, with a retry counted from the peer’s clock', async () => {
  const clock = new ManualTimers(Date.now());
  const fixture = new FixtureLogin({ appID: 'app-1', playgroundToken: 'tok', now: () => clock.now() });
  const url = `ws://127.0.0.1:${await closedPort()}/_sync/ws`;
  kit = inspectorKit({
    clock,
    sync: {
      identity: onlinePlayground({ appID: 'app-1', token: 'tok', bigPeerURL: 'http://127.0.0.1:9' }),
      fetch: fixture.fetch,
      sync: { bigPeer: false, connect: [url], reconnect: { minDelayMs: 4_000, maxDelayMs: 4_000 } },
    },
  });
  let changes = 0;
  kit.sync.onConnectionsChange(() => changes++);
  await kit.call('sync:start');
  await until('the refused dial is scheduled again', () => kit?.sync.connections[0]?.retryAt !== undefined);
  expect(changes).toBeGreaterThanOrEqual(3); // waiting, dialing, closed, retry scheduled
  expect(kit.eventsOf('mesh:changed')).toEqual([]);
  clock.advance(EVENT_COALESCE_MS);
  const events = kit.eventsOf('mesh:changed');
  expect(events).toHaveLength(1);
  expect(events[0]?.connections).toEqual([
    expect.objectContaining({
      id: expect.stringMatching(/^WsClient#\d+$/),
      direction: 'dialed',
      address: url,
      transport: 'WebSocket',
      state: 'closed',
      reason: expect.stringMatching(/StreamFailed|ConnectionEnded/),
      refusal: undefined,
      advertisedPeerKey: undefined,
    }),
  ]);
  const retryIn = events[0]?.connections[0]?.retryInMs ?? 0;
  expect(retryIn).toBeGreaterThan(1_000);
  expect(retryIn).toBeLessThanOrEqual(4_000 - EVENT_COALESCE_MS);
  clock.advance(10 * EVENT_COALESCE_MS);
  expect(kit.eventsOf('mesh:changed')).toHaveLength(1);
  await kit.call('sync:stop');
  clock.advance(EVENT_COALESCE_MS);
  expect(kit.eventsOf('mesh:changed').at(-1)?.connections[0]).toMatchObject({ state: 'closed', reason: 'sync stopped', retryInMs: undefined });
});

// --- the LAN parts, from a tracker fed by hand --------------------------------------------------

const LAN_URL = 'ws://192.168.1.20:41000/_sync/ws';
const HOUR = 3_600_000;

function lanMesh() {
  const clock = new ManualTimers();
  const tracker = new MeshTracker(clock);
  const snapshot = () =>
    buildMeshSnapshot(
      {
        peerKey: 'me',
        appID: 'app',
        connections: tracker.connections(),
        remotePeers: tracker.peers(),
        lanPeers: tracker.lanPeers(),
        transportConditions: tracker.transportConditions(),
      },
      clock.now(),
    );
  const seen = (name: string, peerKey: string | undefined, url: string, reason?: string): void =>
    tracker.lanSeen({
      name,
      peerKey,
      appID: reason?.startsWith('another app') === true ? 'other' : 'app',
      protocolVersion: 2,
      url,
      compatible: reason === undefined,
      reason,
    });
  const lanDial = (id: string, url = LAN_URL) => ({ id, type: 'WsClient', dialed: true, remoteAddress: url, transport: 'LAN' as const });
  const smallPeer = (peerKey: string, userID: string, expiresAt: number): RemotePeer => ({
    peerKey,
    role: 'small-peer',
    appID: 'app',
    permissions: EVERYTHING,
    userID,
    expiresAt,
  });
  return { clock, tracker, snapshot, seen, lanDial, smallPeer };
}

describe('the mesh snapshot’s LAN parts', () => {
  it('lists the transports asked for in the spec’s order, each with its condition and why', () => {
    const { clock, tracker, snapshot } = lanMesh();
    tracker.transportCondition({
      transport: 'BluetoothLE',
      condition: 'Unavailable',
      reason: 'Bluetooth LE needs a platform Bluetooth API',
      since: clock.now(),
    });
    tracker.transportCondition({
      transport: 'LAN',
      condition: 'Ok',
      reason: 'listening on ws://0.0.0.0:41000/_sync/ws, advertised over mDNS',
      since: clock.now(),
    });
    expect(snapshot().transports).toEqual([
      { transport: 'LAN', condition: 'Ok', reason: 'listening on ws://0.0.0.0:41000/_sync/ws, advertised over mDNS', since: clock.now() },
      { transport: 'BluetoothLE', condition: 'Unavailable', reason: 'Bluetooth LE needs a platform Bluetooth API', since: clock.now() },
    ]);
  });

  it('lists every LAN peer seen, the ones not synced with among them with why, present or gone', () => {
    const { clock, tracker, snapshot, seen } = lanMesh();
    seen('syncmesh-peer', 'peer', LAN_URL);
    seen('syncmesh-other', 'other', 'ws://192.168.1.21:41000/_sync/ws', 'another app (other): only peers of app sync with this one');
    seen('syncmesh-keyless', undefined, 'ws://192.168.1.22:41000/_sync/ws', 'its advertisement has no peer key');
    clock.advance(1_000);
    tracker.lanGone('syncmesh-other');
    expect(snapshot().lanPeers).toEqual([
      {
        name: 'syncmesh-peer',
        peerKey: 'peer',
        appId: 'app',
        protocolVersion: 2,
        url: LAN_URL,
        compatible: true,
        reason: undefined,
        present: true,
        lastSeenAt: clock.now() - 1_000,
        auth: undefined,
      },
      {
        name: 'syncmesh-other',
        peerKey: 'other',
        appId: 'other',
        protocolVersion: 2,
        url: 'ws://192.168.1.21:41000/_sync/ws',
        compatible: false,
        reason: 'another app (other): only peers of app sync with this one',
        present: false,
        lastSeenAt: clock.now() - 1_000,
        auth: undefined,
      },
      expect.objectContaining({
        name: 'syncmesh-keyless',
        peerKey: undefined,
        compatible: false,
        reason: 'its advertisement has no peer key',
        auth: undefined,
      }),
    ]);
  });

  it('marks a LAN connection LAN, says whom it dials before the handshake, and shows the certificate the handshake verified', () => {
    const { clock, tracker, snapshot, seen, lanDial, smallPeer } = lanMesh();
    seen('syncmesh-peer', 'peer', LAN_URL);
    tracker.dialing(lanDial('WsClient#1'), false);
    expect(snapshot().connections).toEqual([
      expect.objectContaining({ id: 'WsClient#1', transport: 'LAN', state: 'connecting', remotePeerKey: undefined, advertisedPeerKey: 'peer' }),
    ]);
    clock.advance(10);
    tracker.sessionStarted(lanDial('WsClient#1'), smallPeer('peer', 'alice', clock.now() + 8 * HOUR), true);
    const verified = { state: 'verified', userID: 'alice', certificateExpiresAt: clock.now() + 8 * HOUR, at: clock.now() };
    const snap = snapshot();
    expect(snap.connections[0]).toMatchObject({ state: 'elected', remotePeerKey: 'peer', advertisedPeerKey: 'peer', refusal: undefined });
    expect(snap.peers).toEqual([
      {
        peerKey: 'peer',
        role: 'small-peer',
        appId: 'app',
        deviceName: undefined,
        appMetadata: undefined,
        presenceAt: undefined,
        auth: verified,
        lastSyncedAt: null,
      },
    ]);
    expect(snap.lanPeers[0]?.auth).toEqual(verified);
  });

  it('says a LAN peer’s handshake was refused, by whom and why, and that a later refusal outweighs an earlier session', () => {
    const { clock, tracker, snapshot, seen, lanDial, smallPeer } = lanMesh();
    seen('syncmesh-peer', 'peer', LAN_URL);
    tracker.dialing(lanDial('WsClient#1'), false);
    tracker.sessionStarted(lanDial('WsClient#1'), smallPeer('peer', 'alice', clock.now() + HOUR), true);
    tracker.closed('WsClient#1', 'session ended (1001): going away');
    clock.advance(2 * HOUR);
    tracker.dialing(lanDial('WsClient#2'), false);
    tracker.closed('WsClient#2', 'refused by the remote (4401): bad certificate (Expired): the certificate expired', {
      by: 'remote',
      code: 4401,
      reason: 'bad certificate (Expired): the certificate expired',
    });
    tracker.retryScheduled(LAN_URL, 5_000);
    const snap = snapshot();
    const refusal = { by: 'remote', code: 4401, reason: 'bad certificate (Expired): the certificate expired' };
    expect(snap.connections[0]).toMatchObject({
      id: 'WsClient#2',
      state: 'closed',
      remotePeerKey: undefined,
      advertisedPeerKey: 'peer',
      refusal,
      retryInMs: 5_000,
    });
    const refused = { state: 'refused', refusal, connectionId: 'WsClient#2', at: clock.now() };
    expect(snap.peers[0]?.auth).toEqual(refused);
    expect(snap.lanPeers[0]?.auth).toEqual(refused);
  });

  it('says a stranger’s certificate was refused though no session ever ran with it, and keeps it out of the peers met', () => {
    const { tracker, snapshot, seen, lanDial } = lanMesh();
    seen('syncmesh-stranger', 'stranger', LAN_URL);
    tracker.dialing(lanDial('WsClient#4'), false);
    tracker.closed('WsClient#4', 'refused (4401): bad certificate (UnknownIssuer): not signed by the issuer this peer trusts', {
      by: 'local',
      code: 4401,
      reason: 'bad certificate (UnknownIssuer): not signed by the issuer this peer trusts',
    });
    const snap = snapshot();
    expect(snap.peers).toEqual([]);
    expect(snap.lanPeers[0]?.auth).toMatchObject({
      state: 'refused',
      refusal: { by: 'local', code: 4401, reason: 'bad certificate (UnknownIssuer): not signed by the issuer this peer trusts' },
    });
  });

  it('does not count a refusal that is not about identity (a timeout, sync stopping) against the peer', () => {
    const { tracker, snapshot, seen, lanDial } = lanMesh();
    seen('syncmesh-peer', 'peer', LAN_URL);
    tracker.dialing(lanDial('WsClient#1'), false);
    tracker.closed('WsClient#1', 'refused (4408): no announcement within 10000 ms', { by: 'local', code: 4408, reason: 'no announcement within 10000 ms' });
    expect(snapshot().connections[0]?.refusal).toEqual({ by: 'local', code: 4408, reason: 'no announcement within 10000 ms' });
    expect(snapshot().lanPeers[0]?.auth).toBeUndefined();
  });

  it('shows no refusal for a connection that closed for any other reason', () => {
    const { tracker, snapshot, seen, lanDial } = lanMesh();
    seen('syncmesh-peer', 'peer', LAN_URL);
    tracker.dialing(lanDial('WsClient#1'), false);
    tracker.closed('WsClient#1', 'session ended (1006)');
    expect(snapshot().connections[0]).toMatchObject({ state: 'closed', reason: 'session ended (1006)', refusal: undefined });
  });
});
