/**
 * The mesh as lists, beside the graph: peers (with a small peer's authentication and the
 * connection elected for each) and every connection (open first, then closed, with its transport,
 * why it closed or was refused, and when it is dialed again). Selection is shared with the graph;
 * arrow keys move it.
 */
import { useRef } from 'react';
import type { ConnectionState, MeshConnection, MeshIndirectPeer, MeshSnapshot } from '../../../../shared/inspector/mesh.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { PeerKey } from '../../ui/PeerKey.tsx';
import { formatAgo, formatCount } from '../../ui/format.ts';
import { useScrollToSelected } from '../transactions/TransactionTables.tsx';
import { useRowKeys } from '../transactions/use-row-keys.ts';
import { clockTime } from '../transactions/transactions-model.ts';
import { bestState, nodeIdOf } from './mesh-layout.ts';
import { AuthState } from './AuthState.tsx';
import {
  ROLE_NAMES,
  STATE_NAMES,
  TRANSPORT_NAMES,
  electedConnection,
  peerNow,
  refusalTitle,
  retryText,
  shortAddress,
  sortConnections,
  stateAge,
} from './mesh-model.ts';
import type { MeshSelection } from './slice.ts';

export const STATE_TONES: Readonly<Record<ConnectionState | 'none', Tone>> = {
  elected: 'ok',
  standby: 'info',
  connecting: 'warn',
  closed: 'danger',
  none: 'neutral',
};

interface ListsProps {
  readonly snapshot: MeshSnapshot;
  readonly receivedAt: number;
  readonly now: number;
  readonly selected: MeshSelection;
  readonly onSelect: (selection: MeshSelection) => void;
}

export function PeersTable({ snapshot, receivedAt, now, selected, onSelect }: ListsProps) {
  const peerClock = peerNow(snapshot, receivedAt, now);
  const scroller = useRef<HTMLDivElement>(null);
  const peers = [snapshot.local, ...snapshot.peers];
  const selectedId = selected?.kind === 'peer' ? selected.id : undefined;
  useScrollToSelected(scroller, selectedId);
  const onKeyDown = useRowKeys(
    peers,
    (p) => p.peerKey === selectedId,
    (p) => onSelect({ kind: 'peer', id: p.peerKey }),
  );
  return (
    <div ref={scroller} className="mesh-table-scroll" tabIndex={0} onKeyDown={onKeyDown}>
      <table className="data-table mesh-table" aria-label="Peers">
        <thead>
          <tr>
            <th scope="col">Peer</th>
            <th scope="col">Role · authentication</th>
            <th scope="col">Link</th>
          </tr>
        </thead>
        <tbody>
          {peers.map((peer) => {
            const mine = snapshot.connections.filter((c) => nodeIdOf(c) === peer.peerKey);
            const elected = peer.role === 'local' ? undefined : electedConnection(snapshot.connections, peer.peerKey);
            const state = peer.role === 'local' ? undefined : bestState(mine.map((c) => c.state));
            const isSelected = peer.peerKey === selectedId;
            return (
              <tr
                key={peer.peerKey}
                aria-current={isSelected || undefined}
                className={isSelected ? 'is-selected' : undefined}
                onClick={() => onSelect({ kind: 'peer', id: peer.peerKey })}
              >
                <td>
                  <PeerKey value={peer.peerKey} />
                  {peer.appId !== undefined && <span className="mesh-app">app {peer.appId}</span>}
                </td>
                <td className="mesh-wrap">
                  <span className={`mesh-role mesh-role-${peer.role}`}>{ROLE_NAMES[peer.role]}</span>
                  {peer.auth !== undefined && <AuthState auth={peer.auth} peerClock={peerClock} />}
                </td>
                <td>
                  {state === undefined ? (
                    <span className="faint">—</span>
                  ) : elected !== undefined ? (
                    <span className="mesh-link">
                      <Badge tone="ok">elected</Badge> <code>{elected.id}</code>
                    </span>
                  ) : (
                    <Badge tone={STATE_TONES[state]}>{STATE_NAMES[state].toLowerCase()}</Badge>
                  )}
                  {state === 'closed' && <DownSince connections={mine} receivedAt={receivedAt} now={now} />}
                  {peer.role !== 'local' && (
                    <span className="mesh-app" title="When an update was last exchanged with it: sent and acknowledged, or received and merged">
                      {peer.lastSyncedAt === null ? 'not synced yet' : `synced ${formatAgo(peer.lastSyncedAt, peerClock)}`}
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
          {snapshot.indirect.map((peer) => (
            <IndirectRow
              key={`indirect:${peer.peerKey}`}
              peer={peer}
              peerClock={peerClock}
              selected={peer.peerKey === selectedId}
              onSelect={() => onSelect({ kind: 'peer', id: peer.peerKey })}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A peer known only from its presence document: whom it is reached through, and when it was last heard of. */
function IndirectRow({
  peer,
  peerClock,
  selected,
  onSelect,
}: {
  readonly peer: MeshIndirectPeer;
  readonly peerClock: number;
  readonly selected: boolean;
  readonly onSelect: () => void;
}) {
  const via = peer.viaRole === 'big-peer' ? 'via Big Peer' : peer.via !== undefined ? 'via a peer' : 'not linked to this peer';
  const seen = peer.lastSeenAt === undefined ? 'never seen' : `last seen ${formatAgo(peer.lastSeenAt, peerClock)}`;
  return (
    <tr
      aria-current={selected || undefined}
      className={`mesh-row-indirect${selected ? ' is-selected' : ''}`}
      data-testid="mesh-indirect-peer"
      data-peer={peer.peerKey}
      onClick={onSelect}
    >
      <td>
        <PeerKey value={peer.peerKey} />
        {peer.appMetadata !== undefined && Object.keys(peer.appMetadata).length > 0 && (
          <span className="mesh-app">
            {Object.entries(peer.appMetadata)
              .map(([k, v]) => `${k} ${v}`)
              .join(' · ')}
          </span>
        )}
      </td>
      <td className="mesh-wrap">
        <span className={`mesh-role mesh-role-${peer.role ?? 'small-peer'}`}>{peer.role === 'big-peer' ? 'Big Peer' : 'Small peer'}</span>
        <span className="mesh-app" title={peer.via === undefined ? undefined : `Reached through ${peer.via}: this peer has no session with it`}>
          {via}
        </span>
      </td>
      <td>
        <Badge tone={peer.online ? 'ok' : 'neutral'}>{peer.online ? 'online' : 'offline'}</Badge>
        <span className="mesh-app" title="When it last wrote its presence document (on its own clock)">
          {seen}
        </span>
      </td>
    </tr>
  );
}

export function ConnectionsTable({ snapshot, receivedAt, now, selected, onSelect }: ListsProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const connections = sortConnections(snapshot.connections);
  const roles = new Map(snapshot.peers.map((p) => [p.peerKey, p.role]));
  const lanAuth = new Map(snapshot.lanPeers.map((p) => [p.peerKey, p.auth]));
  const selectedId = selected?.kind === 'connection' ? selected.id : undefined;
  const selectedPeer = selected?.kind === 'peer' ? selected.id : undefined;
  useScrollToSelected(scroller, selectedId);
  const onKeyDown = useRowKeys(
    connections,
    (c) => c.id === selectedId,
    (c) => onSelect({ kind: 'connection', id: c.id }),
  );
  if (connections.length === 0) {
    return <p className="mesh-none">No connections yet.</p>;
  }
  return (
    <div ref={scroller} className="mesh-table-scroll" tabIndex={0} onKeyDown={onKeyDown}>
      <table className="data-table mesh-table" aria-label="Connections">
        <thead>
          <tr>
            <th scope="col">Connection</th>
            <th scope="col">Peer</th>
            <th scope="col">State</th>
            <th scope="col">Address · reason</th>
          </tr>
        </thead>
        <tbody>
          {connections.map((c) => (
            <ConnectionRow
              key={c.id}
              connection={c}
              role={c.remotePeerKey === undefined ? undefined : roles.get(c.remotePeerKey)}
              advertisedRefused={c.advertisedPeerKey !== undefined && lanAuth.get(c.advertisedPeerKey)?.state === 'refused'}
              age={stateAge(c, snapshot, receivedAt, now)}
              retry={retryText(c, receivedAt, now)}
              selected={c.id === selectedId}
              related={selectedPeer !== undefined && nodeIdOf(c) === selectedPeer}
              onSelect={onSelect}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** For a peer with no open connection: since when it is down (the oldest of its closed connections), and when it is dialed again. */
function DownSince({ connections, receivedAt, now }: { readonly connections: readonly MeshConnection[]; readonly receivedAt: number; readonly now: number }) {
  const closed = connections.filter((c) => c.state === 'closed');
  if (closed.length === 0) return null;
  const since = Math.min(...closed.map((c) => c.since));
  const latest = closed.reduce((a, c) => (c.since > a.since ? c : a));
  const retry = retryText(latest, receivedAt, now);
  return (
    <span className="mesh-app">
      down since {clockTime(since, false)}
      {retry === undefined ? '' : ` · ${retry}`}
    </span>
  );
}

interface ConnectionRowProps {
  readonly connection: MeshConnection;
  readonly role: string | undefined;
  /** The LAN peer this address advertised was refused (by this connection or another). */
  readonly advertisedRefused: boolean;
  readonly age: string;
  readonly retry: string | undefined;
  readonly selected: boolean;
  readonly related: boolean;
  readonly onSelect: (selection: MeshSelection) => void;
}

function ConnectionRow({ connection: c, role, advertisedRefused, age, retry, selected, related, onSelect }: ConnectionRowProps) {
  return (
    <tr
      aria-current={selected || undefined}
      className={`mesh-row-${c.state}${selected ? ' is-selected' : ''}${related ? ' is-related' : ''}`}
      onClick={() => onSelect({ kind: 'connection', id: c.id })}
    >
      <td>
        <span className="mesh-conn">
          <span className="mesh-direction" title={c.direction === 'dialed' ? 'Dialed by this peer' : 'Accepted by this peer'} aria-label={c.direction}>
            {c.direction === 'dialed' ? '→' : '←'}
          </span>
          <code>{c.id}</code>
        </span>
        <span className="mesh-transport">
          <span>
            {c.type} · {c.direction}
          </span>{' '}
          <span
            className={`mesh-via mesh-via-${c.transport === 'LAN' ? 'lan' : 'ws'}`}
            title={c.transport === 'LAN' ? 'Found by LAN discovery' : 'A configured address or listener'}
          >
            {TRANSPORT_NAMES[c.transport]}
          </span>
        </span>
      </td>
      <td>
        {c.remotePeerKey === undefined && c.advertisedPeerKey !== undefined ? (
          <>
            <PeerKey value={c.advertisedPeerKey} copy={false} />
            <span className="mesh-app">{advertisedRefused ? 'LAN peer, refused' : 'LAN peer, not verified yet'}</span>
          </>
        ) : c.remotePeerKey === undefined ? (
          <span className="faint">{c.state === 'closed' ? 'not identified' : 'not identified yet'}</span>
        ) : (
          <>
            <PeerKey value={c.remotePeerKey} copy={false} />
            {role !== undefined && <span className="mesh-app">{role === 'big-peer' ? 'Big Peer' : 'small peer'}</span>}
          </>
        )}
      </td>
      <td>
        <Badge tone={STATE_TONES[c.state]}>{c.refusal === undefined ? c.state : 'refused'}</Badge>
        <span className="mesh-age">for {age}</span>
      </td>
      <td className="mesh-detail">
        <code title={c.address}>{shortAddress(c.address)}</code>
        {c.refusal !== undefined ? (
          <>
            <span className="mesh-refusal">{refusalTitle(c.refusal)}</span>
            {c.refusal.reason !== '' && <span className="mesh-reason is-closed">{c.refusal.reason}</span>}
          </>
        ) : (
          c.reason !== undefined && c.reason !== '' && <span className={c.state === 'closed' ? 'mesh-reason is-closed' : 'mesh-reason'}>{c.reason}</span>
        )}
        {retry !== undefined && <span className="mesh-retry">{retry}</span>}
      </td>
    </tr>
  );
}

export function connectionCounts(connections: readonly MeshConnection[]): string {
  const open = connections.filter((c) => c.state !== 'closed').length;
  return `${formatCount(open)} open · ${formatCount(connections.length - open)} closed`;
}
