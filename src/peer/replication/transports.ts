/**
 * The words for transports: which peer-to-peer transports there are, and the state each one is
 * in. Both the configuration (transport-config.ts) and the mesh tracker speak them.
 */

/** The peer-to-peer transports the spec names, and LAN. */
export const PEER_TO_PEER_TRANSPORTS = ['LAN', 'BluetoothLE', 'AWDL', 'P2PWifi', 'WifiAware'] as const;
export type PeerToPeerTransport = (typeof PEER_TO_PEER_TRANSPORTS)[number];

/**
 * A transport's state: `Ok` (running), `Unavailable` (this platform has no such transport),
 * `MdnsFailure` (LAN could not advertise or browse), `TcpListenFailure` (LAN could not listen),
 * `Stopped` (sync is off).
 */
export type TransportConditionCode = 'Ok' | 'Unavailable' | 'MdnsFailure' | 'TcpListenFailure' | 'Stopped';

export interface TransportCondition {
  readonly transport: PeerToPeerTransport;
  readonly condition: TransportConditionCode;
  /** Why, in words a user can act on. */
  readonly reason: string;
  /** When it entered this condition (ms). */
  readonly since: number;
  /** What a user must know although it runs (LAN on a loopback address: other machines cannot reach it). */
  readonly warning?: string;
}
