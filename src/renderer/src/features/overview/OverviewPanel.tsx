/**
 * The Overview panel: who this peer is (identity, app id, peer key, store), whether it syncs,
 * its Big Peer link and authentication (the certificate counting down each second from the
 * snapshot's `now`), and its collections with their counts.
 */
import type { OverviewSnapshot } from '../../../../shared/inspector/overview.ts';
import { useInspector } from '../../store/index.ts';
import { isFirstLoad } from '../../store/remote.ts';
import { Badge, StatusText } from '../../ui/Badge.tsx';
import { Button } from '../../ui/Button.tsx';
import { formatBytes, formatCount, formatTimestamp } from '../../ui/format.ts';
import { useTicker } from '../../ui/hooks.ts';
import { PeerKey } from '../../ui/PeerKey.tsx';
import { KeyValueList, Section } from '../../ui/Section.tsx';
import { ErrorNotice, Loading } from '../../ui/states.tsx';
import { CollectionsCard } from './CollectionsCard.tsx';
import { BIG_PEER_STATES, certificateState, IDENTITY_LABELS, peerNow } from './model.ts';
import './overview.css';

export function OverviewPanel() {
  const snapshot = useInspector((s) => s.overview.snapshot);
  const load = useInspector((s) => s.loadOverview);
  if (isFirstLoad(snapshot)) return <Loading>Loading the peer’s overview…</Loading>;
  if (snapshot.value === undefined) {
    return (
      <div className="overview">
        <ErrorNotice
          title="Could not load the overview"
          error={snapshot.error ?? { code: 'internal/unexpected', message: 'no answer' }}
          onRetry={() => void load()}
        />
      </div>
    );
  }
  return (
    <div className="panel-scroll">
      <div className="overview">
        {snapshot.status === 'error' && snapshot.error !== undefined && (
          <ErrorNotice compact title="The last refresh failed; showing the previous snapshot" error={snapshot.error} onRetry={() => void load()} />
        )}
        <div className="overview-grid">
          <IdentityCard snapshot={snapshot.value} />
          <SyncCard snapshot={snapshot.value} />
          <AuthCard snapshot={snapshot.value} receivedAt={snapshot.receivedAt ?? Date.now()} />
        </div>
        <CollectionsCard snapshot={snapshot.value} />
      </div>
    </div>
  );
}

function IdentityCard({ snapshot }: { readonly snapshot: OverviewSnapshot }) {
  return (
    <Section
      card
      title="Identity"
      actions={<Badge tone={snapshot.identityType === 'offline' ? 'neutral' : 'accent'}>{IDENTITY_LABELS[snapshot.identityType]}</Badge>}
    >
      <KeyValueList
        items={[
          ['Peer key', <PeerKey key="k" value={snapshot.peerKey} full />],
          ['App ID', snapshot.appId === undefined ? <span className="faint">none (offline)</span> : <code>{snapshot.appId}</code>],
          [
            'Store',
            snapshot.persistenceDirectory === undefined ? (
              <span className="muted">in memory (lost on exit)</span>
            ) : (
              <code>{snapshot.persistenceDirectory}</code>
            ),
          ],
          [
            'Size on disk',
            snapshot.persistenceDirectory === undefined ? (
              <span className="faint">—</span>
            ) : (
              <span className="num-text">{formatBytes(snapshot.storeSizeBytes)}</span>
            ),
          ],
          [
            'Last commit',
            <span key="t" className="num-text">
              txn {formatCount(snapshot.lastTxnId)}
            </span>,
          ],
        ]}
      />
    </Section>
  );
}

function SyncCard({ snapshot }: { readonly snapshot: OverviewSnapshot }) {
  const toggle = useInspector((s) => s.overview.syncToggle);
  const setSyncActive = useInspector((s) => s.setSyncActive);
  const link = BIG_PEER_STATES[snapshot.bigPeer.state];
  const busy = toggle.status === 'loading';
  return (
    <Section
      card
      title="Sync"
      actions={
        snapshot.syncActive ? (
          <Button icon="stop" busy={busy} onClick={() => void setSyncActive(false)}>
            Stop sync
          </Button>
        ) : (
          <Button variant="primary" icon="play" busy={busy} onClick={() => void setSyncActive(true)}>
            Start sync
          </Button>
        )
      }
    >
      <KeyValueList
        items={[
          [
            'Sync',
            <StatusText key="s" tone={snapshot.syncActive ? 'ok' : 'neutral'}>
              {snapshot.syncActive ? 'On' : 'Off'}
            </StatusText>,
          ],
          [
            'Big Peer',
            <span key="b" className="stack">
              <StatusText tone={link.tone} pulse={snapshot.bigPeer.state === 'connecting'}>
                {link.label}
              </StatusText>
              <span className="hint">{link.hint}</span>
            </span>,
          ],
          ['URL', snapshot.bigPeer.url === undefined ? <span className="faint">—</span> : <code>{snapshot.bigPeer.url}</code>],
          ['Big Peer key', snapshot.bigPeer.peerKey === undefined ? <span className="faint">not met yet</span> : <PeerKey value={snapshot.bigPeer.peerKey} />],
          ['Upload queue', <UploadQueue key="u" snapshot={snapshot} />],
          ...snapshot.remotes.map(
            (remote) =>
              [
                remote.role === 'big-peer' ? 'Last synced with the Big Peer' : `Last synced with ${remote.peerKey.slice(0, 8)}…`,
                <span key={remote.peerKey}>
                  {remote.lastSyncedAt === null ? <span className="faint">not yet</span> : formatTimestamp(remote.lastSyncedAt)}
                  {remote.inSession ? '' : ' · no session now'}
                </span>,
              ] as const,
          ),
        ]}
      />
      {toggle.status === 'error' && toggle.error !== undefined && (
        <ErrorNotice compact title={snapshot.syncActive ? 'Could not stop sync' : 'Could not start sync'} error={toggle.error} />
      )}
    </Section>
  );
}

/** Commits the Big Peer has not acknowledged yet: how many, and since when the oldest waits. */
function UploadQueue({ snapshot }: { readonly snapshot: OverviewSnapshot }) {
  const { pendingCommits, oldestPendingAt } = snapshot.upload;
  if (snapshot.bigPeer.state === 'none') return <span className="faint">no Big Peer: nothing is uploaded</span>;
  if (pendingCommits === 0) return <StatusText tone="ok">empty: the Big Peer holds every commit</StatusText>;
  return (
    <StatusText tone="warn">
      {formatCount(pendingCommits)} {pendingCommits === 1 ? 'commit' : 'commits'} not acknowledged
      {oldestPendingAt === null ? '' : `, the oldest from ${formatTimestamp(oldestPendingAt)}`}
    </StatusText>
  );
}

function AuthCard({ snapshot, receivedAt }: { readonly snapshot: OverviewSnapshot; readonly receivedAt: number }) {
  const { auth } = snapshot;
  const ticking = auth.certificateExpiresAt !== undefined;
  const viewerNow = useTicker(ticking ? 1000 : false);
  const certificate = certificateState(auth.certificateExpiresAt, peerNow(snapshot, receivedAt, viewerNow));
  return (
    <Section
      card
      title="Authentication"
      actions={
        snapshot.identityType === 'offline' ? (
          <Badge>not used</Badge>
        ) : auth.authenticated ? (
          <Badge tone="ok">Authenticated</Badge>
        ) : (
          <Badge tone="warn">Not authenticated</Badge>
        )
      }
    >
      <KeyValueList
        items={[
          ['User ID', auth.userID === undefined ? <span className="faint">—</span> : <code>{auth.userID}</code>],
          [
            'Certificate',
            <span key="c" className="stack">
              <span className={`countdown countdown-${certificate.tone}`} data-testid="certificate-countdown">
                {certificate.text}
              </span>
              {auth.certificateExpiresAt !== undefined && <span className="hint">at {formatTimestamp(auth.certificateExpiresAt)} UTC</span>}
            </span>,
          ],
        ]}
      />
      {auth.lastError !== undefined && <ErrorNotice compact title="Last authentication error" error={auth.lastError} />}
    </Section>
  );
}
