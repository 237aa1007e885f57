/**
 * How a peer syncs: the Big Peer, addresses to dial, a listener, and the peer-to-peer
 * transports (spec 1.1, 4.6). `TransportConfig` is the custom configuration with
 * `enableAllPeerToPeer()`; a plain object of the same shape works too. Each transport asked for
 * is either started or reported as unavailable, with why (`sync.transportConditions`), never
 * silently ignored.
 */
import { PEER_TO_PEER_TRANSPORTS, type PeerToPeerTransport } from './transports.ts';
import type { ListenOptions } from './ws-listener.ts';

export { PEER_TO_PEER_TRANSPORTS, type PeerToPeerTransport };
export type { TransportCondition, TransportConditionCode } from './transports.ts';

export interface LanOptions {
  /** Default true when the object is given. */
  readonly enabled?: boolean;
  /** Where the LAN listener binds: all interfaces (`0.0.0.0`) and a free port unless given. */
  readonly listen?: ListenOptions;
  /** The IPv4 address of the interface mDNS sends on (default: the system's multicast route). */
  readonly interface?: string;
  /** The mDNS service type (default `syncmesh`); peers only find those of the same type. */
  readonly serviceType?: string;
}

export interface PeerToPeerOptions {
  readonly lan?: boolean | LanOptions;
  readonly bluetoothLE?: boolean;
  readonly awdl?: boolean;
  readonly p2pWifi?: boolean;
  readonly wifiAware?: boolean;
}

export interface SyncTransportOptions {
  /** Dial the Big Peer of the identity (default true when there is one). */
  readonly bigPeer?: boolean;
  /** Other peers' WebSocket addresses to dial (`ws://host:port/_sync/ws`). */
  readonly connect?: readonly string[];
  /** A WebSocket listener other peers may dial (default host 127.0.0.1). */
  readonly listen?: ListenOptions;
  readonly reconnect?: { readonly minDelayMs?: number; readonly maxDelayMs?: number };
  /** Peer-to-peer transports; all off by default. */
  readonly peerToPeer?: PeerToPeerOptions;
  /**
   * Sessions over connections the caller makes in this process and hands over
   * (`sync.dialSession`, `sync.acceptSession`): the mesh simulator's transport. Counts as
   * somewhere to sync; nothing is dialed or listened for it.
   */
  readonly inProcess?: boolean;
}

/** A custom transport configuration (spec 4.6): start from nothing, turn on what you need. */
export class TransportConfig implements SyncTransportOptions {
  bigPeer = true;
  connect: string[] = [];
  listen: ListenOptions | undefined = undefined;
  reconnect: { minDelayMs?: number; maxDelayMs?: number } | undefined = undefined;
  peerToPeer: {
    lan: { enabled: boolean; listen?: ListenOptions; interface?: string; serviceType?: string };
    bluetoothLE: boolean;
    awdl: boolean;
    p2pWifi: boolean;
    wifiAware: boolean;
  } = {
    lan: { enabled: false },
    bluetoothLE: false,
    awdl: false,
    p2pWifi: false,
    wifiAware: false,
  };

  /** Turns on every peer-to-peer transport: LAN, Bluetooth LE, AWDL, P2P-Wifi and Wifi Aware. */
  enableAllPeerToPeer(): this {
    this.peerToPeer = { lan: { ...this.peerToPeer.lan, enabled: true }, bluetoothLE: true, awdl: true, p2pWifi: true, wifiAware: true };
    return this;
  }
}

/** LAN's options when it is on; undefined when off. */
export function lanOptions(options: PeerToPeerOptions | undefined): LanOptions | undefined {
  const lan = options?.lan;
  if (lan === undefined || lan === false) return undefined;
  if (lan === true) return {};
  return lan.enabled === false ? undefined : lan;
}

/** The transports asked for, in PEER_TO_PEER_TRANSPORTS order. */
export function requestedPeerToPeer(options: PeerToPeerOptions | undefined): PeerToPeerTransport[] {
  const on: Record<PeerToPeerTransport, boolean> = {
    LAN: lanOptions(options) !== undefined,
    BluetoothLE: options?.bluetoothLE === true,
    AWDL: options?.awdl === true,
    P2PWifi: options?.p2pWifi === true,
    WifiAware: options?.wifiAware === true,
  };
  return PEER_TO_PEER_TRANSPORTS.filter((t) => on[t]);
}

/** Why a radio transport cannot run here: this implementation runs on Node and Electron desktops, which give it no access to these radios. */
export function unavailableReason(transport: Exclude<PeerToPeerTransport, 'LAN'>, platform: string): string {
  const what: Record<typeof transport, string> = {
    BluetoothLE: 'Bluetooth LE needs a platform Bluetooth API',
    AWDL: 'Apple Wireless Direct Link exists only on Apple devices, through their Multipeer/Network frameworks',
    P2PWifi: 'P2P-Wifi (Wi-Fi Direct) needs the Android Wi-Fi P2P API',
    WifiAware: 'Wifi Aware needs the Android Wi-Fi Aware API',
  };
  return `${what[transport]}; SyncMesh on ${platform} (Node ${process.versions.node}) has no such transport: use LAN or the Big Peer`;
}
