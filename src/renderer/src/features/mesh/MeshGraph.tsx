/**
 * The mesh as a graph (SVG): this peer in the centre, the Big Peer and the small peers around it,
 * an edge per connection styled by its state (elected solid, standby dashed, connecting dotted
 * and moving, closed faded red with its reason and retry), an arrow from the side that dialed,
 * and its transport (LAN or WebSocket) on its label. A small peer's disc carries its
 * authentication: a green check once its certificate was verified, a red cross when its
 * handshake was refused. Nodes and edges are focusable: Enter or a click selects them, and the
 * list beside shows them.
 */
import type { KeyboardEvent } from 'react';
import type { ConnectionState, MeshSnapshot } from '../../../../shared/inspector/mesh.ts';
import { formatAgo, shortKey } from '../../ui/format.ts';
import { usePeerNames } from '../../ui/peer-names-context.ts';
import { placeSatellites, type MeshSatellite } from './mesh-satellites.ts';
import { Icon, type IconName } from '../../ui/Icon.tsx';
import { curve, type MeshEdge, type MeshLayout, type MeshNode, type NodeRole } from './mesh-layout.ts';
import { ROLE_NAMES, STATE_NAMES, TRANSPORT_NAMES, authSentence, edgeCaptionLines, peerNow, refusalTitle, shortAddress } from './mesh-model.ts';
import type { MeshSelection } from './slice.ts';

const ROLE_ICONS: Readonly<Record<NodeRole, IconName>> = {
  local: 'monitor',
  'big-peer': 'cloud',
  'small-peer': 'monitor',
  'lan-peer': 'monitor',
  unknown: 'link',
};
const STATES: readonly ConnectionState[] = ['elected', 'standby', 'connecting', 'closed'];
/** Below this width the graph leaves reasons to the tooltip and the list: they would overlap. */
const COMPACT_WIDTH = 640;
/** Longest reason drawn on an edge; the whole of it is in the tooltip and the list. */
const MAX_REASON = 30;

interface MeshGraphProps {
  readonly snapshot: MeshSnapshot;
  readonly layout: MeshLayout;
  readonly receivedAt: number;
  readonly now: number;
  readonly selected: MeshSelection;
  readonly onSelect: (selection: MeshSelection) => void;
}

function activate(event: KeyboardEvent, select: () => void): void {
  if (event.key !== 'Enter' && event.key !== ' ') return;
  event.preventDefault();
  select();
}

export function nodeName(node: Pick<MeshNode, 'role' | 'peerKey' | 'address'>): string {
  return node.peerKey !== undefined ? `${ROLE_NAMES[node.role]} ${node.peerKey}` : `${ROLE_NAMES[node.role]} at ${node.address ?? 'an unknown address'}`;
}

export function MeshGraph({ snapshot, layout, receivedAt, now, selected, onSelect }: MeshGraphProps) {
  // What the selection touches stays bright; the rest fades.
  const related = new Set<string>();
  if (selected?.kind === 'peer') {
    related.add(selected.id);
    for (const e of layout.edges) if (e.nodeId === selected.id) related.add(`c:${e.connection.id}`);
    related.add(snapshot.local.peerKey);
  } else if (selected?.kind === 'connection') {
    const edge = layout.edges.find((e) => e.connection.id === selected.id);
    if (edge !== undefined) related.add(edge.nodeId).add(`c:${edge.connection.id}`).add(snapshot.local.peerKey);
  }
  const focus = related.size > 0;
  const nodeById = new Map(layout.nodes.map((n) => [n.id, n]));
  const peerClock = peerNow(snapshot, receivedAt, now);

  return (
    <svg
      className={`mesh-graph${focus ? ' has-focus' : ''}`}
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      preserveAspectRatio="xMidYMid meet"
      role="group"
      aria-label={`Mesh graph: this peer and ${layout.nodes.length - 1} remote ${layout.nodes.length === 2 ? 'peer' : 'peers'}, ${layout.edges.length} ${layout.edges.length === 1 ? 'connection' : 'connections'}`}
      onClick={(event) => {
        if (event.target === event.currentTarget) onSelect(undefined);
      }}
    >
      <defs>
        {STATES.map((state) => (
          <marker
            key={state}
            id={`mesh-arrow-${state}`}
            className={`mesh-arrow mesh-arrow-${state}`}
            viewBox="0 0 10 10"
            refX="8"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M0 1L9 5L0 9z" />
          </marker>
        ))}
      </defs>
      <rect className="mesh-backdrop" x="0" y="0" width={layout.width} height={layout.height} onClick={() => onSelect(undefined)} />

      <g className="mesh-edges">
        {layout.edges.map((edge) => (
          <EdgeView
            key={edge.connection.id}
            edge={edge}
            remote={nodeById.get(edge.nodeId)}
            selected={selected?.kind === 'connection' && selected.id === edge.connection.id}
            dim={focus && !related.has(`c:${edge.connection.id}`)}
            onSelect={onSelect}
          />
        ))}
      </g>

      <g className="mesh-satellites">
        {placeSatellites(snapshot.indirect, layout.nodes, layout).map((satellite) => (
          <SatelliteView
            key={satellite.peer.peerKey}
            satellite={satellite}
            peerClock={peerClock}
            labelled={layout.labelled}
            selected={selected?.kind === 'peer' && selected.id === satellite.peer.peerKey}
            dim={focus && !related.has(satellite.peer.peerKey)}
            onSelect={onSelect}
          />
        ))}
      </g>

      <g className="mesh-nodes">
        {layout.nodes.map((node) => (
          <NodeView
            key={node.id}
            node={node}
            auth={node.auth === undefined ? undefined : authSentence(node.auth, peerClock)}
            labelled={layout.labelled || node.role === 'local'}
            selected={selected?.kind === 'peer' && selected.id === node.id}
            dim={focus && !related.has(node.id)}
            onSelect={onSelect}
          />
        ))}
      </g>

      <g className="mesh-edge-labels" aria-hidden="true">
        {layout.edges
          .filter((edge) => edge.labelled)
          .map((edge) => (
            <EdgeLabel
              key={edge.connection.id}
              edge={edge}
              caption={edgeCaptionLines(edge.connection, receivedAt, now)}
              withReason={layout.width >= COMPACT_WIDTH}
              dim={focus && !related.has(`c:${edge.connection.id}`)}
            />
          ))}
      </g>
    </svg>
  );
}

function EdgeView({
  edge,
  remote,
  selected,
  dim,
  onSelect,
}: {
  readonly edge: MeshEdge;
  readonly remote: MeshNode | undefined;
  readonly selected: boolean;
  readonly dim: boolean;
  readonly onSelect: (s: MeshSelection) => void;
}) {
  const c = edge.connection;
  const select = (): void => onSelect({ kind: 'connection', id: c.id });
  const who = remote === undefined ? 'a remote' : nodeName(remote);
  const state = c.refusal === undefined ? STATE_NAMES[c.state] : refusalTitle(c.refusal);
  const why = c.refusal !== undefined ? c.refusal.reason : c.reason;
  const label = `${c.id}, ${c.direction} ${c.direction === 'dialed' ? 'to' : 'from'} ${who}: ${state}, over ${TRANSPORT_NAMES[c.transport]}${why === undefined || why === '' ? '' : `, ${why}`}`;
  const marker = `url(#mesh-arrow-${c.state})`;
  return (
    <g
      className={`mesh-edge mesh-edge-${c.state}${selected ? ' is-selected' : ''}${dim ? ' is-dim' : ''}`}
      data-testid="mesh-edge"
      data-state={c.state}
      data-transport={c.transport}
      data-connection={c.id}
      tabIndex={0}
      role="button"
      aria-label={label}
      aria-pressed={selected}
      onClick={select}
      onKeyDown={(e) => activate(e, select)}
    >
      <title>{label}</title>
      <path className="mesh-edge-hit" d={edge.path} />
      <path
        className="mesh-edge-line"
        d={edge.path}
        markerEnd={c.direction === 'dialed' ? marker : undefined}
        markerStart={c.direction === 'accepted' ? marker : undefined}
      />
    </g>
  );
}

function EdgeLabel({
  edge,
  caption,
  withReason,
  dim,
}: {
  readonly edge: MeshEdge;
  readonly caption: ReturnType<typeof edgeCaptionLines>;
  readonly withReason: boolean;
  readonly dim: boolean;
}) {
  const c = edge.connection;
  // An address not dialed yet has the id `WsClient ws://host:port/_sync/ws`: its host and port say enough here.
  const id = c.id.startsWith(`${c.type} `)
    ? `${c.type} ${shortAddress(c.id.slice(c.type.length + 1))}`
    : c.id.startsWith(c.type)
      ? c.id
      : `${c.type} · ${c.id}`;
  const title = `${id} · ${TRANSPORT_NAMES[c.transport]}`;
  const reason =
    caption.reason === undefined || !withReason
      ? undefined
      : caption.reason.length > MAX_REASON
        ? `${caption.reason.slice(0, MAX_REASON - 1)}…`
        : caption.reason;
  // About 6.4 px a character of the 10.5 px monospace id and 5.6 px of the 10 px captions: enough to size the plate without measuring.
  const width = Math.max(title.length * 6.6, caption.state.length * 5.7, (reason?.length ?? 0) * 5.5) + 16;
  const height = reason === undefined ? 30 : 42;
  return (
    <g className={`mesh-edge-label mesh-edge-label-${c.state}${dim ? ' is-dim' : ''}`} transform={`translate(${edge.labelX} ${edge.labelY})`}>
      <rect x={-width / 2} y={-height / 2} width={width} height={height} rx={4} />
      <text className="mesh-edge-id" y={-height / 2 + 12}>
        {title}
      </text>
      <text className="mesh-edge-caption" y={-height / 2 + 25}>
        {caption.state}
      </text>
      {reason !== undefined && (
        <text className="mesh-edge-reason" y={-height / 2 + 37}>
          {reason}
        </text>
      )}
    </g>
  );
}

/** A peer known only through presence, beside the node it is reached through, with a dashed link to it. */
function SatelliteView({
  satellite,
  peerClock,
  labelled,
  selected,
  dim,
  onSelect,
}: {
  readonly satellite: MeshSatellite;
  readonly peerClock: number;
  readonly labelled: boolean;
  readonly selected: boolean;
  readonly dim: boolean;
  readonly onSelect: (s: MeshSelection) => void;
}) {
  const { peer, via, x, y, r } = satellite;
  const select = (): void => onSelect({ kind: 'peer', id: peer.peerKey });
  const name = peer.deviceName ?? shortKey(peer.peerKey);
  const through = peer.viaRole === 'big-peer' ? 'via Big Peer' : 'via a peer';
  const seen = peer.lastSeenAt === undefined ? 'never seen' : `last seen ${formatAgo(peer.lastSeenAt, peerClock)}`;
  const label = `${name} (${peer.peerKey}), ${through}: ${peer.online ? 'online' : 'offline'}, ${seen}`;
  const link = curve(via, { x, y, r }, 0);
  return (
    <g
      className={`mesh-satellite${peer.online ? ' is-online' : ' is-offline'}${selected ? ' is-selected' : ''}${dim ? ' is-dim' : ''}`}
      data-testid="mesh-indirect-node"
      data-peer={peer.peerKey}
      tabIndex={0}
      role="button"
      aria-label={label}
      aria-pressed={selected}
      onClick={select}
      onKeyDown={(e) => activate(e, select)}
    >
      <title>{label}</title>
      <path className="mesh-satellite-link" d={link.path} />
      <circle className="mesh-satellite-disc" cx={x} cy={y} r={r} />
      {labelled && (
        <text className="mesh-satellite-name" x={x} y={y + r + 12}>
          {name}
        </text>
      )}
    </g>
  );
}

interface NodeViewProps {
  readonly node: MeshNode;
  /** Its authentication in words, for a small or LAN peer that has one. */
  readonly auth: string | undefined;
  readonly labelled: boolean;
  readonly selected: boolean;
  readonly dim: boolean;
  readonly onSelect: (s: MeshSelection) => void;
}

function NodeView({ node, auth, labelled, selected, dim, onSelect }: NodeViewProps) {
  const select = (): void => onSelect({ kind: 'peer', id: node.id });
  const deviceName = usePeerNames().get(node.peerKey ?? '');
  const name = deviceName === undefined ? nodeName(node) : `${deviceName} (${nodeName(node)})`;
  const label = `${name}${node.appId === undefined ? '' : `, app ${node.appId}`}: ${STATE_NAMES[node.state]}${auth === undefined ? '' : `; ${auth}`}`;
  const above = node.labelSide === 'above';
  const keyText = node.peerKey !== undefined ? shortKey(node.peerKey) : shortAddress(node.address ?? '');
  const iconSize = Math.round(node.r * (node.role === 'local' ? 0.95 : 0.9));
  // The authentication mark sits on the disc's lower right, scaled with it.
  const markR = Math.max(5, Math.min(8, node.r * 0.34));
  const markAt = node.r * 0.72;
  return (
    <g
      className={`mesh-node mesh-node-${node.role} mesh-state-${node.state}${selected ? ' is-selected' : ''}${dim ? ' is-dim' : ''}`}
      transform={`translate(${node.x} ${node.y})`}
      data-testid="mesh-node"
      data-role={node.role}
      data-peer={node.peerKey}
      tabIndex={0}
      role="button"
      aria-label={label}
      aria-pressed={selected}
      onClick={select}
      onKeyDown={(e) => activate(e, select)}
    >
      <title>{`${name}${node.appId === undefined ? '' : `\napp ${node.appId}`}\n${STATE_NAMES[node.state]}${auth === undefined ? '' : `\n${auth}`}`}</title>
      <circle className="mesh-node-halo" r={node.r + 6} />
      <circle className="mesh-node-disc" r={node.r} />
      <g transform={`translate(${-iconSize / 2} ${-iconSize / 2})`} className="mesh-node-icon">
        <Icon name={ROLE_ICONS[node.role]} size={iconSize} />
      </g>
      {node.auth !== undefined && (
        <g className={`mesh-node-auth mesh-node-auth-${node.auth.state}`} transform={`translate(${markAt} ${markAt})`} data-auth={node.auth.state}>
          <circle r={markR} />
          <g transform={`translate(${-markR * 0.7} ${-markR * 0.7})`}>
            <Icon name={node.auth.state === 'verified' ? 'check' : 'x'} size={Math.round(markR * 1.4)} />
          </g>
        </g>
      )}
      {labelled && (
        <>
          <text className="mesh-node-role" y={above ? -node.r - 24 : node.r + 16} data-testid={deviceName === undefined ? undefined : 'mesh-node-name'}>
            {deviceName ?? ROLE_NAMES[node.role]}
          </text>
          <text className="mesh-node-key" y={above ? -node.r - 10 : node.r + 30}>
            {keyText}
          </text>
        </>
      )}
    </g>
  );
}
