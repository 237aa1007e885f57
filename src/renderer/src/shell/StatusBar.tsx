/** The status bar: the link, who the peer is, sync and Big Peer state, the last commit, the store size. */
import { isReadOnly } from '../client/index.ts';
import { NamedKey } from '../ui/NamedKey.tsx';
import { useInspector } from '../store/index.ts';
import { StatusDot, type Tone } from '../ui/Badge.tsx';
import { formatBytes, formatCount } from '../ui/format.ts';

const BIG_PEER: Record<string, { tone: Tone; text: string }> = {
  none: { tone: 'neutral', text: 'no Big Peer' },
  stopped: { tone: 'neutral', text: 'Big Peer: sync stopped' },
  connecting: { tone: 'warn', text: 'Big Peer: connecting' },
  connected: { tone: 'ok', text: 'Big Peer: connected' },
};

export function StatusBar() {
  const link = useInspector((s) => s.link);
  const snapshot = useInspector((s) => s.overview.snapshot.value);
  const desktop = typeof window !== 'undefined' ? window.syncmesh : undefined;
  const bigPeer = snapshot === undefined ? undefined : BIG_PEER[snapshot.bigPeer.state];
  return (
    <footer className="statusbar" aria-label="Status">
      <span className="statusbar-item" role="status">
        <StatusDot tone={link === 'open' ? 'ok' : link === 'connecting' ? 'warn' : 'danger'} pulse={link !== 'open'} />
        {link === 'open' ? 'Linked to peer' : link === 'connecting' ? 'Connecting…' : 'Link down'}
      </span>
      {snapshot !== undefined && (
        <>
          <span className="statusbar-item" title={snapshot.peerKey}>
            Peer <NamedKey value={snapshot.peerKey} titled={false} />
          </span>
          {snapshot.appId !== undefined && (
            <span className="statusbar-item">
              App <code>{snapshot.appId}</code>
            </span>
          )}
          <span className="statusbar-item">
            <StatusDot tone={snapshot.syncActive ? 'ok' : 'neutral'} />
            Sync {snapshot.syncActive ? 'on' : 'off'}
          </span>
          {bigPeer !== undefined && (
            <span className="statusbar-item">
              <StatusDot tone={bigPeer.tone} pulse={snapshot.bigPeer.state === 'connecting'} />
              {bigPeer.text}
            </span>
          )}
        </>
      )}
      <span className="statusbar-spacer" />
      {isReadOnly() && (
        <span className="statusbar-item" title="This inspector is served read-only: it shows the peer, and the peer refuses every change made through it.">
          <StatusDot tone="warn" />
          Read-only
        </span>
      )}
      {snapshot !== undefined && (
        <>
          <span className="statusbar-item">Last txn {formatCount(snapshot.lastTxnId)}</span>
          <span className="statusbar-item">Store {snapshot.persistenceDirectory === undefined ? 'in memory' : formatBytes(snapshot.storeSizeBytes)}</span>
        </>
      )}
      <span className="statusbar-item">{desktop === undefined ? 'Browser' : `Electron ${desktop.versions.electron}`}</span>
    </footer>
  );
}
