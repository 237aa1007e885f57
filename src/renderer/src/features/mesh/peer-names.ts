/**
 * The device names peers announce in their presence documents, by peer key, from the last Mesh
 * snapshot: every panel that shows a peer key shows the name beside it (the key stays one click
 * away: copy, and the tooltip). Pure; the shell's hook is in use-mesh-peer-names.ts.
 */
import type { MeshSnapshot } from '../../../../shared/inspector/mesh.ts';
import { shortKey } from '../../ui/format.ts';
import type { PeerNames } from '../../ui/peer-names-context.ts';

export { usePeerNames, type PeerNames } from '../../ui/peer-names-context.ts';

/** Every name the snapshot knows: this peer, its remotes, the peers known through presence, the LAN peers. */
export function peerNames(snapshot: MeshSnapshot | undefined): PeerNames {
  const names = new Map<string, string>();
  if (snapshot === undefined) return names;
  const add = (key: string | undefined, name: string | undefined): void => {
    if (key !== undefined && name !== undefined && name !== '') names.set(key, name);
  };
  for (const p of snapshot.lanPeers ?? []) add(p.peerKey, p.deviceName);
  for (const p of snapshot.indirect ?? []) add(p.peerKey, p.deviceName);
  for (const p of snapshot.peers) add(p.peerKey, p.deviceName);
  add(snapshot.local.peerKey, snapshot.local.deviceName);
  return names;
}

/** `till-2 (AbCdEfGh…wxyz)` for a named peer, the short key otherwise. */
export function peerLabel(key: string, names: PeerNames): string {
  const name = names.get(key);
  return name === undefined ? shortKey(key) : `${name} (${shortKey(key)})`;
}

/** Text with every peer key it contains followed by the peer's name: `replication from AbC…xyz (till-2)`. */
export function withPeerNames(text: string, names: PeerNames): string {
  if (names.size === 0) return text;
  return text.replace(/[A-Za-z0-9_-]{40,}/g, (key) => {
    const name = names.get(key);
    return name === undefined ? key : `${name} (${shortKey(key)})`;
  });
}
