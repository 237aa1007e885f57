/** The runs so far (the peer keeps the last 100), newest first: when, how, what each did or why it did not. */
import type { EvictionRunInfo } from '../../../../shared/inspector/eviction.ts';
import { Badge } from '../../ui/Badge.tsx';
import { formatBytes, formatCount, formatDuration, formatTimestamp } from '../../ui/format.ts';
import { Section } from '../../ui/Section.tsx';
import { EmptyState } from '../../ui/states.tsx';
import { OUTCOME_TONES } from './model.ts';

export function RunsCard({ runs }: { readonly runs: readonly EvictionRunInfo[] }) {
  const newest = [...runs].reverse();
  return (
    <Section card className="eviction-runs" title="Runs" description="Every run of a strategy since the peer started, newest first (the last 100).">
      {newest.length === 0 ? (
        <EmptyState compact icon="history" title="No run yet">
          Scheduled runs, Run now and Force appear here, refused ones too.
        </EmptyState>
      ) : (
        <table className="data-table eviction-runs-table" aria-label="Eviction runs">
          <thead>
            <tr>
              <th scope="col">Started (UTC)</th>
              <th scope="col">Collection</th>
              <th scope="col">Trigger</th>
              <th scope="col">Outcome</th>
              <th scope="col" className="num">
                Evicted
              </th>
              <th scope="col" className="num">
                Freed
              </th>
              <th scope="col" className="num">
                Kept
              </th>
              <th scope="col">Subscriptions</th>
              <th scope="col" className="num">
                Took
              </th>
            </tr>
          </thead>
          <tbody>
            {newest.map((run) => (
              <tr key={`${run.at}-${run.collection}-${run.txnId ?? run.outcome}`}>
                <td className="mono">{formatTimestamp(run.at).slice(0, 19)}</td>
                <td className="mono">{run.collection}</td>
                <td>
                  {run.trigger === 'schedule' ? 'scheduled' : 'manual'}
                  {run.forced && <Badge tone="warn">forced</Badge>}
                </td>
                <td className="eviction-outcome">
                  <Badge tone={OUTCOME_TONES[run.outcome]}>{run.outcome}</Badge>
                  {run.outcome !== 'evicted' && run.code !== undefined && <code className="error-code">{run.code}</code>}
                  {run.outcome !== 'evicted' && run.reason !== undefined && <span className="eviction-reason">{run.reason}</span>}
                </td>
                <td className="num">{run.outcome === 'evicted' ? formatCount(run.evicted) : '—'}</td>
                <td className="num" title={`store ${formatBytes(run.storeBytesBefore)} → ${formatBytes(run.storeBytesAfter)}`}>
                  {run.outcome === 'evicted' ? formatBytes(run.bytesFreed) : '—'}
                </td>
                <td className="num">{run.strategy === 'big-peer' && run.outcome === 'evicted' ? formatCount(run.kept) : '—'}</td>
                <td title={[...run.cancelled.map((s) => `cancelled ${s}`), ...run.registered.map((s) => `registered ${s}`)].join('\n')}>
                  {run.outcome === 'evicted' ? `${formatCount(run.cancelled.length)} cancelled, ${formatCount(run.registered.length)} registered` : '—'}
                </td>
                <td className="num">{formatDuration(run.durationMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
