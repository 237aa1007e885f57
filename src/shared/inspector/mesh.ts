/** The Mesh panel: this peer, the Big Peer and every remote, with their connections. */

export type ConnectionState =
  /** Dialing, or the handshake is running. */
  | 'connecting'
  /** A replication session runs over it. */
  | 'elected'
  /** Up, but another connection to the same peer was elected. */
  | 'standby'
  /** Failed or ended; `retryInMs` tells when it is dialed again. */
  | 'closed';

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
  readonly state: ConnectionState;
  readonly since: number;
  /** The remote's peer key, once the handshake told it. */
  readonly remotePeerKey: string | undefined;
  /** Why it closed, for a closed one; for a dialed address not dialed yet, what it waits for (a certificate). */
  readonly reason: string | undefined;
  /** For a closed dialed connection: when it will be dialed again (ms from `MeshSnapshot.now`). */
  readonly retryInMs: number | undefined;
}

export interface MeshPeer {
  readonly peerKey: string;
  readonly role: 'local' | 'big-peer' | 'small-peer';
  readonly appId: string | undefined;
}

export interface MeshSnapshot {
  readonly local: MeshPeer;
  /** Remote peers with a session now or earlier in this run. */
  readonly peers: readonly MeshPeer[];
  /** Dialed addresses and accepted connections, current and recently closed. */
  readonly connections: readonly MeshConnection[];
  readonly now: number;
}
