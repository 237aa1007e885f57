/**
 * The Mesh panel's second list tab: each peer-to-peer transport asked for with its condition and
 * why, and every peer seen on the LAN (the ones this peer does not sync with too, with why),
 * present or gone, with its link and its authentication. Selecting a LAN peer selects it in the
 * graph too.
 */
import { clockTime } from '../transactions/transactions-model.ts';
import { useRef } from 'react';
import type { MeshLanPeer, MeshSnapshot } from '../../../../shared/inspector/mesh.ts';
import { Badge } from '../../ui/Badge.tsx';
import { PeerKey } from '../../ui/PeerKey.tsx';
import { formatAgo, formatCount, formatDuration } from '../../ui/format.ts';
import { EmptyState } from '../../ui/states.tsx';
import { useScrollToSelected } from '../transactions/TransactionTables.tsx';
import { useRowKeys } from '../transactions/use-row-keys.ts';
import { AuthState } from './AuthState.tsx';
import { CONDITION_TONES, PEER_TO_PEER_NAMES, advertisedText, lanEmptyWords, lanPeerStatus, sortLanPeers } from './lan-model.ts';
import { shortAddress } from './mesh-model.ts';
import type { MeshSelection } from './slice.ts';

interface LanListsProps {
  readonly snapshot: MeshSnapshot;
  /** The peer's clock now. */
  readonly peerClock: number;
  readonly selected: MeshSelection;
  readonly onSelect: (selection: MeshSelection) => void;
}

export function LanLists({ snapshot, peerClock, selected, onSelect }: LanListsProps) {
  return (
    <>
      <section className="mesh-list-section mesh-list-fit" aria-label="Transports">
        <h2 className="mesh-list-title">
          Peer-to-peer transports <span className="mesh-list-count">{formatCount(snapshot.transports.length)}</span>
        </h2>
        <TransportsTable snapshot={snapshot} peerClock={peerClock} />
      </section>
      <section className="mesh-list-section mesh-list-grow" aria-label="Seen on the LAN">
        <h2 className="mesh-list-title">
          Seen on the LAN <span className="mesh-list-count">{formatCount(snapshot.lanPeers.length)}</span>
        </h2>
        <LanPeersTable snapshot={snapshot} peerClock={peerClock} selected={selected} onSelect={onSelect} />
      </section>
    </>
  );
}

function TransportsTable({ snapshot, peerClock }: { readonly snapshot: MeshSnapshot; readonly peerClock: number }) {
  if (snapshot.transports.length === 0) {
    return (
      <EmptyState compact icon="unlink" title="No peer-to-peer transport is on">
        This peer syncs over WebSocket only: the Big Peer, <code>sync.connect</code> and <code>sync.listen</code>. Turn LAN on with{' '}
        <code>sync.peerToPeer.lan</code>, or every transport with <code>TransportConfig.enableAllPeerToPeer()</code>.
      </EmptyState>
    );
  }
  return (
    <div className="mesh-table-scroll">
      <table className="data-table mesh-table" aria-label="Transports">
        <thead>
          <tr>
            <th scope="col">Transport</th>
            <th scope="col">Condition</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {snapshot.transports.map((t) => (
            <tr key={t.transport} className={`mesh-condition-${t.condition}`}>
              <td className="mesh-transport-name">{PEER_TO_PEER_NAMES[t.transport]}</td>
              <td>
                <Badge tone={CONDITION_TONES[t.condition]}>{t.condition}</Badge>
                <span className="mesh-age">for {formatDuration(Math.max(0, peerClock - t.since))}</span>
              </td>
              <td className="mesh-wrap">
                {t.reason}
                {t.warning !== undefined && (
                  <span className="mesh-reason is-closed" role="alert" data-testid="lan-warning">
                    {t.warning}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Present on the LAN and reachable: what the tab counts. */
function isOnline(peer: MeshLanPeer): boolean {
  return peer.present && peer.unreachable === undefined;
}

/** `unreachable since 12:04:05, 5 attempts`. */
export function unreachableText(u: { readonly since: number; readonly attempts: number }): string {
  return `unreachable since ${clockTime(u.since, false)}, ${formatCount(u.attempts)} attempts`;
}

function LanPeersTable({ snapshot, peerClock, selected, onSelect }: LanListsProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const peers = sortLanPeers(snapshot.lanPeers);
  const selectedKey = selected?.kind === 'peer' ? selected.id : undefined;
  useScrollToSelected(scroller, selectedKey);
  const selectable = peers.filter((p): p is MeshLanPeer & { peerKey: string } => p.peerKey !== undefined);
  const onKeyDown = useRowKeys(
    selectable,
    (p) => p.peerKey === selectedKey,
    (p) => onSelect({ kind: 'peer', id: p.peerKey }),
  );
  if (peers.length === 0) {
    const { title, hint } = lanEmptyWords(snapshot.transports);
    return (
      <EmptyState compact icon="search" title={title}>
        {hint}
      </EmptyState>
    );
  }
  return (
    <div ref={scroller} className="mesh-table-scroll" tabIndex={0} onKeyDown={onKeyDown}>
      <table className="data-table mesh-table" aria-label="Seen on the LAN">
        <thead>
          <tr>
            <th scope="col">Peer</th>
            <th scope="col">Sync · authentication</th>
            <th scope="col">Seen</th>
          </tr>
        </thead>
        <tbody>
          {peers.map((peer) => {
            const status = lanPeerStatus(peer, snapshot.connections);
            const isSelected = peer.peerKey !== undefined && peer.peerKey === selectedKey;
            const key = peer.peerKey;
            return (
              <tr
                key={peer.name}
                aria-current={isSelected || undefined}
                className={`${isOnline(peer) ? 'mesh-lan-present' : 'mesh-lan-gone'}${isSelected ? ' is-selected' : ''}`}
                onClick={key === undefined ? undefined : () => onSelect({ kind: 'peer', id: key })}
              >
                <td>
                  {key !== undefined ? <PeerKey value={key} /> : <code title={peer.name}>{peer.name}</code>}
                  <span className="mesh-app">{advertisedText(peer)}</span>
                  <code className="mesh-lan-url" title={peer.url}>
                    {shortAddress(peer.url)}
                  </code>
                </td>
                <td className="mesh-wrap">
                  <Badge tone={status.tone}>{status.label}</Badge>
                  {status.detail !== undefined && <span className={peer.compatible ? 'mesh-reason' : 'mesh-reason is-ignored'}>{status.detail}</span>}
                  {peer.unreachable !== undefined && (
                    <span className="mesh-reason is-closed" data-testid="lan-unreachable">
                      {unreachableText(peer.unreachable)}
                    </span>
                  )}
                  {peer.auth !== undefined && <AuthState auth={peer.auth} peerClock={peerClock} />}
                </td>
                <td>
                  <Badge
                    tone={isOnline(peer) ? 'ok' : 'neutral'}
                    title={
                      peer.unreachable !== undefined
                        ? 'Still advertised, but its address cannot be reached: it vanished without a goodbye, or advertises an address this peer cannot reach'
                        : peer.present
                          ? 'Still advertised on the LAN'
                          : 'No longer advertised: it said goodbye, its record expired, or sync stopped'
                    }
                  >
                    {peer.unreachable !== undefined ? 'offline' : peer.present ? 'present' : 'gone'}
                  </Badge>
                  <span className="mesh-age">
                    {isOnline(peer) ? 'seen' : 'last seen'} {formatAgo(peer.lastSeenAt, peerClock)}
                  </span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
