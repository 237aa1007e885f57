/**
 * The words of the Mesh panel's LAN and transports: each peer-to-peer transport and its
 * condition, each peer seen on the LAN (synced with or not, and why; present or gone), and what
 * an empty list means. Pure.
 */
import type {
  ConnectionState,
  MeshConnection,
  MeshLanPeer,
  MeshSnapshot,
  MeshTransportCondition,
  PeerToPeerTransport,
  TransportConditionCode,
} from '../../../../shared/inspector/mesh.ts';
import type { Tone } from '../../ui/Badge.tsx';
import { bestState, nodeIdOf } from './mesh-layout.ts';

export const PEER_TO_PEER_NAMES: Readonly<Record<PeerToPeerTransport, string>> = {
  LAN: 'LAN',
  BluetoothLE: 'Bluetooth LE',
  AWDL: 'AWDL',
  P2PWifi: 'P2P Wi-Fi',
  WifiAware: 'Wi-Fi Aware',
};

/** Running is green, a failure red; a transport this platform lacks, or stopped with sync, is neutral. */
export const CONDITION_TONES: Readonly<Record<TransportConditionCode, Tone>> = {
  Ok: 'ok',
  Unavailable: 'neutral',
  MdnsFailure: 'danger',
  TcpListenFailure: 'danger',
  Stopped: 'neutral',
};

/** A transport in one line: `LAN: Ok, listening on …`. */
export function transportSentence(t: MeshTransportCondition): string {
  return `${PEER_TO_PEER_NAMES[t.transport]}: ${t.condition}${t.reason === '' ? '' : `, ${t.reason}`}`;
}

/** The toolbar's chips: one per transport, except those this platform lacks, which share one. */
export function transportChips(transports: readonly MeshTransportCondition[]): {
  readonly shown: MeshTransportCondition[];
  readonly unavailable: MeshTransportCondition[];
} {
  return { shown: transports.filter((t) => t.condition !== 'Unavailable'), unavailable: transports.filter((t) => t.condition === 'Unavailable') };
}

/** Where a LAN peer stands with this one: its best connection's state, `none` when not connected. */
export function lanPeerLink(peer: MeshLanPeer, connections: readonly MeshConnection[]): ConnectionState | 'none' {
  if (peer.peerKey === undefined) return 'none';
  return bestState(connections.filter((c) => nodeIdOf(c) === peer.peerKey).map((c) => c.state));
}

/** The status a LAN peer's row shows first: not synced with (and why), or its link. */
export interface LanPeerStatus {
  readonly tone: Tone;
  readonly label: string;
  /** Why it is not synced with, or what its link waits for. */
  readonly detail: string | undefined;
}

export function lanPeerStatus(peer: MeshLanPeer, connections: readonly MeshConnection[]): LanPeerStatus {
  if (!peer.compatible) return { tone: 'neutral', label: 'not synced', detail: peer.reason ?? 'this peer does not sync with it' };
  const link = lanPeerLink(peer, connections);
  if (link === 'elected') return { tone: 'ok', label: 'syncing', detail: undefined };
  if (link === 'standby') return { tone: 'info', label: 'standby', detail: undefined };
  if (link === 'connecting') return { tone: 'warn', label: 'connecting', detail: undefined };
  // Why not, when the latest attempt said and its authentication does not already say it.
  const mine = connections.filter((c) => peer.peerKey !== undefined && nodeIdOf(c) === peer.peerKey);
  const latest = mine.reduce<MeshConnection | undefined>((a, c) => (a === undefined || c.since > a.since ? c : a), undefined);
  const detail = latest === undefined || latest.refusal !== undefined ? undefined : latest.reason;
  return { tone: peer.present && peer.unreachable === undefined ? 'warn' : 'neutral', label: 'not connected', detail };
}

/**
 * Present peers first, then gone ones; in each, those this peer syncs with first, then the most
 * recently seen first.
 */
export function sortLanPeers(peers: readonly MeshLanPeer[]): MeshLanPeer[] {
  const online = (p: MeshLanPeer): number => Number(p.present && p.unreachable === undefined);
  return [...peers].sort((a, b) => online(b) - online(a) || Number(b.compatible) - Number(a.compatible) || b.lastSeenAt - a.lastSeenAt);
}

/** `app x · protocol 2`: what a peer advertised besides its key. */
export function advertisedText(peer: MeshLanPeer): string {
  return [`app ${peer.appId ?? '(none)'}`, `protocol ${peer.protocolVersion ?? '(none)'}`].join(' · ');
}

/** What the LAN list says when it is empty, from the LAN transport's condition. */
export function lanEmptyWords(transports: readonly MeshTransportCondition[]): { readonly title: string; readonly hint: string } {
  const lan = transports.find((t) => t.transport === 'LAN');
  if (lan === undefined) {
    return { title: 'LAN is off', hint: 'This peer does not look for peers on the LAN: they show here once LAN is on.' };
  }
  if (lan.condition === 'Ok') {
    return {
      title: 'No peer seen on the LAN yet',
      hint: 'Peers advertise themselves over mDNS, those of other apps too. A peer on another subnet, or behind a network that drops multicast, is not seen.',
    };
  }
  if (lan.condition === 'Stopped') return { title: 'LAN is stopped', hint: 'Sync is stopped: start it to advertise this peer and look for others.' };
  return { title: `LAN is not running (${lan.condition})`, hint: lan.reason };
}

/** What the graph says when there is no connection at all. */
export function noConnectionsHint(transports: readonly MeshTransportCondition[]): string {
  if (transports.find((t) => t.transport === 'LAN')?.condition === 'Ok') {
    return 'LAN runs: a peer of the same app seen on the LAN is dialed, or dials this one. See Transports & LAN for the peers seen.';
  }
  return 'This peer syncs with no one now: start sync, or give it a Big Peer, peer addresses or LAN.';
}

/** The tab's count: LAN peers present now (advertised, and not unreachable after failed dials). */
export function presentCount(snapshot: MeshSnapshot): number {
  return snapshot.lanPeers.filter((p) => p.present && p.unreachable === undefined).length;
}
