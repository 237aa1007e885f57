/**
 * The selected document's sync trace (`documents:trace`): for each remote this peer syncs with,
 * whether the remote holds this version, it is on its way, or why it is not sent; and who wrote
 * the version and in which commit it was stored here (docs/inspector.md, "Sync trace").
 */
import { NamedKey } from '../../ui/NamedKey.tsx';
import type { DocumentTrace, RemoteTrace, TraceDelivery } from '../../../../shared/inspector/trace.ts';
import { useInspector } from '../../store/index.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { Button } from '../../ui/Button.tsx';
import { formatCount, formatTimestamp } from '../../ui/format.ts';
import { KeyValueList } from '../../ui/Section.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../ui/states.tsx';

const STATES: Readonly<Record<TraceDelivery['state'], { readonly tone: Tone; readonly label: string }>> = {
  acknowledged: { tone: 'ok', label: 'acknowledged' },
  'in-flight': { tone: 'info', label: 'sent, awaiting ack' },
  pending: { tone: 'warn', label: 'pending' },
  'from-remote': { tone: 'ok', label: 'came from it' },
  'not-subscribed': { tone: 'neutral', label: 'not subscribed' },
  'not-readable': { tone: 'danger', label: 'not permitted' },
  'awaiting-subscriptions': { tone: 'info', label: 'awaiting subscriptions' },
  'session-down': { tone: 'danger', label: 'session down' },
};

/** Why, in a sentence. */
function explain(delivery: TraceDelivery): string {
  switch (delivery.state) {
    case 'acknowledged':
      return `The remote acknowledged this version (under ${queryName(delivery.query)}).`;
    case 'in-flight':
      return `Sent in update ${delivery.update} (under ${queryName(delivery.query)}); not acknowledged yet.`;
    case 'pending':
      return `The remote asks for it (${queryName(delivery.query)}); it goes in the next update.`;
    case 'from-remote':
      return 'This version came from that remote: it holds it, nothing is sent back.';
    case 'not-subscribed':
      return 'No subscription of the remote matches this document, so it is never sent there.';
    case 'not-readable':
      return `The remote may not read it: its read rules for the collection are ${delivery.rules.length === 0 ? 'none' : delivery.rules.map((r) => `“${r}”`).join(', ')}.`;
    case 'awaiting-subscriptions':
      return 'The session runs; the remote has not said what it subscribes to yet.';
    case 'session-down':
      return `No session with it${delivery.since === null ? '' : ` since ${formatTimestamp(delivery.since)}`}${delivery.reason === null ? '' : ` (${delivery.reason})`}${
        delivery.retryInMs === null ? '' : `; dialed again in ${Math.ceil(delivery.retryInMs / 1000)} s`
      }.`;
  }
}

function queryName(key: string): string {
  if (key === '*') return 'its subscription to everything';
  try {
    const [collection, query] = JSON.parse(key) as [string, { expr?: string }];
    return `its subscription to ${collection} where ${query.expr ?? 'true'}`;
  } catch {
    return `its subscription ${key}`;
  }
}

export function SyncTrace() {
  const trace = useInspector((s) => s.documents.trace);
  const reload = useInspector((s) => s.loadDetail);
  if (trace.status === 'error' && trace.error !== undefined) return <ErrorNotice compact title="Could not trace the document" error={trace.error} />;
  const value = trace.value;
  if (value === undefined) return <Loading inline>Tracing the document…</Loading>;
  return (
    <div className="trace">
      <div className="trace-toolbar">
        <TraceSummary trace={value} />
        <Button variant="ghost" icon="refresh" onClick={() => void reload()}>
          Refresh
        </Button>
      </div>
      {value.held === 'absent' ? (
        <EmptyState compact icon="evict" title="This peer does not hold the document">
          <p>Trace it on a peer that has it: that peer tells why it did or did not send it here.</p>
        </EmptyState>
      ) : value.remotes.length === 0 ? (
        <EmptyState compact title="No remote peer">
          <p>This peer syncs with no other peer now: sync is stopped, or no peer has connected yet.</p>
        </EmptyState>
      ) : (
        <table className="data-table trace-table" aria-label="Delivery to each remote peer">
          <thead>
            <tr>
              <th scope="col">Remote</th>
              <th scope="col">This version</th>
            </tr>
          </thead>
          <tbody>
            {value.remotes.map((remote) => (
              <RemoteRow key={remote.peerKey} remote={remote} />
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function TraceSummary({ trace }: { readonly trace: DocumentTrace }) {
  if (trace.held === 'absent') return <span className="faint">Not held here</span>;
  return (
    <KeyValueList
      className="trace-summary"
      items={[
        ['Held', <span key="h">{trace.held === 'live' ? 'live document' : 'tombstone'}</span>],
        ['Stored', <span key="t">txn {formatCount(trace.txnId ?? 0)} on this peer</span>],
        [
          'Last written',
          <span key="w">
            by <NamedKey value={trace.lastWriter ?? ''} /> at {formatTimestamp(trace.lastWrittenAt ?? '')}
          </span>,
        ],
      ]}
    />
  );
}

function RemoteRow({ remote }: { readonly remote: RemoteTrace }) {
  const state = STATES[remote.delivery.state];
  return (
    <tr data-state={remote.delivery.state}>
      <td>
        <Badge tone={remote.role === 'big-peer' ? 'info' : 'neutral'}>{remote.role === 'big-peer' ? 'Big Peer' : 'peer'}</Badge>{' '}
        <NamedKey value={remote.peerKey} />
      </td>
      <td>
        <Badge tone={state.tone}>{state.label}</Badge>
        <div className="trace-why">{explain(remote.delivery)}</div>
      </td>
    </tr>
  );
}
