/**
 * The Mesh snapshot's names and whole-mesh view, built from a real mesh tracker and the presence
 * documents a store holds: device names on this peer and its remotes, and the peers known only
 * through presence (a register behind the Big Peer), with their last-seen time.
 */
import { describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../../shared/permissions.ts';
import { PRESENCE_STALE_MS } from '../../../shared/inspector/mesh.ts';
import type { PresenceRecord } from '../../presence/presence-document.ts';
import type { RemotePeer } from '../../replication/handshake.ts';
import { MeshTracker } from '../../replication/mesh-tracker.ts';
import { ManualTimers } from '../../time.ts';
import { buildMeshSnapshot } from './mesh-model.ts';

const remote = (peerKey: string, role: RemotePeer['role']): RemotePeer => ({
  peerKey,
  role,
  appID: 'app',
  permissions: EVERYTHING,
  userID: undefined,
  expiresAt: undefined,
});
const record = (peerKey: string, overrides: Partial<PresenceRecord> = {}): PresenceRecord => ({
  peerKey,
  deviceName: undefined,
  appMetadata: {},
  role: 'small-peer',
  links: [],
  updatedAt: undefined,
  ...overrides,
});

function mesh() {
  const clock = new ManualTimers();
  const tracker = new MeshTracker(clock);
  const big = { id: 'WsClient#1', type: 'WsClient', dialed: true, remoteAddress: 'ws://big/_sync/ws' };
  tracker.dialing(big, true);
  tracker.sessionStarted(big, remote('big', 'big-peer'), true);
  const snapshot = (presence: PresenceRecord[]) =>
    buildMeshSnapshot(
      {
        peerKey: 'me',
        appID: 'app',
        connections: tracker.connections(),
        remotePeers: tracker.peers(),
        lanPeers: tracker.lanPeers(),
        transportConditions: tracker.transportConditions(),
        presence: new Map(presence.map((p) => [p.peerKey, p])),
        deviceName: 'till-1',
        appMetadata: { version: '2.0' },
      },
      clock.now(),
    );
  return { clock, tracker, snapshot };
}

describe('names and the whole mesh in the Mesh snapshot', () => {
  it('names this peer as it was told, and each remote as its presence document says', () => {
    const { clock, snapshot } = mesh();
    const snap = snapshot([record('big', { deviceName: 'cloud-eu-1', role: 'big-peer', updatedAt: clock.now() - 5 })]);
    expect(snap.local).toMatchObject({ deviceName: 'till-1', appMetadata: { version: '2.0' } });
    expect(snap.peers).toEqual([expect.objectContaining({ peerKey: 'big', deviceName: 'cloud-eu-1', presenceAt: clock.now() - 5 })]);
    expect(snap.indirect).toEqual([]);
  });

  it('lists a register behind the Big Peer as reached via the Big Peer, with its last-seen time', () => {
    const { clock, snapshot } = mesh();
    const links = [{ peerKey: 'big', role: 'big-peer' as const, transport: 'WebSocket' as const, state: 'elected' as const }];
    const snap = snapshot([
      record('me', { deviceName: 'till-1', links }),
      record('till-2-key', { deviceName: 'till-2', appMetadata: { site: 'north' }, links, updatedAt: clock.now() - 1_000 }),
    ]);
    expect(snap.indirect).toEqual([
      {
        peerKey: 'till-2-key',
        role: 'small-peer',
        deviceName: 'till-2',
        appMetadata: { site: 'north' },
        via: 'big',
        viaRole: 'big-peer',
        links,
        lastSeenAt: clock.now() - 1_000,
        online: true,
      },
    ]);
  });

  it('marks an indirect peer offline once its presence is older than three heartbeats, or it says it has no session', () => {
    const { clock, snapshot } = mesh();
    const links = [{ peerKey: 'big', role: 'big-peer' as const, transport: 'WebSocket' as const, state: 'elected' as const }];
    const snap = snapshot([
      record('stale', { links, updatedAt: clock.now() - PRESENCE_STALE_MS - 1 }),
      record('alone', { links: [], updatedAt: clock.now() }),
      record('unknown-link', { links: [{ ...links[0]!, peerKey: 'someone-else' }], updatedAt: clock.now() }),
    ]);
    expect(snap.indirect.map((p) => [p.peerKey, p.online, p.via])).toEqual([
      ['alone', false, undefined],
      ['stale', false, 'big'],
      ['unknown-link', true, undefined],
    ]);
  });
});
