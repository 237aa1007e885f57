/**
 * The Mesh panel: this peer, the Big Peer and every remote, with their connections; the peers
 * advertised on the LAN, synced with or not; and the peer-to-peer transports asked for.
 */

export type ConnectionState =
  /** Dialing, or the handshake is running. */
  | 'connecting'
  /** A replication session runs over it. */
  | 'elected'
  /** Up, but another connection to the same peer was elected. */
  | 'standby'
  /** Failed or ended; `retryInMs` tells when it is dialed again. */
  | 'closed';

/**
 * How a connection was found. Both run over WebSocket; they differ in where the address came
 * from: `WebSocket` is configured (the Big Peer, `sync.connect`, or `sync.listen` accepting),
 * `LAN` is LAN discovery (a peer advertised on the LAN, or the LAN listener accepting).
 */
export type MeshTransport = 'WebSocket' | 'LAN';

/** A handshake that was refused, so no session ran over the connection. */
export interface MeshRefusal {
  /** `local`: this peer refused the remote (its certificate did not verify, …); `remote`: the remote refused this peer. */
  readonly by: 'local' | 'remote';
  /**
   * The close code: 4401 the certificate or proof was refused (missing, expired, another
   * issuer: `UnknownIssuer`, another app or peer), 4400 a malformed or incompatible announcement,
   * 4408 no announcement in time, 1001 sync stopped. Undefined when none was given.
   */
  readonly code: number | undefined;
  /** Why, as the refusing side said it: `bad certificate (UnknownIssuer): …`. */
  readonly reason: string;
}

export interface MeshConnection {
  /**
   * `WsClient#3`, `WsServer#1`, … A dialed address is one entry that follows its latest
   * connection (the id changes with each attempt); before its first attempt the id is the type
   * and the address (`WsClient ws://host:port/_sync/ws`), so that ids stay unique.
   */
  readonly id: string;
  readonly type: string;
  readonly direction: 'dialed' | 'accepted';
  readonly address: string;
  /** How the address was found: configured (`WebSocket`) or LAN discovery (`LAN`). */
  readonly transport: MeshTransport;
  readonly state: ConnectionState;
  readonly since: number;
  /** The remote's peer key, once the handshake verified it. */
  readonly remotePeerKey: string | undefined;
  /**
   * Whom a connection this peer dials is meant for, before (or without) a handshake that says:
   * for a LAN address, the peer key the peer advertised on the LAN; for the Big Peer's address,
   * the key of the Big Peer last met in this run (so that redialing it, or failing to, stays on
   * its node). Not verified (a refused handshake leaves `remotePeerKey` undefined). Undefined for
   * other connections.
   */
  readonly advertisedPeerKey: string | undefined;
  /** Why it closed, for a closed one; for a dialed address not dialed yet, what it waits for (a certificate). */
  readonly reason: string | undefined;
  /** For a connection closed because its handshake was refused: by whom, the code and why (also in `reason`). */
  readonly refusal: MeshRefusal | undefined;
  /** For a closed dialed connection: when it will be dialed again (ms from `MeshSnapshot.now`). */
  readonly retryInMs: number | undefined;
  /** For a dialed address: its attempts in a row that ended before a session (refused, unreachable); undefined when none. */
  readonly failedAttempts: number | undefined;
  /** When the first of those failed attempts ended (ms); undefined without them. */
  readonly failingSince: number | undefined;
}

/**
 * What this peer's handshake concluded of a remote small peer's identity, the latest outcome
 * first: its certificate verified offline (against the issuer this peer trusts) and a session
 * ran, or the handshake was refused (code 4401, by either side) after that.
 */
export type MeshAuth =
  | {
      readonly state: 'verified';
      /** The user its certificate names. */
      readonly userID: string | undefined;
      /** When its certificate expires (ms, on the peer's clock). */
      readonly certificateExpiresAt: number | undefined;
      /** When the session started (ms). */
      readonly at: number;
    }
  | {
      readonly state: 'refused';
      readonly refusal: MeshRefusal;
      /** The connection whose handshake was refused. */
      readonly connectionId: string;
      /** When (ms). */
      readonly at: number;
    };

/** App metadata a peer announces in its presence document: short strings (its version, a site). */
export type MeshAppMetadata = Readonly<Record<string, string>>;

export interface MeshPeer {
  readonly peerKey: string;
  readonly role: 'local' | 'big-peer' | 'small-peer';
  readonly appId: string | undefined;
  /**
   * The device name the peer announces in its presence document (`__presence`); for this peer,
   * the one it was given (`--device-name`, default the host name). Undefined until its presence
   * document arrives, or when it writes none (a Big Peer, a peer without presence).
   */
  readonly deviceName: string | undefined;
  /** The app metadata of its presence document (for this peer, the one it was given); undefined when none or empty. */
  readonly appMetadata: MeshAppMetadata | undefined;
  /** When its presence document was last written (ms, on its own clock); undefined without one. */
  readonly presenceAt: number | undefined;
  /**
   * A small peer's authentication: verified (with its user and certificate expiry), or refused
   * when its latest handshake was refused after its last session. Undefined for this peer and
   * for the Big Peer (it is the issuer: it proves the issuer key, and has no certificate).
   */
  readonly auth: MeshAuth | undefined;
  /** When an update was last exchanged with it in this run (ms); null: not yet, or this peer. */
  readonly lastSyncedAt: number | null;
}

/** A peer advertised on the LAN in this run, whether or not this peer syncs with it. */
export interface MeshLanPeer {
  /** Its service instance name (unique on the LAN). */
  readonly name: string;
  /** As advertised; undefined when its advertisement has none. */
  readonly peerKey: string | undefined;
  readonly appId: string | undefined;
  /** Its `outer_protocol_version`, as advertised. */
  readonly protocolVersion: number | undefined;
  /** The address it is dialed at (`ws://ip:port/_sync/ws`). */
  readonly url: string;
  /** Does this peer sync with it (same app, a protocol version it speaks, a peer key)? */
  readonly compatible: boolean;
  /** Why not, when not: `another app (x): only peers of y sync with this one`, `outer_protocol_version 9 is not supported …`. */
  readonly reason: string | undefined;
  /** Still advertised; false once it said goodbye, its record expired, or sync stopped. */
  readonly present: boolean;
  /** When its advertisement was last seen (ms). */
  readonly lastSeenAt: number;
  /** As `MeshPeer.auth`, for its peer key: undefined until a handshake with it has concluded. */
  readonly auth: MeshAuth | undefined;
  /** The device name of its presence document (by its peer key), once that arrived. */
  readonly deviceName: string | undefined;
  /**
   * Set when its address failed `LAN_UNREACHABLE_AFTER` dials or more in a row with no session
   * since (it vanished without a goodbye, SIGKILL, or it advertises an address this peer cannot
   * reach): since when, and how many attempts. Such a peer is not counted as present.
   */
  readonly unreachable: { readonly since: number; readonly attempts: number } | undefined;
}

/** Failed dials in a row after which a LAN peer is said unreachable (and offline). */
export const LAN_UNREACHABLE_AFTER = 3;

/** A session a peer said it has, in its presence document. */
export interface MeshPresenceLink {
  readonly peerKey: string;
  readonly role: 'big-peer' | 'small-peer' | undefined;
  readonly transport: MeshTransport;
  readonly state: 'elected' | 'standby';
}

/**
 * A peer this peer has no session with, known only from its presence document, replicated here
 * through another peer (typically a register behind the Big Peer).
 */
export interface MeshIndirectPeer {
  readonly peerKey: string;
  readonly role: 'big-peer' | 'small-peer' | undefined;
  readonly deviceName: string | undefined;
  readonly appMetadata: MeshAppMetadata;
  /** The remote of this peer it is reached through: a peer it links to that this peer has a session with (the Big Peer first); undefined when none. */
  readonly via: string | undefined;
  /** The role of `via` (`big-peer`: "via Big Peer"). */
  readonly viaRole: 'big-peer' | 'small-peer' | undefined;
  /** The sessions it said it has. */
  readonly links: readonly MeshPresenceLink[];
  /** When it last wrote its presence document (ms, on its own clock): its "last seen". */
  readonly lastSeenAt: number | undefined;
  /**
   * Is it online, as far as its presence tells: it wrote within the last `PRESENCE_STALE_MS`
   * (three heartbeats) and said it has at least one session.
   */
  readonly online: boolean;
}

/** A presence document older than this (three default heartbeats of 60 s) says its peer is offline. */
export const PRESENCE_STALE_MS = 180_000;

/** The peer-to-peer transports the spec names. */
export type PeerToPeerTransport = 'LAN' | 'BluetoothLE' | 'AWDL' | 'P2PWifi' | 'WifiAware';

/**
 * `Ok` running; `Unavailable` this platform has no such transport; `MdnsFailure` LAN could not
 * advertise or browse; `TcpListenFailure` LAN could not listen; `Stopped` sync is off.
 */
export type TransportConditionCode = 'Ok' | 'Unavailable' | 'MdnsFailure' | 'TcpListenFailure' | 'Stopped';

/** A peer-to-peer transport this peer was asked to run, and how it is doing. */
export interface MeshTransportCondition {
  readonly transport: PeerToPeerTransport;
  readonly condition: TransportConditionCode;
  /** Why, in words a user can act on (for LAN when `Ok`: where it listens). */
  readonly reason: string;
  /** When it entered this condition (ms). */
  readonly since: number;
  /**
   * Something a user must know although it runs: for LAN, that it listens or advertises on a
   * loopback address, so that other machines cannot reach this peer. Undefined when nothing.
   */
  readonly warning: string | undefined;
}

export interface MeshSnapshot {
  readonly local: MeshPeer;
  /** Remote peers with a session now or earlier in this run, in the order first met. */
  readonly peers: readonly MeshPeer[];
  /** Dialed addresses and accepted connections, current and recently closed. */
  readonly connections: readonly MeshConnection[];
  /**
   * Peers known only from their presence documents (no session with this peer in this run), in
   * peer key order: the whole mesh, not only direct links. At most 500.
   */
  readonly indirect: readonly MeshIndirectPeer[];
  /** Peers advertised on the LAN in this run (the 500 most recently seen, the most recently seen last), compatible or not. */
  readonly lanPeers: readonly MeshLanPeer[];
  /** Each peer-to-peer transport asked for, in the spec's order; empty when none was. */
  readonly transports: readonly MeshTransportCondition[];
  readonly now: number;
}
