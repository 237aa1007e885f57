/** The Mesh panel's words and times: states, roles, transports, authentication, countdowns to the next dial. Pure. */
import type { ConnectionState, MeshAuth, MeshConnection, MeshRefusal, MeshSnapshot, MeshTransport } from '../../../../shared/inspector/mesh.ts';
import type { Tone } from '../../ui/Badge.tsx';
import { countdown, formatDuration, formatTimestamp } from '../../ui/format.ts';
import type { NodeRole } from './mesh-layout.ts';

export const ROLE_NAMES: Readonly<Record<NodeRole, string>> = {
  local: 'This peer',
  'big-peer': 'Big Peer',
  'small-peer': 'Small peer',
  'lan-peer': 'LAN peer',
  unknown: 'Not identified yet',
};

/** How each transport is named on screen: LAN, or WebSocket for a configured address or listener. */
export const TRANSPORT_NAMES: Readonly<Record<MeshTransport, string>> = { LAN: 'LAN', WebSocket: 'WebSocket' };

export const STATE_NAMES: Readonly<Record<ConnectionState | 'none', string>> = {
  elected: 'Elected',
  standby: 'Standby',
  connecting: 'Connecting',
  closed: 'Closed',
  none: 'No connection',
};

/**
 * The peer's clock now, from the snapshot's `now` and the viewer's time since it arrived: a
 * countdown never depends on the two clocks agreeing.
 */
export function peerNow(snapshot: MeshSnapshot, receivedAt: number, viewerNow: number): number {
  return snapshot.now + Math.max(0, viewerNow - receivedAt);
}

/** Milliseconds until a closed dialed connection is dialed again; undefined when it will not be. */
export function retryRemaining(connection: MeshConnection, receivedAt: number, viewerNow: number): number | undefined {
  if (connection.state !== 'closed' || connection.retryInMs === undefined) return undefined;
  return Math.max(0, connection.retryInMs - Math.max(0, viewerNow - receivedAt));
}

/** `retry in 4 s`, `retrying…` once due, or undefined. */
export function retryText(connection: MeshConnection, receivedAt: number, viewerNow: number): string | undefined {
  const remaining = retryRemaining(connection, receivedAt, viewerNow);
  if (remaining === undefined) return undefined;
  if (remaining <= 0) return 'retrying…';
  // Whole seconds, rounded up: "retry in 0 s" would say it is due when it is not.
  return `retry in ${countdown(Math.ceil(remaining / 1000) * 1000, 0).text}`;
}

/** How long a connection has been in its state, on the peer's clock. */
export function stateAge(connection: MeshConnection, snapshot: MeshSnapshot, receivedAt: number, viewerNow: number): string {
  return formatDuration(Math.max(0, peerNow(snapshot, receivedAt, viewerNow) - connection.since));
}

/**
 * An edge's caption under its id: the state (`refused` for a refused handshake, with the retry
 * countdown of a closed one), then why it closed or what it waits for, when the peer said.
 */
export function edgeCaptionLines(
  connection: MeshConnection,
  receivedAt: number,
  viewerNow: number,
): { readonly state: string; readonly reason: string | undefined } {
  const reason = connection.reason === undefined || connection.reason === '' ? undefined : connection.reason;
  if (connection.state !== 'closed')
    return { state: connection.state, reason: connection.state === 'connecting' && reason !== undefined ? `waiting: ${reason}` : reason };
  const retry = retryText(connection, receivedAt, viewerNow);
  const refusal = connection.refusal;
  const state = refusal === undefined ? 'closed' : 'refused';
  return {
    state: retry === undefined ? state : `${state} · ${retry}`,
    reason: refusal === undefined ? reason : refusal.reason === '' ? refusalTitle(refusal) : refusal.reason,
  };
}

/** `by this peer (4401)`, `by the remote (4401)`. */
export function refusedBy(refusal: MeshRefusal): string {
  return `by ${refusal.by === 'local' ? 'this peer' : 'the remote'}${refusal.code === undefined ? '' : ` (${refusal.code})`}`;
}

/** `Refused by this peer (4401)`. */
export function refusalTitle(refusal: MeshRefusal): string {
  return `Refused ${refusedBy(refusal)}`;
}

/** What the panel says of a small peer's authentication: a badge and the lines under it. */
export interface AuthWords {
  readonly tone: Tone;
  readonly label: string;
  /** After the badge, on its line: who refused (`by this peer (4401)`). */
  readonly by: string | undefined;
  /** Below: who the certificate names, or why it was refused. */
  readonly lines: readonly string[];
  /** When the certificate expires, and whether it has (on the peer's clock); undefined when not told. */
  readonly expiry: { readonly text: string; readonly exact: string; readonly expired: boolean } | undefined;
}

/**
 * `verified` (the user its certificate names, when its certificate expires) or `refused` (by whom,
 * with the close code, and why). `peerClock` is the peer's clock now (`peerNow()`).
 */
export function authWords(auth: MeshAuth, peerClock: number): AuthWords {
  if (auth.state === 'refused') {
    return { tone: 'danger', label: 'refused', by: refusedBy(auth.refusal), lines: auth.refusal.reason === '' ? [] : [auth.refusal.reason], expiry: undefined };
  }
  const expires = auth.certificateExpiresAt;
  const expiry =
    expires === undefined
      ? undefined
      : {
          expired: expires <= peerClock,
          text:
            expires <= peerClock
              ? `certificate expired ${formatDuration(peerClock - expires)} ago`
              : `certificate expires in ${formatDuration(expires - peerClock)}`,
          exact: `${formatTimestamp(expires)} UTC`,
        };
  return { tone: 'ok', label: 'verified', by: undefined, lines: auth.userID === undefined ? [] : [`user ${auth.userID}`], expiry };
}

/** The same in one line, for tooltips and accessible names. */
export function authSentence(auth: MeshAuth, peerClock: number): string {
  const words = authWords(auth, peerClock);
  if (auth.state === 'refused') return [`handshake refused ${words.by ?? ''}`, ...words.lines].join(': ');
  return ['certificate verified', ...words.lines, ...(words.expiry === undefined ? [] : [`${words.expiry.text} (${words.expiry.exact})`])].join(', ');
}

/** The caption in one line: `closed · retry in 4 s · socket closed (1006)`. */
export function edgeCaption(connection: MeshConnection, receivedAt: number, viewerNow: number): string {
  const { state, reason } = edgeCaptionLines(connection, receivedAt, viewerNow);
  return reason === undefined ? state : `${state} · ${reason}`;
}

/** The elected connection of a peer, if a session runs with it. */
export function electedConnection(connections: readonly MeshConnection[], peerKey: string): MeshConnection | undefined {
  return connections.find((c) => c.remotePeerKey === peerKey && c.state === 'elected');
}

/** Open connections first (elected, standby, connecting), then closed ones, newest first in each. */
export function sortConnections(connections: readonly MeshConnection[]): MeshConnection[] {
  const rank: Readonly<Record<ConnectionState, number>> = { elected: 0, standby: 1, connecting: 2, closed: 3 };
  return [...connections].sort((a, b) => rank[a.state] - rank[b.state] || b.since - a.since);
}

/** `ws://127.0.0.1:34933/_sync/ws` → `127.0.0.1:34933`: the part that tells endpoints apart. */
export function shortAddress(address: string): string {
  const m = /^[a-z]+:\/\/([^/]+)/i.exec(address);
  return m?.[1] ?? address;
}
