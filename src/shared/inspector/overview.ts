/** The Overview panel: who this peer is and how it is doing. */
import type { ErrorValue } from '../error-codes.ts';

/** How this peer authenticates: the spec's identity types, or none (an offline, local-only peer). */
export type IdentityType = 'OnlinePlayground' | 'onlineWithAuthentication' | 'offline';

/** The state of this peer's link to its Big Peer. */
export type BigPeerLinkState =
  /** No Big Peer is configured. */
  | 'none'
  /** Sync is stopped. */
  | 'stopped'
  /** Logging in, dialing, or waiting to dial again. */
  | 'connecting'
  /** A replication session with the Big Peer is running. */
  | 'connected';

export interface CollectionCount {
  readonly name: string;
  /** Live documents. */
  readonly documents: number;
  /** Deleted documents kept so that the deletion replicates. */
  readonly tombstones: number;
  /** Internal to the peer (`__presence`: src/shared/internal-collections.ts); other `__` names are the application's. */
  readonly internal: boolean;
}

export interface OverviewSnapshot {
  readonly identityType: IdentityType;
  readonly appId: string | undefined;
  readonly peerKey: string;
  /** The store's folder; undefined for an in-memory store. */
  readonly persistenceDirectory: string | undefined;
  /** Sync is running, or starting (logging in): from `sync:start` until `sync:stop` or a failed start. */
  readonly syncActive: boolean;
  readonly bigPeer: {
    /** The Big Peer's HTTP base URL, if one is configured. */
    readonly url: string | undefined;
    readonly state: BigPeerLinkState;
    /** Its peer key, once a session has run. */
    readonly peerKey: string | undefined;
  };
  readonly auth: {
    readonly authenticated: boolean;
    readonly userID: string | undefined;
    /** When the certificate expires, in ms since the epoch. */
    readonly certificateExpiresAt: number | undefined;
    readonly lastError: ErrorValue | undefined;
  };
  /**
   * The upload queue: commits of this store the Big Peer has not acknowledged yet (`sync.pendingUpload`),
   * and when the oldest of them was made (ms; null when none is pending, or it was made before this run).
   */
  readonly upload: { readonly pendingCommits: number; readonly oldestPendingAt: number | null; readonly acknowledgedUpTo: number };
  /** The remote peers met in this run: in a session now or not, and when an update was last exchanged with each (ms; null: not yet). */
  readonly remotes: readonly {
    readonly peerKey: string;
    readonly role: 'big-peer' | 'small-peer';
    readonly inSession: boolean;
    readonly lastSyncedAt: number | null;
  }[];
  /** Every collection, internal ones included (the renderer decides what to show). */
  readonly collections: readonly CollectionCount[];
  readonly storeSizeBytes: number;
  readonly lastTxnId: number;
  /** The peer's clock when the snapshot was taken (ms), so that countdowns do not depend on the viewer's clock. */
  readonly now: number;
}
