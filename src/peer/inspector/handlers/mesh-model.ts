/**
 * The Mesh panel's snapshot, from the peer's own state (`sync.connections`, `sync.remotePeers`,
 * `sync.lanPeers`, `sync.transportConditions`), never from log entries: it stays right whatever
 * the minimum log level.
 */
import {
  LAN_UNREACHABLE_AFTER,
  PRESENCE_STALE_MS,
  type MeshAuth,
  type MeshConnection,
  type MeshIndirectPeer,
  type MeshSnapshot,
} from '../../../shared/inspector/mesh.ts';
import type { PresenceRecord } from '../../presence/presence-document.ts';
import { ANNOUNCE_CLOSE_CODES } from '../../../shared/protocol/announce.ts';
import type { LanPeer, SeenPeer, TrackedConnection } from '../../replication/mesh-tracker.ts';
import { PEER_TO_PEER_TRANSPORTS, type TransportCondition } from '../../replication/transport-config.ts';
import type { InspectorContext } from '../context.ts';

/** What the snapshot is made of: a `Sync` has it (and a `MeshTracker` plus a key and an app id, in tests). */
export interface MeshSource {
  readonly peerKey: string;
  readonly appID: string | undefined;
  readonly connections: readonly TrackedConnection[];
  readonly remotePeers: readonly SeenPeer[];
  readonly lanPeers: readonly LanPeer[];
  readonly transportConditions: readonly TransportCondition[];
  /** The presence documents the store holds, by peer key (none: names unknown, no indirect peers). */
  readonly presence?: ReadonlyMap<string, PresenceRecord>;
  /** This peer's own device name and app metadata, as it was given them. */
  readonly deviceName?: string | undefined;
  readonly appMetadata?: Readonly<Record<string, string>>;
}

/** Indirect peers listed at most. */
export const INDIRECT_PEERS_KEPT = 500;

export function meshSnapshot(ctx: InspectorContext): MeshSnapshot {
  return buildMeshSnapshot(ctx.sync, ctx.now());
}

export function buildMeshSnapshot(source: MeshSource, now: number): MeshSnapshot {
  // A LAN address is dialed because of an advertisement: its key says whom a refused handshake was for.
  const advertised = new Map<string, string>();
  for (const p of source.lanPeers) if (p.peerKey !== undefined) advertised.set(p.url, p.peerKey);
  // The Big Peer last met: a dial of its address that has not (or not yet) reached it is drawn on its node.
  const bigPeers = source.remotePeers.filter((p) => p.role === 'big-peer').sort((a, b) => b.lastSessionAt - a.lastSessionAt);
  const connections = source.connections.map((c) => meshConnection(c, now, advertised, bigPeers[0]?.peerKey));
  const refusals = latestAuthRefusals(connections);
  const seen = new Map(source.remotePeers.map((p) => [p.peerKey, p]));
  const order = (t: TransportCondition): number => PEER_TO_PEER_TRANSPORTS.indexOf(t.transport);
  const presence = source.presence ?? new Map<string, PresenceRecord>();
  const own = presence.get(source.peerKey);
  return {
    local: {
      peerKey: source.peerKey,
      role: 'local',
      appId: source.appID,
      deviceName: source.deviceName ?? own?.deviceName,
      appMetadata: nonEmpty(source.appMetadata ?? own?.appMetadata),
      presenceAt: own?.updatedAt,
      auth: undefined,
      lastSyncedAt: null,
    },
    peers: source.remotePeers.map((p) => ({
      peerKey: p.peerKey,
      role: p.role,
      appId: p.appID,
      // Its presence document's name, or the one its handshake announced until that arrives.
      deviceName: presence.get(p.peerKey)?.deviceName ?? p.deviceName,
      appMetadata: nonEmpty(presence.get(p.peerKey)?.appMetadata),
      presenceAt: presence.get(p.peerKey)?.updatedAt,
      auth: p.role === 'small-peer' ? authOf(p, refusals.get(p.peerKey)) : undefined,
      lastSyncedAt: p.lastSyncedAt ?? null,
    })),
    indirect: indirectPeers(source, presence, now),
    connections,
    lanPeers: source.lanPeers.map((p) => ({
      name: p.name,
      peerKey: p.peerKey,
      appId: p.appID,
      protocolVersion: p.protocolVersion,
      url: p.url,
      compatible: p.compatible,
      reason: p.reason,
      present: p.present,
      lastSeenAt: p.lastSeenAt,
      auth: p.peerKey === undefined ? undefined : authOf(seen.get(p.peerKey), refusals.get(p.peerKey)),
      deviceName: p.peerKey === undefined ? undefined : (presence.get(p.peerKey)?.deviceName ?? seen.get(p.peerKey)?.deviceName),
      unreachable: unreachableOf(connections.find((c) => c.direction === 'dialed' && c.address === p.url)),
    })),
    transports: [...source.transportConditions]
      .sort((a, b) => order(a) - order(b))
      .map((t) => ({ transport: t.transport, condition: t.condition, reason: t.reason, since: t.since, warning: t.warning })),
    now,
  };
}

function meshConnection(c: TrackedConnection, now: number, advertised: ReadonlyMap<string, string>, bigPeerKey: string | undefined): MeshConnection {
  return {
    id: c.id,
    type: c.type,
    direction: c.direction,
    address: c.address,
    transport: c.transport,
    state: c.state,
    since: c.since,
    remotePeerKey: c.remotePeerKey,
    advertisedPeerKey: c.direction !== 'dialed' ? undefined : c.transport === 'LAN' ? advertised.get(c.address) : c.bigPeer ? bigPeerKey : undefined,
    reason: c.reason,
    refusal: c.state === 'closed' ? c.refusal : undefined,
    retryInMs: c.state === 'closed' && c.retryAt !== undefined ? Math.max(0, c.retryAt - now) : undefined,
    failedAttempts: c.failedAttempts,
    failingSince: c.failingSince,
  };
}

/** Per peer key, the latest refused handshake that was about identity (close code 4401). */
function latestAuthRefusals(connections: readonly MeshConnection[]): Map<string, Extract<MeshAuth, { state: 'refused' }>> {
  const latest = new Map<string, Extract<MeshAuth, { state: 'refused' }>>();
  for (const c of connections) {
    const key = c.remotePeerKey ?? c.advertisedPeerKey;
    if (key === undefined || c.refusal === undefined || c.refusal.code !== ANNOUNCE_CLOSE_CODES.unauthorized) continue;
    const known = latest.get(key);
    if (known === undefined || c.since > known.at) latest.set(key, { state: 'refused', refusal: c.refusal, connectionId: c.id, at: c.since });
  }
  return latest;
}

/** The later of the last verified session and the last refusal. */
function authOf(peer: SeenPeer | undefined, refused: MeshAuth | undefined): MeshAuth | undefined {
  const verified: MeshAuth | undefined =
    peer === undefined || peer.role !== 'small-peer'
      ? undefined
      : { state: 'verified', userID: peer.userID, certificateExpiresAt: peer.certificateExpiresAt, at: peer.lastSessionAt };
  if (verified === undefined) return refused;
  if (refused === undefined) return verified;
  return refused.at > verified.at ? refused : verified;
}

/**
 * The peers known only from presence: every presence document but this peer's and those of the
 * remotes it met, each reached through the remote it links to (the Big Peer first).
 */
function indirectPeers(source: MeshSource, presence: ReadonlyMap<string, PresenceRecord>, now: number): MeshIndirectPeer[] {
  const direct = new Map(source.remotePeers.map((p) => [p.peerKey, p.role]));
  const out: MeshIndirectPeer[] = [];
  for (const record of [...presence.values()].sort((a, b) => (a.peerKey < b.peerKey ? -1 : a.peerKey > b.peerKey ? 1 : 0))) {
    if (record.peerKey === source.peerKey || direct.has(record.peerKey)) continue;
    if (out.length >= INDIRECT_PEERS_KEPT) break;
    const through = record.links.filter((l) => direct.has(l.peerKey));
    const via = through.find((l) => direct.get(l.peerKey) === 'big-peer') ?? through[0];
    const fresh = record.updatedAt !== undefined && now - record.updatedAt <= PRESENCE_STALE_MS;
    out.push({
      peerKey: record.peerKey,
      role: record.role,
      deviceName: record.deviceName,
      appMetadata: record.appMetadata,
      via: via?.peerKey,
      viaRole: via === undefined ? undefined : direct.get(via.peerKey),
      links: record.links,
      lastSeenAt: record.updatedAt,
      online: fresh && record.links.length > 0,
    });
  }
  return out;
}

function nonEmpty(metadata: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> | undefined {
  return metadata === undefined || Object.keys(metadata).length === 0 ? undefined : metadata;
}

/** A LAN address whose dials failed `LAN_UNREACHABLE_AFTER` times or more in a row, and is not connected now. */
function unreachableOf(dialed: MeshConnection | undefined): { since: number; attempts: number } | undefined {
  if (dialed === undefined || dialed.state === 'elected' || dialed.state === 'standby') return undefined;
  const attempts = dialed.failedAttempts ?? 0;
  if (attempts < LAN_UNREACHABLE_AFTER || dialed.failingSince === undefined) return undefined;
  return { since: dialed.failingSince, attempts };
}
