/** Mesh snapshots for the Mesh panel's tests. */
import type { MeshConnection, MeshSnapshot } from '../../../../shared/inspector/mesh.ts';

export const LOCAL = 'local-key-0000000000000000000000000000000';
export const BIG = 'big-peer-key-000000000000000000000000000000';
export const SMALL_A = 'small-a-key-0000000000000000000000000000000';
export const SMALL_B = 'small-b-key-0000000000000000000000000000000';

export function connection(id: string, overrides: Partial<MeshConnection> = {}): MeshConnection {
  return {
    id,
    type: id.split('#')[0] ?? 'WsClient',
    direction: 'dialed',
    address: 'ws://127.0.0.1:4000/_sync/ws',
    state: 'elected',
    since: 1_000,
    remotePeerKey: BIG,
    reason: undefined,
    retryInMs: undefined,
    ...overrides,
  };
}

export function snapshot(overrides: Partial<MeshSnapshot> = {}): MeshSnapshot {
  return {
    local: { peerKey: LOCAL, role: 'local', appId: 'app' },
    peers: [
      { peerKey: SMALL_A, role: 'small-peer', appId: 'app' },
      { peerKey: BIG, role: 'big-peer', appId: 'app' },
    ],
    connections: [connection('WsClient#1'), connection('WsServer#2', { direction: 'accepted', remotePeerKey: SMALL_A, address: '127.0.0.1:51000' })],
    now: 10_000,
    ...overrides,
  };
}
