/** Mesh snapshots for the Mesh panel's tests. */
import type { MeshAuth, MeshConnection, MeshLanPeer, MeshPeer, MeshSnapshot, MeshTransportCondition } from '../../shared/inspector/mesh.ts';

export const LOCAL = 'local-key-0000000000000000000000000000000';
export const BIG = 'big-peer-key-000000000000000000000000000000';
export const SMALL_A = 'small-a-key-0000000000000000000000000000000';
export const SMALL_B = 'small-b-key-0000000000000000000000000000000';
export const STRANGER = 'stranger-key-000000000000000000000000000000';
export const LAN_URL = 'ws://192.168.1.20:41000/_sync/ws';

/** The snapshots' `now`. */
export const NOW = 10_000;
const HOUR = 3_600_000;

export function connection(id: string, overrides: Partial<MeshConnection> = {}): MeshConnection {
  return {
    id,
    type: id.split('#')[0] ?? 'WsClient',
    direction: 'dialed',
    address: 'ws://127.0.0.1:4000/_sync/ws',
    transport: 'WebSocket',
    state: 'elected',
    since: 1_000,
    remotePeerKey: BIG,
    advertisedPeerKey: undefined,
    reason: undefined,
    refusal: undefined,
    retryInMs: undefined,
    failedAttempts: undefined,
    failingSince: undefined,
    ...overrides,
  };
}

export function verified(userID = 'alice', certificateExpiresAt = NOW + 8 * HOUR): MeshAuth {
  return { state: 'verified', userID, certificateExpiresAt, at: 2_000 };
}

export function refused(by: 'local' | 'remote' = 'local', reason = 'bad certificate (UnknownIssuer): not issued by the Big Peer this peer trusts'): MeshAuth {
  return { state: 'refused', refusal: { by, code: 4401, reason }, connectionId: 'WsClient#9', at: 9_000 };
}

export function peer(peerKey: string, overrides: Partial<MeshPeer> = {}): MeshPeer {
  return {
    peerKey,
    role: 'small-peer',
    appId: 'app',
    deviceName: undefined,
    appMetadata: undefined,
    presenceAt: undefined,
    auth: overrides.role === 'big-peer' ? undefined : verified(),
    lastSyncedAt: null,
    ...overrides,
  };
}

export function lanPeer(peerKey: string | undefined, overrides: Partial<MeshLanPeer> = {}): MeshLanPeer {
  return {
    name: `syncmesh-${peerKey ?? 'keyless'}`,
    peerKey,
    appId: 'app',
    protocolVersion: 2,
    url: LAN_URL,
    compatible: true,
    reason: undefined,
    present: true,
    lastSeenAt: 9_000,
    auth: undefined,
    deviceName: undefined,
    unreachable: undefined,
    ...overrides,
  };
}

export function transport(name: MeshTransportCondition['transport'], overrides: Partial<MeshTransportCondition> = {}): MeshTransportCondition {
  return name === 'LAN'
    ? {
        transport: 'LAN',
        condition: 'Ok',
        reason: 'listening on ws://0.0.0.0:41000/_sync/ws, advertised over mDNS',
        since: 1_000,
        warning: undefined,
        ...overrides,
      }
    : {
        transport: name,
        condition: 'Unavailable',
        reason: `${name} needs a platform API; SyncMesh on linux has no such transport: use LAN or the Big Peer`,
        since: 1_000,
        warning: undefined,
        ...overrides,
      };
}

export function snapshot(overrides: Partial<MeshSnapshot> = {}): MeshSnapshot {
  return {
    local: {
      peerKey: LOCAL,
      role: 'local',
      appId: 'app',
      deviceName: undefined,
      appMetadata: undefined,
      presenceAt: undefined,
      auth: undefined,
      lastSyncedAt: null,
    },
    peers: [peer(SMALL_A), peer(BIG, { role: 'big-peer' })],
    connections: [connection('WsClient#1'), connection('WsServer#2', { direction: 'accepted', remotePeerKey: SMALL_A, address: '127.0.0.1:51000' })],
    indirect: [],
    lanPeers: [],
    transports: [],
    now: NOW,
    ...overrides,
  };
}

/**
 * A peer on a LAN: B synced over LAN and verified; a stranger (another issuer) refused; a peer of
 * another app and one of another protocol version seen, not synced with; one gone.
 */
export function lanSnapshot(overrides: Partial<MeshSnapshot> = {}): MeshSnapshot {
  return snapshot({
    peers: [peer(SMALL_B, { auth: verified('bob') })],
    connections: [
      connection('WsServer#3', { direction: 'accepted', transport: 'LAN', remotePeerKey: SMALL_B, address: '192.168.1.21:50000' }),
      connection('WsClient#9', {
        transport: 'LAN',
        address: LAN_URL,
        state: 'closed',
        since: 9_000,
        remotePeerKey: undefined,
        advertisedPeerKey: STRANGER,
        reason: 'refused (4401): bad certificate (UnknownIssuer): not issued by the Big Peer this peer trusts',
        refusal: { by: 'local', code: 4401, reason: 'bad certificate (UnknownIssuer): not issued by the Big Peer this peer trusts' },
        retryInMs: 4_000,
      }),
    ],
    lanPeers: [
      lanPeer('gone-key', { present: false, lastSeenAt: 3_000, url: 'ws://192.168.1.30:41000/_sync/ws' }),
      lanPeer(SMALL_B, { url: 'ws://192.168.1.21:41000/_sync/ws', auth: verified('bob') }),
      lanPeer(STRANGER, { auth: refused() }),
      lanPeer('other-key', {
        appId: 'other',
        compatible: false,
        reason: 'another app (other): only peers of app sync with this one',
        url: 'ws://192.168.1.22:41000/_sync/ws',
      }),
      lanPeer('future-key', {
        protocolVersion: 9,
        compatible: false,
        reason: 'outer_protocol_version 9 is not supported (this peer speaks 2)',
        url: 'ws://192.168.1.23:41000/_sync/ws',
      }),
    ],
    transports: [transport('LAN'), transport('BluetoothLE')],
    ...overrides,
  });
}
