/**
 * The peers known only through presence (`snapshot.indirect`), drawn as small satellites of the
 * node they are reached through (the Big Peer, typically), on its sides (its label is on the far
 * side and its edges on the near one, so the sides are free). They
 * are placed after the layout, from the nodes' positions only, so that the nodes themselves never
 * move for them (the layout stays stable). At most `SATELLITES_PER_NODE` per node; the others are
 * in the Peers list. Pure.
 */
import type { MeshIndirectPeer } from '../../../../shared/inspector/mesh.ts';
import type { MeshNode } from './mesh-layout.ts';

export const SATELLITES_PER_NODE = 6;

export interface MeshSatellite {
  readonly peer: MeshIndirectPeer;
  /** The node it is reached through. */
  readonly via: MeshNode;
  readonly x: number;
  readonly y: number;
  readonly r: number;
}

/** Where each satellite goes around its node, from the direction away from this peer: the sides first, then towards the far side, then the near side. */
const SIDE_ANGLES = [90, -90, 135, -135, 50, -50];

const round = (n: number): number => Math.round(n * 10) / 10;

export function placeSatellites(
  indirect: readonly MeshIndirectPeer[],
  nodes: readonly MeshNode[],
  size: { readonly width: number; readonly height: number },
): MeshSatellite[] {
  const centre = nodes[0];
  if (centre === undefined) return [];
  const byId = new Map(nodes.slice(1).map((n) => [n.id, n]));
  const groups = new Map<string, MeshIndirectPeer[]>();
  for (const peer of indirect) {
    if (peer.via === undefined || !byId.has(peer.via)) continue;
    const group = groups.get(peer.via) ?? [];
    if (group.length < SATELLITES_PER_NODE) groups.set(peer.via, [...group, peer]);
  }
  const out: MeshSatellite[] = [];
  for (const [viaId, peers] of groups) {
    const via = byId.get(viaId) as MeshNode;
    const r = Math.max(7, Math.round(via.r * 0.45));
    const away = Math.atan2(via.y - centre.y, via.x - centre.x);
    const distance = via.r + r + 34;
    peers.forEach((peer, i) => {
      const angle = away + ((SIDE_ANGLES[i] ?? 90) * Math.PI) / 180;
      const x = Math.min(size.width - r - 4, Math.max(r + 4, via.x + distance * Math.cos(angle)));
      const y = Math.min(size.height - r - 4, Math.max(r + 4, via.y + distance * Math.sin(angle)));
      out.push({ peer, via, x: round(x), y: round(y), r });
    });
  }
  return out;
}
