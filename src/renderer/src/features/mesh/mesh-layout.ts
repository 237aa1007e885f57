/**
 * Where the Mesh graph draws things. The local peer sits in the centre; the remotes around it on
 * one circle, Big Peers first from the top, then small peers in the order they were met, then
 * LAN peers known only by their advertisement (dialed, not verified: still handshaking, or
 * refused), then endpoints whose peer is not known yet (a connection still handshaking); one
 * edge per connection, curved apart when a peer has several.
 *
 * Why not a graph layout library: the graph is a star (every edge touches the local peer, the
 * only one whose connections this peer knows), usually of a handful of nodes. A radial layout
 * is the right drawing of a star, and written by hand it is deterministic (a node never moves
 * while the user looks at it, and tests pin it down), which force-directed layouts are not.
 * Pure.
 */
import type { ConnectionState, MeshAuth, MeshConnection, MeshPeer, MeshSnapshot } from '../../../../shared/inspector/mesh.ts';

/** The drawing's size when the pane's is not known yet. */
export const DEFAULT_SIZE: Size = { width: 760, height: 500 };
/** Smallest drawing: below it the SVG scales down instead. */
const MIN_SIZE: Size = { width: 480, height: 360 };
/** Room around the ring for the nodes' labels (sideways: a shortened key; up and down: two lines). */
const MARGIN_X = 90;
const MARGIN_Y = 62;
/** More room at the top: the legend sits in the drawing's top right corner. */
const MARGIN_TOP = MARGIN_Y + 24;
/** The ring is an ellipse that fills the pane, but not flatter than this. */
const MAX_STRETCH = 2.2;
/** Where along an edge (from the local peer) its label sits: past the middle, so that labels of neighbouring edges part. */
const LABEL_AT = 0.56;
/** How far apart (px, along their curves) the labels of a peer's several edges sit: labels are wider than the edges are apart. */
const LABEL_GAP = 50;
const LOCAL_RADIUS = 32;
const MAX_NODE_RADIUS = 24;
const MIN_NODE_RADIUS = 9;
/** Past this many remotes, labels would collide: they show on hover and in the list. */
export const MAX_LABELLED_NODES = 14;
/** How far apart (at their middle) two edges to the same peer are drawn. */
const EDGE_SPREAD = 40;

/** `lan-peer`: a peer known only by what it advertised on the LAN (no session with it yet). */
export type NodeRole = 'local' | 'big-peer' | 'small-peer' | 'lan-peer' | 'unknown';

export interface MeshNode {
  /** The peer key (verified, or advertised on the LAN), or `address:<address>` for an endpoint whose peer is not known yet. */
  readonly id: string;
  readonly role: NodeRole;
  readonly peerKey: string | undefined;
  readonly address: string | undefined;
  readonly appId: string | undefined;
  /** A small or LAN peer's authentication: verified or refused. */
  readonly auth: MeshAuth | undefined;
  readonly x: number;
  readonly y: number;
  readonly r: number;
  /** The best state among its connections: `elected` when a session runs with it. */
  readonly state: ConnectionState | 'none';
  /** Where its label goes: under the node, or above it for nodes in the upper half. */
  readonly labelSide: 'above' | 'below';
}

export interface MeshEdge {
  readonly connection: MeshConnection;
  readonly nodeId: string;
  /** SVG path from the local peer to the remote. */
  readonly path: string;
  /** The middle of the curve, where its label goes. */
  readonly labelX: number;
  readonly labelY: number;
  /**
   * Whether its label is drawn: a peer's open edges are labelled, or when it has none its newest
   * closed one; the others' why is in their tooltip and the list, so that the labels drawn stay
   * readable (two plates side by side would cover each other).
   */
  readonly labelled: boolean;
}

export interface Size {
  readonly width: number;
  readonly height: number;
}

export interface MeshLayout {
  /** The drawing's size: the SVG's viewBox, one unit a pixel when it fits its pane. */
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly MeshNode[];
  readonly edges: readonly MeshEdge[];
  /** Closed connections left out of the graph (older ones of a peer that has a newer one), still in the list. */
  readonly hiddenClosed: number;
  readonly labelled: boolean;
}

const STATE_RANK: Readonly<Record<ConnectionState | 'none', number>> = { elected: 4, standby: 3, connecting: 2, closed: 1, none: 0 };

/** The state that best describes a peer's link: any elected connection makes it `elected`. */
export function bestState(states: readonly ConnectionState[]): ConnectionState | 'none' {
  let best: ConnectionState | 'none' = 'none';
  for (const s of states) if (STATE_RANK[s] > STATE_RANK[best]) best = s;
  return best;
}

/**
 * Which node a connection goes to: its peer once verified, else the peer a LAN address advertised,
 * else its endpoint: the address it dials, or for an accepted one the host it came from (each
 * connection from a host comes from a new port: a peer refused and redialing every 30 s would
 * otherwise be a new node each time).
 */
export function nodeIdOf(connection: MeshConnection): string {
  return connection.remotePeerKey ?? connection.advertisedPeerKey ?? `address:${endpointOf(connection)}`;
}

/** The address a dialed connection dials, or the host (without the port) an accepted one came from. */
export function endpointOf(connection: MeshConnection): string {
  if (connection.direction === 'dialed') return connection.address;
  const m = /^(\[[^\]]*\]|[^:]+):\d+$/.exec(connection.address);
  return m?.[1] ?? connection.address;
}

/**
 * The connections drawn: every open one, and of the closed ones only the newest per peer and
 * direction (a peer that reconnected fifty times is one faded edge, not fifty).
 */
export function drawnConnections(connections: readonly MeshConnection[], showClosed: boolean): { drawn: MeshConnection[]; hiddenClosed: number } {
  const newestClosed = new Map<string, MeshConnection>();
  const drawn: MeshConnection[] = [];
  let closed = 0;
  for (const c of connections) {
    if (c.state !== 'closed') {
      drawn.push(c);
      continue;
    }
    closed++;
    const key = `${nodeIdOf(c)}|${c.direction}`;
    const seen = newestClosed.get(key);
    if (seen === undefined || c.since > seen.since) newestClosed.set(key, c);
  }
  if (showClosed) drawn.push(...newestClosed.values());
  return { drawn, hiddenClosed: closed - (showClosed ? newestClosed.size : 0) };
}

const ROLE_ORDER: Readonly<Record<NodeRole, number>> = { local: 0, 'big-peer': 1, 'small-peer': 2, 'lan-peer': 3, unknown: 4 };

/**
 * The drawing for a pane of `size` pixels: the ring fills it (so text keeps its size, and a
 * wide pane gets a wide ring, where edge labels have room).
 */
export function layoutMesh(snapshot: MeshSnapshot, showClosed = true, size: Size = DEFAULT_SIZE): MeshLayout {
  const width = Math.max(MIN_SIZE.width, Math.round(size.width));
  const height = Math.max(MIN_SIZE.height, Math.round(size.height));
  const { drawn, hiddenClosed } = drawnConnections(snapshot.connections, showClosed);
  const byNode = new Map<string, MeshConnection[]>();
  for (const c of drawn) {
    const id = nodeIdOf(c);
    byNode.set(id, [...(byNode.get(id) ?? []), c]);
  }

  // Remotes: every peer met, and every endpoint a connection goes to that is not one of them
  // (a LAN peer by the key it advertised, else the address).
  interface Remote {
    readonly id: string;
    readonly role: NodeRole;
    readonly peerKey: string | undefined;
    readonly address: string | undefined;
    readonly appId: string | undefined;
    readonly auth: MeshAuth | undefined;
  }
  const lan = new Map(snapshot.lanPeers.map((p) => [p.peerKey, p]));
  // A LAN peer gone offline (no longer advertised, or unreachable) keeps no check mark: its
  // verification is history (the lists still say it), not a peer that is there.
  const offline = (key: string): boolean => {
    const seen = lan.get(key);
    return seen !== undefined && (!seen.present || seen.unreachable !== undefined);
  };
  const fromPeer = (peer: MeshPeer): Remote => ({
    id: peer.peerKey,
    role: peer.role === 'local' ? 'small-peer' : peer.role,
    peerKey: peer.peerKey,
    address: undefined,
    appId: peer.appId,
    auth: offline(peer.peerKey) ? undefined : peer.auth,
  });
  const remotes: Remote[] = snapshot.peers.map(fromPeer);
  const known = new Set(remotes.map((r) => r.id));
  for (const c of drawn) {
    const id = nodeIdOf(c);
    if (known.has(id)) continue;
    known.add(id);
    const advertised = c.remotePeerKey === undefined ? c.advertisedPeerKey : undefined;
    const seen = advertised === undefined ? undefined : lan.get(advertised);
    remotes.push(
      advertised !== undefined
        ? { id, role: 'lan-peer', peerKey: advertised, address: c.address, appId: seen?.appId, auth: offline(advertised) ? undefined : seen?.auth }
        : {
            id,
            role: 'unknown',
            peerKey: c.remotePeerKey,
            address: c.remotePeerKey === undefined ? endpointOf(c) : undefined,
            appId: undefined,
            auth: undefined,
          },
    );
  }
  // Stable order: by role, then as the peer listed them (the order they were first met).
  const ordered = remotes.map((r, i) => ({ ...r, i })).sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.i - b.i);

  const n = ordered.length;
  // From the top, clockwise; the first remote (a Big Peer when there is one) straight up.
  const angles = ordered.map((_, i) => -Math.PI / 2 + (2 * Math.PI * i) / Math.max(1, n));
  // The ring's vertical extent is fitted to the pane: three remotes (one up, two down) reach
  // only half-way down, so the ring grows and moves down to use the height.
  const sines = angles.map(Math.sin);
  const top = Math.min(-1, ...sines);
  const bottom = n <= 1 ? 1 : Math.max(1 / 2, ...sines);
  const ry = (height - MARGIN_TOP - MARGIN_Y) / (bottom - top);
  const rx = Math.min(width / 2 - MARGIN_X, ((height - MARGIN_TOP - MARGIN_Y) / 2) * MAX_STRETCH);
  const centre = { x: width / 2, y: MARGIN_TOP - top * ry };
  const r = n === 0 ? MAX_NODE_RADIUS : Math.max(MIN_NODE_RADIUS, Math.min(MAX_NODE_RADIUS, ((Math.PI * Math.min(rx, ry)) / n) * 0.7));
  const nodes: MeshNode[] = [
    {
      id: snapshot.local.peerKey,
      role: 'local',
      peerKey: snapshot.local.peerKey,
      address: undefined,
      appId: snapshot.local.appId,
      auth: undefined,
      x: centre.x,
      y: centre.y,
      r: LOCAL_RADIUS,
      state: bestState(snapshot.connections.map((c) => c.state)),
      labelSide: 'below',
    },
  ];
  ordered.forEach((remote, i) => {
    const angle = angles[i] as number;
    const x = round(centre.x + rx * Math.cos(angle));
    const y = round(centre.y + ry * Math.sin(angle));
    nodes.push({
      id: remote.id,
      role: remote.role,
      peerKey: remote.peerKey,
      address: remote.address,
      appId: remote.appId,
      auth: remote.auth,
      x,
      y,
      r,
      state: bestState((byNode.get(remote.id) ?? []).map((c) => c.state)),
      labelSide: y < centre.y - 1 ? 'above' : 'below',
    });
  });

  const local = nodes[0] as MeshNode;
  const edges: MeshEdge[] = [];
  for (const node of nodes.slice(1)) {
    const connections = byNode.get(node.id) ?? [];
    const open = connections.filter((c) => c.state !== 'closed');
    const newestClosed = connections.reduce<MeshConnection | undefined>(
      (a, c) => (c.state === 'closed' && (a === undefined || c.since > a.since) ? c : a),
      undefined,
    );
    const labelled = open.length > 0 || newestClosed === undefined ? open : [newestClosed];
    // Labels of one peer's edges sit apart along the edges, as far as the edge's length allows.
    const step = Math.min(0.25, LABEL_GAP / Math.max(1, Math.hypot(node.x - local.x, node.y - local.y)));
    connections.forEach((connection, k) => {
      const offset = (k - (connections.length - 1) / 2) * EDGE_SPREAD;
      const j = labelled.indexOf(connection);
      const labelAt = j === -1 ? LABEL_AT : Math.min(0.82, Math.max(0.3, LABEL_AT + (j - (labelled.length - 1) / 2) * step));
      edges.push({ connection, nodeId: node.id, ...curve(local, node, offset, labelAt), labelled: j !== -1 });
    });
  }
  return { width, height, nodes, edges, hiddenClosed, labelled: n <= MAX_LABELLED_NODES };
}

/**
 * A quadratic curve from `a`'s rim to `b`'s rim whose middle lies `offset` to the side of the
 * straight line (0: the straight line itself), and the point on it where its label goes.
 */
export function curve(
  a: { x: number; y: number; r: number },
  b: { x: number; y: number; r: number },
  offset: number,
  labelAt = 0.5,
): { path: string; labelX: number; labelY: number } {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx, dy) || 1;
  const nx = -dy / length;
  const ny = dx / length;
  // A quadratic curve's middle is halfway to its control point: twice the offset puts it there.
  const cx = (a.x + b.x) / 2 + nx * offset * 2;
  const cy = (a.y + b.y) / 2 + ny * offset * 2;
  const start = towards(a, { x: cx, y: cy }, a.r + 3);
  const end = towards(b, { x: cx, y: cy }, b.r + 6);
  const t = labelAt;
  if (offset === 0)
    return { path: `M${start.x} ${start.y}L${end.x} ${end.y}`, labelX: round(start.x + (end.x - start.x) * t), labelY: round(start.y + (end.y - start.y) * t) };
  // The curve's own point at t, so that the label sits on the line drawn.
  const labelX = round((1 - t) ** 2 * start.x + 2 * t * (1 - t) * cx + t ** 2 * end.x);
  const labelY = round((1 - t) ** 2 * start.y + 2 * t * (1 - t) * cy + t ** 2 * end.y);
  return { path: `M${start.x} ${start.y}Q${round(cx)} ${round(cy)} ${end.x} ${end.y}`, labelX, labelY };
}

/** The point `distance` from `from` towards `to`. */
function towards(from: { x: number; y: number }, to: { x: number; y: number }, distance: number): { x: number; y: number } {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.hypot(dx, dy) || 1;
  return { x: round(from.x + (dx / length) * distance), y: round(from.y + (dy / length) * distance) };
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}
