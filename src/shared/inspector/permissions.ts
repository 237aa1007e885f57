/** The Permissions panel: rules, and for one document who may read and write it and why. */
import type { JsonValue } from '../json.ts';
import type { Permissions } from '../permissions.ts';

export interface PeerPermissions {
  readonly peerKey: string;
  readonly role: 'local' | 'big-peer' | 'small-peer';
  /** Undefined for a local peer without a certificate (offline: no rules apply locally). */
  readonly permissions: Permissions | undefined;
}

export interface PermissionsSnapshot {
  readonly local: PeerPermissions;
  readonly remotes: readonly PeerPermissions[];
}

export interface Verdict {
  readonly allowed: boolean;
  /** Why, in words: `read.everything is true`, `read.queries_by_collection.orders: locationId == 'A' matches`, … */
  readonly reason: string;
}

export interface DocumentAccess {
  readonly peerKey: string;
  readonly role: 'local' | 'big-peer' | 'small-peer';
  readonly read: Verdict;
  readonly write: Verdict;
}

export interface CheckAccessInput {
  readonly collection: string;
  readonly id: JsonValue;
}

export interface AccessReport {
  readonly collection: string;
  readonly id: JsonValue;
  /** False when this peer does not hold the document (rules with conditions are then undecided). */
  readonly found: boolean;
  /** The local peer first, then each connected peer. */
  readonly peers: readonly DocumentAccess[];
}
