/**
 * The Subscriptions panel: this peer's sync subscriptions and each connected peer's, in the
 * spec's shape (section 2.4: `everything`, `queries` by collection), each with how many local
 * documents it matches; register and cancel from here.
 */
import type { RemoteSubscriptions, SubscriptionsSnapshot } from '../../../../shared/inspector/subscriptions.ts';
import { cancelSubscriptionCall } from '../../../../shared/inspector/statements.ts';
import { useInspector } from '../../store/index.ts';
import { isFirstLoad } from '../../store/remote.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Button, IconButton } from '../../ui/Button.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { formatCount, plural } from '../../ui/format.ts';
import { JsonView } from '../../ui/JsonView.tsx';
import { PeerKey } from '../../ui/PeerKey.tsx';
import { Section } from '../../ui/Section.tsx';
import { DqlText, StatementView } from '../../ui/StatementView.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../ui/states.tsx';
import { QueryTable } from './QueryTable.tsx';
import { RegisterForm } from './RegisterForm.tsx';
import './subscriptions.css';

export function SubscriptionsPanel() {
  const snapshot = useInspector((s) => s.subscriptions.snapshot);
  const load = useInspector((s) => s.loadSubscriptions);
  const formOpen = useInspector((s) => s.subscriptionsView.formOpen);
  const setFormOpen = useInspector((s) => s.setSubscriptionFormOpen);
  const value = snapshot.value;
  return (
    <div className="panel-scroll">
      <div className="page">
        <header className="page-header">
          <div>
            <h2 className="page-title">Subscriptions</h2>
            <p className="page-description">
              What each peer asks the others for. A query's count is the documents <em>this</em> peer holds that match it: what it has, or may send, for that
              subscription.
            </p>
          </div>
          <div className="page-actions">
            {snapshot.status === 'loading' && value !== undefined && <span className="spinner" role="status" aria-label="Refreshing" />}
            <IconButton icon="refresh" label="Refresh" onClick={() => void load()} />
            <Button variant="primary" icon="plus" onClick={() => setFormOpen(!formOpen)} aria-expanded={formOpen}>
              Register subscription
            </Button>
          </div>
        </header>
        {formOpen && (
          <Section card title="New subscription on this peer" className="register-card">
            <RegisterForm />
          </Section>
        )}
        {isFirstLoad(snapshot) ? (
          <Loading>Loading subscriptions…</Loading>
        ) : value === undefined ? (
          <ErrorNotice
            title="Could not load the subscriptions"
            error={snapshot.error ?? { code: 'internal/unexpected', message: 'no answer' }}
            onRetry={() => void load()}
          />
        ) : (
          <>
            {snapshot.status === 'error' && snapshot.error !== undefined && (
              <ErrorNotice compact title="The last refresh failed; showing the previous one" error={snapshot.error} />
            )}
            <LocalCard snapshot={value} />
            <h3 className="page-subtitle">
              Remote peers <span className="faint">{formatCount(value.remotes.length)}</span>
            </h3>
            {value.remotes.length === 0 ? (
              <div className="card">
                <EmptyState compact icon="mesh" title="No remote peer is connected">
                  <p>Peers appear here once a replication session with them runs (see the Mesh panel).</p>
                </EmptyState>
              </div>
            ) : (
              value.remotes.map((remote) => <RemoteCard key={remote.peerKey} remote={remote} />)
            )}
          </>
        )}
      </div>
      <CancelDialog />
    </div>
  );
}

function PrintedToggle({ peer }: { readonly peer: string }) {
  const printed = useInspector((s) => s.subscriptionsView.printed.includes(peer));
  const toggle = useInspector((s) => s.togglePrinted);
  return (
    <Button variant="ghost" icon="braces" aria-pressed={printed} onClick={() => toggle(peer)}>
      As printed
    </Button>
  );
}

function LocalCard({ snapshot }: { readonly snapshot: SubscriptionsSnapshot }) {
  const printed = useInspector((s) => s.subscriptionsView.printed.includes('local'));
  const confirmCancel = useInspector((s) => s.confirmCancelSubscription);
  const narrow = useInspector((s) => s.eviction.narrow);
  const narrowSubscription = useInspector((s) => s.narrowOverlappingSubscription);
  const overlapping = snapshot.local.filter((s) => s.evictionOverlap !== undefined);
  const narrowFailed = narrow !== undefined && narrow.result.status === 'error' ? narrow.result.error : undefined;
  const local = snapshot.local.toSorted((a, b) => Number(a.internal) - Number(b.internal) || a.id - b.id);
  const appCount = local.filter((s) => !s.internal).length;
  return (
    <Section
      card
      title={
        <span className="peer-title">
          This peer <Badge tone="accent">local</Badge>
          {snapshot.localSet.everything && <Badge tone="info">everything</Badge>}
        </span>
      }
      description={`${plural(appCount, 'application subscription')}, ${plural(local.length - appCount, 'internal one')}`}
      actions={<PrintedToggle peer="local" />}
    >
      {overlapping.length > 0 && !printed && (
        <div className="subscription-overlap-note" data-testid="subscription-overlap-note">
          <p>
            <strong>{plural(overlapping.length, 'subscription overlaps', 'subscriptions overlap')} what an eviction strategy evicts</strong>: the strategy’s
            runs are refused (<code className="error-code">eviction/overlap</code>) while{' '}
            {overlapping.length === 1 ? 'it stays as it is' : 'they stay as they are'}. <strong>Narrow</strong> puts the fix in place: the same subscription
            without the documents the strategy evicts.
          </p>
          {overlapping.map((s) => (
            <p key={s.id} className="muted small">
              #{s.id}: <DqlText text={s.statement} /> → <DqlText text={s.evictionOverlap?.narrowed ?? ''} />
            </p>
          ))}
          {narrowFailed !== undefined && <ErrorNotice compact title="Could not narrow the subscription" error={narrowFailed} />}
        </div>
      )}
      {printed ? (
        <JsonView value={snapshot.localSet} className="printed" />
      ) : local.length === 0 ? (
        <EmptyState compact title="No subscriptions">
          <p>This peer asks other peers for nothing yet. Register a subscription to sync a collection.</p>
        </EmptyState>
      ) : (
        <QueryTable
          label="This peer’s subscriptions"
          withLead
          withAction
          rows={local.map((s) => ({
            key: String(s.id),
            lead: `#${s.id}`,
            collection: s.collection,
            query: s.query,
            matching: s.matchingDocuments,
            badges: s.internal ? (
              <Badge title="Registered by the peer itself; it cannot be cancelled">internal</Badge>
            ) : s.evictionOverlap !== undefined ? (
              <Badge tone="danger" title={s.evictionOverlap.message}>
                overlaps eviction of {s.evictionOverlap.collection}
              </Badge>
            ) : undefined,
            action: s.internal ? undefined : (
              <span className="subscription-actions">
                {s.evictionOverlap !== undefined && (
                  <Button
                    variant="primary"
                    icon="filter"
                    busy={narrow?.subscriptionId === s.id && narrow.result.status === 'loading'}
                    onClick={() => void narrowSubscription(s.evictionOverlap?.collection ?? s.collection, s.id)}
                    aria-label={`Narrow subscription ${s.id}`}
                    title={`Register ${s.evictionOverlap.narrowed}, then cancel this one`}
                  >
                    Narrow
                  </Button>
                )}
                <Button variant="ghost" icon="x" onClick={() => confirmCancel(s)} aria-label={`Cancel subscription ${s.id}`}>
                  Cancel
                </Button>
              </span>
            ),
          }))}
        />
      )}
    </Section>
  );
}

function RemoteCard({ remote }: { readonly remote: RemoteSubscriptions }) {
  const printed = useInspector((s) => s.subscriptionsView.printed.includes(remote.peerKey));
  return (
    <Section
      card
      headingLevel={3}
      title={
        <span className="peer-title">
          <Badge tone={remote.role === 'big-peer' ? 'info' : 'neutral'}>{remote.role === 'big-peer' ? 'Big Peer' : 'Small peer'}</Badge>
          <PeerKey value={remote.peerKey} />
          {remote.set?.everything === true && <Badge tone="info">everything</Badge>}
        </span>
      }
      description={remote.set === undefined ? 'has not sent its subscription set yet' : `${plural(remote.matchingDocuments, 'local document')} match its set`}
      actions={remote.set === undefined ? undefined : <PrintedToggle peer={remote.peerKey} />}
    >
      {remote.set === undefined ? (
        <p className="muted small">Waiting for its set: it arrives once the session's handshake is done.</p>
      ) : printed ? (
        <JsonView value={remote.set} className="printed" />
      ) : remote.set.everything ? (
        <p className="everything-note">
          <strong>everything</strong>: all documents of all collections — every one of the {formatCount(remote.matchingDocuments)} live documents here.
          {remote.queries.length > 0 && ' It also lists these queries:'}
        </p>
      ) : remote.queries.length === 0 ? (
        <p className="muted small">An empty set: it asks for nothing.</p>
      ) : null}
      {remote.set !== undefined && !printed && remote.queries.length > 0 && (
        <QueryTable
          label={`Subscriptions of ${remote.peerKey}`}
          rows={remote.queries.map((q, i) => ({ key: `${q.collection}-${i}`, collection: q.collection, query: q.query, matching: q.matchingDocuments }))}
        />
      )}
    </Section>
  );
}

function CancelDialog() {
  const cancelling = useInspector((s) => s.subscriptionsView.cancelling);
  const confirm = useInspector((s) => s.confirmCancelSubscription);
  const cancel = useInspector((s) => s.cancelSubscription);
  const call = useInspector((s) => s.subscriptions.cancel);
  if (cancelling === undefined) return null;
  return (
    <Dialog
      size="md"
      title={`Cancel subscription #${cancelling.id}?`}
      description="This peer stops asking other peers for these documents. The documents it holds stay (evict them to drop them)."
      onClose={() => confirm(undefined)}
      footer={
        <>
          <span className="dialog-footer-note">
            <code>{cancelSubscriptionCall(cancelling.id)}</code>
          </span>
          <Button onClick={() => confirm(undefined)}>Keep it</Button>
          <Button variant="danger" className="btn-solid" busy={call.status === 'loading'} onClick={() => void cancel(cancelling.id)}>
            Cancel subscription
          </Button>
        </>
      }
    >
      <StatementView label="Subscription" statement={cancelling.statement} args={cancelling.args} />
      {call.status === 'error' && call.error !== undefined && <ErrorNotice compact title="The peer did not cancel it" error={call.error} />}
    </Dialog>
  );
}
