/**
 * How small peers find each other on a LAN: each advertises one service (the product's type)
 * with its app id, peer key and protocol version, and browses for the same type. The Bonjour
 * implementation (mDNS, bonjour-service) and an in-memory twin (tests) both satisfy it.
 */

/** The mDNS service type of SyncMesh peers (`_syncmesh._tcp.local`). */
export const LAN_SERVICE_TYPE = 'syncmesh';

/** What a peer advertises about itself (the TXT record and the port). */
export interface LanAdvertisement {
  readonly peerKey: string;
  readonly appID: string;
  /** `outer_protocol_version` (spec 9). */
  readonly protocolVersion: number;
  /** The port of its WebSocket listener. */
  readonly port: number;
}

/** A peer seen on the LAN, as its advertisement said. */
export interface LanSighting {
  /** The peer key in its TXT record; undefined when the record lacks one (not a peer we can sync with). */
  readonly peerKey: string | undefined;
  readonly appID: string | undefined;
  /** Undefined when absent or not a number. */
  readonly protocolVersion: number | undefined;
  /** The address to dial (IPv4 preferred; the one the answer came from when it is among them). */
  readonly address: string;
  readonly port: number;
  /** The service instance name (unique on the LAN). */
  readonly name: string;
}

export interface LanDiscoveryEvents {
  /** A peer appeared, or its advertisement changed. */
  up(sighting: LanSighting): void;
  /** A peer said goodbye, or answered nothing for a while. `name` is its service instance name. */
  down(name: string): void;
  /** The multicast socket reported a problem (a send or a group membership failed). */
  warning?(message: string): void;
}

export interface LanDiscovery {
  /** Advertises this peer and browses for others. Throws if the multicast socket cannot be opened. */
  start(advertisement: LanAdvertisement, events: LanDiscoveryEvents): Promise<void>;
  /** Says goodbye and stops browsing. Safe to call twice. */
  stop(): Promise<void>;
}

export interface LanDiscoveryOptions {
  /** The mDNS service type (default LAN_SERVICE_TYPE). */
  readonly serviceType?: string;
  /** The IPv4 address of the interface to send multicast on (default: the system's choice). */
  readonly interface?: string;
}

/** Makes the discovery a Sync uses; injected so that tests can use the in-memory twin. */
export type LanDiscoveryFactory = (options: LanDiscoveryOptions) => LanDiscovery;

/** The TXT record of an advertisement. Keys are short: a TXT string holds at most 255 bytes. */
export function advertisementTxt(advertisement: LanAdvertisement): Record<string, string> {
  return { pk: advertisement.peerKey, app: advertisement.appID, opv: String(advertisement.protocolVersion) };
}

/** The fields of a TXT record as a sighting has them; values that are not strings count as absent. */
export function readAdvertisementTxt(txt: unknown): Pick<LanSighting, 'peerKey' | 'appID' | 'protocolVersion'> {
  const record = typeof txt === 'object' && txt !== null ? (txt as Record<string, unknown>) : {};
  const text = (key: string): string | undefined => {
    const value = record[key];
    if (typeof value === 'string') return value;
    if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
    return undefined;
  };
  const opv = text('opv');
  const version = opv !== undefined && /^\d{1,6}$/.test(opv) ? Number(opv) : undefined;
  return { peerKey: text('pk'), appID: text('app'), protocolVersion: version };
}

/** The service instance name of a peer: unique per peer key, within the 63-byte DNS label limit. */
export function instanceName(peerKey: string): string {
  return `syncmesh-${peerKey.slice(0, 40)}`;
}
