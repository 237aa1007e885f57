/**
 * The mesh as lists, beside the graph: peers (with the connection elected for each) and every
 * connection (open first, then closed, with why and when it is dialed again). Selection is shared
 * with the graph; arrow keys move it.
 */
import { useRef } from 'react';
import type { ConnectionState, MeshConnection, MeshSnapshot } from '../../../../shared/inspector/mesh.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { PeerKey } from '../../ui/PeerKey.tsx';
import { formatCount } from '../../ui/format.ts';
import { useScrollToSelected } from '../transactions/TransactionTables.tsx';
import { useRowKeys } from '../transactions/use-row-keys.ts';
import { bestState, nodeIdOf } from './mesh-layout.ts';
import { ROLE_NAMES, STATE_NAMES, electedConnection, retryText, shortAddress, sortConnections, stateAge } from './mesh-model.ts';
import type { MeshSelection } from './slice.ts';

export const STATE_TONES: Readonly<Record<ConnectionState | 'none', Tone>> = { elected: 'ok', standby: 'info', connecting: 'warn', closed: 'danger', none: 'neutral' };

interface ListsProps {
  readonly snapshot: MeshSnapshot;
  readonly receivedAt: number;
  readonly now: number;
  readonly selected: MeshSelection;
  readonly onSelect: (selection: MeshSelection) => void;
}

export function PeersTable({ snapshot, selected, onSelect }: ListsProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const peers = [snapshot.local, ...snapshot.peers];
  const selectedId = selected?.kind === 'peer' ? selected.id : undefined;
  useScrollToSelected(scroller, selectedId);
  const onKeyDown = useRowKeys(peers, (p) => p.peerKey === selectedId, (p) => onSelect({ kind: 'peer', id: p.peerKey }));
  return (
    <div ref={scroller} className="mesh-table-scroll" tabIndex={0} onKeyDown={onKeyDown}>
      <table className="data-table mesh-table" aria-label="Peers">
        <thead>
          <tr>
            <th scope="col">Peer</th>
            <th scope="col">Role</th>
            <th scope="col">Link</th>
          </tr>
        </thead>
        <tbody>
          {peers.map((peer) => {
            const mine = snapshot.connections.filter((c) => c.remotePeerKey === peer.peerKey);
            const elected = peer.role === 'local' ? undefined : electedConnection(snapshot.connections, peer.peerKey);
            const state = peer.role === 'local' ? undefined : bestState(mine.map((c) => c.state));
            const isSelected = peer.peerKey === selectedId;
            return (
              <tr key={peer.peerKey} aria-current={isSelected || undefined} className={isSelected ? 'is-selected' : undefined} onClick={() => onSelect({ kind: 'peer', id: peer.peerKey })}>
                <td>
                  <PeerKey value={peer.peerKey} />
                  {peer.appId !== undefined && <span className="mesh-app">app {peer.appId}</span>}
                </td>
                <td className={`mesh-role mesh-role-${peer.role}`}>{ROLE_NAMES[peer.role]}</td>
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
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function ConnectionsTable({ snapshot, receivedAt, now, selected, onSelect }: ListsProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const connections = sortConnections(snapshot.connections);
  const roles = new Map(snapshot.peers.map((p) => [p.peerKey, p.role]));
  const selectedId = selected?.kind === 'connection' ? selected.id : undefined;
  const selectedPeer = selected?.kind === 'peer' ? selected.id : undefined;
  useScrollToSelected(scroller, selectedId);
  const onKeyDown = useRowKeys(connections, (c) => c.id === selectedId, (c) => onSelect({ kind: 'connection', id: c.id }));
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

interface ConnectionRowProps {
  readonly connection: MeshConnection;
  readonly role: string | undefined;
  readonly age: string;
  readonly retry: string | undefined;
  readonly selected: boolean;
  readonly related: boolean;
  readonly onSelect: (selection: MeshSelection) => void;
}

function ConnectionRow({ connection: c, role, age, retry, selected, related, onSelect }: ConnectionRowProps) {
  return (
    <tr aria-current={selected || undefined} className={`mesh-row-${c.state}${selected ? ' is-selected' : ''}${related ? ' is-related' : ''}`} onClick={() => onSelect({ kind: 'connection', id: c.id })}>
      <td>
        <span className="mesh-conn">
          <span className="mesh-direction" title={c.direction === 'dialed' ? 'Dialed by this peer' : 'Accepted by this peer'} aria-label={c.direction}>
            {c.direction === 'dialed' ? '→' : '←'}
          </span>
          <code>{c.id}</code>
        </span>
        <span className="mesh-transport">
          {c.type} · {c.direction}
        </span>
      </td>
      <td>
        {c.remotePeerKey === undefined ? (
          <span className="faint">not identified yet</span>
        ) : (
          <>
            <PeerKey value={c.remotePeerKey} copy={false} />
            {role !== undefined && <span className="mesh-app">{role === 'big-peer' ? 'Big Peer' : 'small peer'}</span>}
          </>
        )}
      </td>
      <td>
        <Badge tone={STATE_TONES[c.state]}>{c.state}</Badge>
        <span className="mesh-age">for {age}</span>
      </td>
      <td className="mesh-detail">
        <code title={c.address}>{shortAddress(c.address)}</code>
        {c.reason !== undefined && c.reason !== '' && (
          <span className={c.state === 'closed' ? 'mesh-reason is-closed' : 'mesh-reason'} title={c.reason}>
            {c.reason}
          </span>
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
