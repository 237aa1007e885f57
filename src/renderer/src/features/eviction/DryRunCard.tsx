/**
 * What the next run of a collection would do now, without doing it: how many documents and which
 * it would evict, which it keeps (not yet at the Big Peer), the subscriptions it cancels first and
 * those through which evicted documents would come back (the loop), and whether it would be
 * refused now.
 */
import type { JsonValue } from '../../../../shared/json.ts';
import type { EvictionDryRunInfo } from '../../../../shared/inspector/eviction.ts';
import { useInspector } from '../../store/index.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Button } from '../../ui/Button.tsx';
import { compactJson, formatCount, plural } from '../../ui/format.ts';
import { Icon } from '../../ui/Icon.tsx';
import { Section } from '../../ui/Section.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../ui/states.tsx';
import { DqlText } from '../../ui/StatementView.tsx';
import { REFUSALS } from './model.ts';

export function DryRunCard({ configured }: { readonly configured: readonly string[] }) {
  const dryRun = useInspector((s) => s.eviction.dryRun);
  const dryRunEviction = useInspector((s) => s.dryRunEviction);
  const collection = dryRun?.collection;
  return (
    <Section
      card
      className="eviction-dry-run"
      title={collection === undefined ? 'Dry run' : `Dry run · ${collection}`}
      description="What the next run would do now, without doing it."
      actions={
        configured.length > 0 && (
          <span className="eviction-dry-pick" role="group" aria-label="Dry run of">
            {configured.map((c) => (
              <Button
                key={c}
                variant="ghost"
                aria-pressed={c === collection}
                onClick={() => void dryRunEviction(c)}
                busy={c === collection && dryRun?.result.status === 'loading'}
              >
                {c}
              </Button>
            ))}
          </span>
        )
      }
    >
      {dryRun === undefined ? (
        <EmptyState compact icon="search" title={configured.length === 0 ? 'No strategy to try' : 'Pick a collection'}>
          {configured.length === 0
            ? 'A dry run shows what a strategy’s next run would evict; configure one first.'
            : 'See which documents its next run would evict, which it keeps, and which would come back.'}
        </EmptyState>
      ) : dryRun.result.value === undefined ? (
        dryRun.result.status === 'error' && dryRun.result.error !== undefined ? (
          <ErrorNotice
            compact
            title={`Could not dry-run ${dryRun.collection}`}
            error={dryRun.result.error}
            onRetry={() => void dryRunEviction(dryRun.collection)}
          />
        ) : (
          <Loading inline>Asking the peer…</Loading>
        )
      ) : (
        <>
          {dryRun.result.status === 'error' && dryRun.result.error !== undefined && (
            <ErrorNotice compact title="The last dry run failed; showing the one before" error={dryRun.result.error} />
          )}
          <DryRunResult dry={dryRun.result.value} />
        </>
      )}
    </Section>
  );
}

function DryRunResult({ dry }: { readonly dry: EvictionDryRunInfo }) {
  return (
    <div className="eviction-dry" data-testid="dry-run">
      {dry.refusal !== undefined && (
        <p className="eviction-warning" role="note">
          <Icon name="alert" size={14} /> A run now would be refused: <strong>{REFUSALS[dry.refusal.code].title}</strong>{' '}
          <code className="error-code">{dry.refusal.code}</code> {dry.refusal.message}
        </p>
      )}
      <div className="eviction-dry-counts">
        <Count label="Would evict" value={dry.evict.count} tone={dry.evict.count > 0 ? 'accent' : 'neutral'} />
        <Count label="Kept (not yet at the Big Peer)" value={dry.kept.count} tone={dry.kept.count > 0 ? 'warn' : 'neutral'} />
        <Count label="Would come back" value={dry.comeBack.reduce((n, c) => Math.max(n, c.comeBack), 0)} tone={dry.comeBack.length > 0 ? 'danger' : 'ok'} />
      </div>
      <dl className="eviction-dry-list">
        <dt>EVICT</dt>
        <dd>
          <DqlText text={dry.evictStatement} />
          {dry.ttl !== undefined && <span className="muted"> with ttl = {dry.ttl}</span>}
        </dd>
        <dt>Evicted ids</dt>
        <dd>
          <IdList ids={dry.evict.ids} count={dry.evict.count} label="Documents the run would evict" empty="none: nothing is old enough" />
        </dd>
        <dt>Kept ids</dt>
        <dd>
          <IdList
            ids={dry.kept.ids}
            count={dry.kept.count}
            label="Documents the run would keep"
            empty={dry.strategy === 'big-peer' ? 'none: the Big Peer holds every flagged document' : 'none (the local strategy keeps nothing back)'}
          />
        </dd>
        <dt>Cancels first</dt>
        <dd>
          {dry.cancel.length === 0 ? (
            <span className="faint">no subscription</span>
          ) : (
            <ul className="eviction-statements">
              {dry.cancel.map((s) => (
                <li key={s}>
                  <DqlText text={s} />
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Subscribes after</dt>
        <dd>
          <DqlText text={dry.subscribeStatement} />
        </dd>
        <dt>Come back through</dt>
        <dd>
          {dry.comeBack.length === 0 ? (
            <span className="eviction-ok">
              <Icon name="check" size={14} /> no subscription left after the run matches them: nothing comes back
            </span>
          ) : (
            <ul className="eviction-statements eviction-come-back" aria-label="Subscriptions through which documents would come back">
              {dry.comeBack.map((c) => (
                <li key={c.subscriptionId}>
                  <Badge tone="danger">{plural(c.comeBack, 'document')}</Badge> <DqlText text={c.statement} />
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </div>
  );
}

function Count({ label, value, tone }: { readonly label: string; readonly value: number; readonly tone: 'neutral' | 'accent' | 'warn' | 'danger' | 'ok' }) {
  return (
    <div className={`eviction-count tone-${tone}`}>
      <strong>{formatCount(value)}</strong>
      <span>{label}</span>
    </div>
  );
}

function IdList({ ids, count, label, empty }: { readonly ids: readonly JsonValue[]; readonly count: number; readonly label: string; readonly empty: string }) {
  if (count === 0) return <span className="faint">{empty}</span>;
  return (
    <span className="eviction-ids">
      <ul aria-label={label}>
        {ids.map((id) => (
          <li key={JSON.stringify(id)}>
            <code>{typeof id === 'string' ? id : compactJson(id, 60)}</code>
          </li>
        ))}
      </ul>
      {count > ids.length && <span className="muted">and {formatCount(count - ids.length)} more</span>}
    </span>
  );
}
