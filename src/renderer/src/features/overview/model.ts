/** What the Overview panel derives from a snapshot: the certificate's state, the collection table. Pure. */
import type { BigPeerLinkState, CollectionCount, IdentityType, OverviewSnapshot } from '../../../../shared/inspector/overview.ts';
import type { Tone } from '../../ui/Badge.tsx';
import { countdown, type Countdown } from '../../ui/format.ts';

/** Below this, a certificate is about to expire (shown as a warning). */
export const EXPIRY_WARNING_MS = 10 * 60 * 1000;

/** The peer's clock now: the snapshot's `now`, moved on by the viewer's time since it arrived. */
export function peerNow(snapshot: Pick<OverviewSnapshot, 'now'>, receivedAt: number, viewerNow: number): number {
  return snapshot.now + Math.max(0, viewerNow - receivedAt);
}

export interface CertificateState {
  readonly tone: Tone;
  /** `expires in 1 h 02 min 05 s`, `expired 4 min 09 s ago`, `no certificate`. */
  readonly text: string;
  readonly countdown: Countdown | undefined;
}

export function certificateState(expiresAt: number | undefined, now: number): CertificateState {
  if (expiresAt === undefined) return { tone: 'neutral', text: 'no certificate', countdown: undefined };
  const left = countdown(expiresAt, now);
  if (left.expired) return { tone: 'danger', text: `expired ${left.text} ago`, countdown: left };
  return { tone: left.remainingMs < EXPIRY_WARNING_MS ? 'warn' : 'ok', text: `expires in ${left.text}`, countdown: left };
}

export const BIG_PEER_STATES: Readonly<Record<BigPeerLinkState, { readonly tone: Tone; readonly label: string; readonly hint: string }>> = {
  none: { tone: 'neutral', label: 'Not configured', hint: 'This peer has no Big Peer: it runs offline, or syncs only with the peers it is given.' },
  stopped: { tone: 'neutral', label: 'Sync stopped', hint: 'Start sync to connect.' },
  connecting: { tone: 'warn', label: 'Connecting', hint: 'Logging in, dialing, or waiting to dial again.' },
  connected: { tone: 'ok', label: 'Connected', hint: 'A replication session with the Big Peer is running.' },
};

export const IDENTITY_LABELS: Readonly<Record<IdentityType, string>> = {
  OnlinePlayground: 'Online playground',
  onlineWithAuthentication: 'Online with authentication',
  offline: 'Offline',
};

export interface CollectionTable {
  readonly rows: readonly CollectionCount[];
  readonly hiddenInternal: number;
  readonly documents: number;
  readonly tombstones: number;
  /** The largest row's documents + tombstones, for the bars. */
  readonly largest: number;
}

/** The collections shown (internal ones only when asked), by name, with totals over those shown. */
export function collectionTable(collections: readonly CollectionCount[], showInternal: boolean): CollectionTable {
  const rows = collections
    .filter((c) => showInternal || !c.internal)
    .toSorted((a, b) => (a.internal === b.internal ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.internal ? 1 : -1));
  return {
    rows,
    hiddenInternal: collections.length - rows.length,
    documents: rows.reduce((sum, c) => sum + c.documents, 0),
    tombstones: rows.reduce((sum, c) => sum + c.tombstones, 0),
    largest: rows.reduce((max, c) => Math.max(max, c.documents + c.tombstones), 0),
  };
}
