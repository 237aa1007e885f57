/**
 * The Mesh panel's snapshot, from the peer's own state (`sync.connections`, `sync.remotePeers`),
 * never from log entries: it stays right whatever the minimum log level.
 */
import type { MeshSnapshot } from '../../../shared/inspector/mesh.ts';
import type { InspectorContext } from '../context.ts';

export function meshSnapshot(ctx: InspectorContext): MeshSnapshot {
  const sync = ctx.sync;
  const now = ctx.now();
  return {
    local: { peerKey: sync.peerKey, role: 'local', appId: sync.appID },
    peers: sync.remotePeers.map((p) => ({ peerKey: p.peerKey, role: p.role, appId: p.appID })),
    connections: sync.connections.map((c) => ({
      id: c.id,
      type: c.type,
      direction: c.direction,
      address: c.address,
      state: c.state,
      since: c.since,
      remotePeerKey: c.remotePeerKey,
      reason: c.reason,
      retryInMs: c.state === 'closed' && c.retryAt !== undefined ? Math.max(0, c.retryAt - now) : undefined,
    })),
    now,
  };
}
