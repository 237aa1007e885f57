import { describe, expect, it } from 'vitest';
import type { MeshIndirectPeer } from '../../../../shared/inspector/mesh.ts';
import { BIG, SMALL_A, peer, snapshot } from '../../../../testing/renderer/mesh-snapshots.ts';
import { layoutMesh } from './mesh-layout.ts';
import { SATELLITES_PER_NODE, placeSatellites } from './mesh-satellites.ts';

const indirect = (key: string, via: string | undefined = BIG): MeshIndirectPeer => ({
  peerKey: key,
  role: 'small-peer',
  deviceName: key,
  appMetadata: {},
  via,
  viaRole: via === BIG ? 'big-peer' : undefined,
  links: [],
  lastSeenAt: 9_000,
  online: true,
});

describe('the peers behind another peer, in the graph', () => {
  it('sit beside the node they are reached through, inside the drawing, and move no node', () => {
    const size = { width: 900, height: 600 };
    const plain = layoutMesh(snapshot({ peers: [peer(SMALL_A), peer(BIG, { role: 'big-peer' })] }), true, size);
    const withIndirect = layoutMesh(
      snapshot({ peers: [peer(SMALL_A), peer(BIG, { role: 'big-peer' })], indirect: [indirect('till-2'), indirect('till-3')] }),
      true,
      size,
    );
    expect(withIndirect.nodes).toEqual(plain.nodes);
    const satellites = placeSatellites([indirect('till-2'), indirect('till-3'), indirect('alone', 'not-a-node')], plain.nodes, size);
    expect(satellites.map((s) => [s.peer.peerKey, s.via.id])).toEqual([
      ['till-2', BIG],
      ['till-3', BIG],
    ]);
    for (const s of satellites) {
      expect(s.x - s.r).toBeGreaterThanOrEqual(0);
      expect(s.y - s.r).toBeGreaterThanOrEqual(0);
      expect(s.x + s.r).toBeLessThanOrEqual(size.width);
      expect(Math.hypot(s.x - s.via.x, s.y - s.via.y)).toBeGreaterThan(s.via.r + s.r);
    }
    expect(satellites[0]?.x).not.toBe(satellites[1]?.x);
  });

  it('draws at most a few per node', () => {
    const many = Array.from({ length: 20 }, (_, i) => indirect(`p${i}`));
    const layout = layoutMesh(snapshot({ indirect: many }));
    expect(placeSatellites(many, layout.nodes, layout)).toHaveLength(SATELLITES_PER_NODE);
  });
});
