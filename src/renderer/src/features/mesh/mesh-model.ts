/** The Mesh panel's words and times: states, roles, countdowns to the next dial. Pure. */
import type { ConnectionState, MeshConnection, MeshSnapshot } from '../../../../shared/inspector/mesh.ts';
import { countdown, formatDuration } from '../../ui/format.ts';
import type { NodeRole } from './mesh-layout.ts';

export const ROLE_NAMES: Readonly<Record<NodeRole, string>> = {
  local: 'This peer',
  'big-peer': 'Big Peer',
  'small-peer': 'Small peer',
  unknown: 'Not identified yet',
};

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
 * An edge's caption under its id: the state (with the retry countdown of a closed one), then why
 * it closed or what it waits for, when the peer said.
 */
export function edgeCaptionLines(connection: MeshConnection, receivedAt: number, viewerNow: number): { readonly state: string; readonly reason: string | undefined } {
  const reason = connection.reason === undefined || connection.reason === '' ? undefined : connection.reason;
  if (connection.state !== 'closed') return { state: connection.state, reason: connection.state === 'connecting' && reason !== undefined ? `waiting: ${reason}` : reason };
  const retry = retryText(connection, receivedAt, viewerNow);
  return { state: retry === undefined ? 'closed' : `closed · ${retry}`, reason };
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
