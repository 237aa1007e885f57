/**
 * Each collection's strategy: what it evicts, the subscription it keeps, its last run (what it
 * cancelled, evicted, freed and registered again) and its next one; Dry run, Run now and Force.
 * Without a strategy, how to configure one. The answer of the last Run now or Force shows under
 * the table, a refusal with its code and what to do about it.
 */
import { useState } from 'react';
import type {
  EvictionCollectionInfo,
  EvictionOverlapInfo,
  EvictionRunInfo,
  EvictionState,
  EvictionStrategyInfo,
} from '../../../../shared/inspector/eviction.ts';
import { useInspector } from '../../store/index.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Button } from '../../ui/Button.tsx';
import { countdown, formatAgo, formatBytes, formatCount, formatDuration, formatTimestamp, plural } from '../../ui/format.ts';
import { useTicker } from '../../ui/hooks.ts';
import { Icon } from '../../ui/Icon.tsx';
import { Section } from '../../ui/Section.tsx';
import { ErrorNotice } from '../../ui/states.tsx';
import { DqlText } from '../../ui/StatementView.tsx';
import { ConfigureHelp } from './ConfigureHelp.tsx';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { OUTCOME_TONES, REFUSALS, STRATEGY_NAMES, fixedStrategySetting, forceOverrides, formatQuiet, peerNow, runSummary, strategyRule } from './model.ts';
import { RunDialog } from './RunDialog.tsx';

interface StrategiesCardProps {
  readonly state: EvictionState;
  /** When `state` arrived (the viewer's clock). */
  readonly receivedAt: number;
}

export function StrategiesCard({ state, receivedAt }: StrategiesCardProps) {
  const viewerNow = useTicker(1000);
  const now = peerNow(state.now, receivedAt, viewerNow);
  const run = useInspector((s) => s.eviction.run);
  const dryRunEviction = useInspector((s) => s.dryRunEviction);
  const [asking, setAsking] = useState<{ readonly collection: string; readonly force: boolean } | undefined>(undefined);
  const schedule = state.scheduled ? (
    <>
      Scheduled runs in <strong>{state.window} UTC</strong>, at most once a day per collection, {formatQuiet(state.quietAfterBlockedMs)} after a blocked write
      at the earliest.
    </>
  ) : (
    <>Not scheduled: strategies run only when asked (Run now).</>
  );
  return (
    <Section
      card
      className="eviction-strategies"
      title="Strategies"
      description={state.configured ? schedule : undefined}
      actions={
        state.configured ? <Badge tone={state.scheduled ? 'accent' : 'neutral'}>{state.scheduled ? `window ${state.window}` : 'manual only'}</Badge> : undefined
      }
    >
      {!state.configured ? (
        <ConfigureHelp />
      ) : (
        <table className="data-table eviction-table" aria-label="Eviction strategies">
          <colgroup>
            <col />
            <col className="col-strategy" />
            <col className="col-subscription" />
            <col className="col-last" />
            <col />
            <col />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">Collection</th>
              <th scope="col">Strategy</th>
              <th scope="col">Subscription kept</th>
              <th scope="col">Last run</th>
              <th scope="col">Next run</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {state.collections.map((c) => (
              <StrategyRow
                key={c.strategy.collection}
                status={c}
                now={now}
                scheduled={state.scheduled}
                busy={run?.collection === c.strategy.collection && run.result.status === 'loading'}
                onDryRun={() => void dryRunEviction(c.strategy.collection)}
                onRun={(force) => {
                  setAsking({ collection: c.strategy.collection, force });
                  void dryRunEviction(c.strategy.collection);
                }}
              />
            ))}
          </tbody>
        </table>
      )}
      {run !== undefined && run.result.status !== 'idle' && run.result.status !== 'loading' && (
        <div className="eviction-run-result" data-testid="run-result">
          {run.result.status === 'error' && run.result.error !== undefined ? (
            <ErrorNotice compact title={`Could not run the strategy of ${run.collection}`} error={run.result.error} />
          ) : run.result.value !== undefined ? (
            <RunResult run={run.result.value} onForce={() => setAsking({ collection: run.collection, force: true })} />
          ) : null}
        </div>
      )}
      {asking !== undefined && (
        <RunDialog
          collection={asking.collection}
          force={asking.force}
          status={state.collections.find((c) => c.strategy.collection === asking.collection)}
          onClose={() => setAsking(undefined)}
        />
      )}
    </Section>
  );
}

function StrategyRow({
  status,
  now,
  scheduled,
  busy,
  onDryRun,
  onRun,
}: {
  readonly status: EvictionCollectionInfo;
  readonly now: number;
  readonly scheduled: boolean;
  readonly busy: boolean;
  readonly onDryRun: () => void;
  readonly onRun: (force: boolean) => void;
}) {
  const { strategy, lastRun, lastRunAt, nextRunAt, subscription } = status;
  return (
    <tr>
      <td className="mono eviction-collection">{strategy.collection}</td>
      <td>
        <span className="eviction-strategy">
          <Badge tone={strategy.kind === 'big-peer' ? 'accent' : 'info'}>{STRATEGY_NAMES[strategy.kind]}</Badge>
          <span className="eviction-rule">{strategyRule(strategy)}</span>
        </span>
      </td>
      <td>
        {subscription === undefined ? <span className="faint">none now</span> : <DqlText className="eviction-statement" text={subscription} />}
        {status.overlap !== undefined && <OverlapFlag overlap={status.overlap} strategy={strategy} />}
        {status.overlap === undefined && <AppliedFix strategy={strategy} />}
      </td>
      <td>
        {lastRun !== undefined ? (
          <span className="eviction-last">
            <span>
              <Badge tone={OUTCOME_TONES[lastRun.outcome]}>{lastRun.outcome}</Badge>{' '}
              <span title={formatTimestamp(lastRun.at)}>{formatAgo(lastRun.at, now)}</span>
              {lastRun.forced && <span className="eviction-forced"> · forced</span>}
            </span>
            <span className="eviction-detail" title={runTitle(lastRun)}>
              {runSummary(lastRun)}
            </span>
          </span>
        ) : lastRunAt !== undefined ? (
          <span className="eviction-last">
            <span title={formatTimestamp(lastRunAt)}>{formatAgo(lastRunAt, now)}</span>
            <span className="eviction-detail">before the peer restarted: its details were not kept</span>
          </span>
        ) : (
          <span className="faint">never</span>
        )}
      </td>
      <td className="eviction-next">
        {!scheduled || strategy.scheduled === false ? (
          <span className="faint" title={scheduled ? 'This strategy is off the schedule (the evict-loop scenario’s own): it runs only when asked' : undefined}>
            when asked
          </span>
        ) : nextRunAt === undefined ? (
          <span className="faint">not planned</span>
        ) : (
          <span title={`${formatTimestamp(nextRunAt)} UTC`}>{nextRunAt <= now ? 'due now' : `in ${countdown(nextRunAt, now).text}`}</span>
        )}
      </td>
      <td className="actions">
        <span className="eviction-actions">
          <Button
            variant="ghost"
            icon="search"
            onClick={onDryRun}
            title={`What the next run of ${strategy.collection} would evict, keep and bring back, without running it`}
            aria-label={`Dry run ${strategy.collection}`}
          >
            Dry run
          </Button>
          <Button icon="evict" busy={busy} onClick={() => onRun(false)} aria-label={`Run now ${strategy.collection}`}>
            Run now
          </Button>
          <Button
            variant="danger"
            icon="alert"
            disabled={busy}
            onClick={() => onRun(true)}
            title="Run despite the once-a-day rule and a recent blocked write (logged as WARN); an overlap still refuses it"
            aria-label={`Force ${strategy.collection}`}
          >
            Force
          </Button>
        </span>
      </td>
    </tr>
  );
}

/**
 * A strategy whose subscription overlaps what it evicts: every run is refused until it is fixed.
 * The fix is one click away: Narrow puts an application subscription's narrowed form in its
 * place; Apply gives a local strategy whose own conditions overlap the suggested
 * `subscribeWhere` on the running peer. Its configuration (settings.json, code) is not the
 * inspector's to edit, so the fixed setting is one more click away, to keep after a restart.
 */
function OverlapFlag({ overlap, strategy }: { readonly overlap: EvictionOverlapInfo; readonly strategy: EvictionStrategyInfo }) {
  const narrow = useInspector((s) => s.eviction.narrow);
  const narrowSubscription = useInspector((s) => s.narrowOverlappingSubscription);
  const failed = narrow?.collection === overlap.collection && narrow.result.status === 'error' ? narrow.result.error : undefined;
  const fix = useInspector((s) => s.eviction.fixStrategy);
  const fixStrategy = useInspector((s) => s.fixOverlappingStrategy);
  const fixFailed = fix?.collection === overlap.collection && fix.result.status === 'error' ? fix.result.error : undefined;
  return (
    <div className="eviction-overlap" data-testid="strategy-overlap" title={overlap.message}>
      <p className="eviction-overlap-title">
        <Icon name="alert" size={14} />
        <strong>Overlap:</strong> every run is refused (<code className="error-code">eviction/overlap</code>)
      </p>
      {overlap.subscriptions.map((s) => (
        <div key={s.subscriptionId} className="eviction-overlap-fix">
          <span>
            <DqlText text={s.statement} /> <span className="muted">(#{s.subscriptionId})</span> selects what it evicts
            {s.comeBack > 0 && <> ({plural(s.comeBack, 'document')} would come back)</>}. Narrow it to <DqlText text={s.narrowed} />
          </span>
          <Button
            variant="primary"
            icon="filter"
            busy={narrow?.subscriptionId === s.subscriptionId && narrow.result.status === 'loading'}
            onClick={() => void narrowSubscription(overlap.collection, s.subscriptionId)}
            aria-label={`Narrow subscription ${s.subscriptionId}`}
            title={`Register ${s.narrowed}, then cancel ${s.statement}`}
          >
            Narrow
          </Button>
        </div>
      ))}
      {overlap.suggestedSubscribeWhere !== undefined && (
        <div className="eviction-overlap-fix">
          <span>
            Its EVICT and subscription conditions overlap. <strong>Apply</strong> sets its <code>subscribeWhere</code> to{' '}
            <code>{overlap.suggestedSubscribeWhere}</code> on the running peer, until it restarts; to keep it, put the fixed setting in its configuration (
            <code>settings.json</code>, or code).
          </span>
          <Button
            variant="primary"
            icon="filter"
            busy={fix?.collection === overlap.collection && fix.result.status === 'loading'}
            onClick={() => void fixStrategy(overlap.collection)}
            aria-label={`Apply the fixed subscribeWhere to ${overlap.collection}`}
            title={`Set subscribeWhere to ${overlap.suggestedSubscribeWhere} on the running peer`}
          >
            Apply
          </Button>
          <CopyButton
            text={fixedStrategySetting(strategy, overlap.suggestedSubscribeWhere)}
            label={`Copy the fixed strategy of ${overlap.collection} for settings.json`}
            caption="Copy fixed setting"
          />
        </div>
      )}
      {failed !== undefined && <ErrorNotice compact title="Could not narrow the subscription" error={failed} />}
      {fixFailed !== undefined && <ErrorNotice compact title="Could not fix the strategy" error={fixFailed} />}
    </div>
  );
}

/**
 * After Apply: what the running peer now has, and that it lasts until a restart, with the fixed
 * setting to copy into the configuration it came from.
 */
function AppliedFix({ strategy }: { readonly strategy: EvictionStrategyInfo }) {
  const fix = useInspector((s) => s.eviction.fixStrategy);
  if (fix?.collection !== strategy.collection || fix.result.status !== 'ready' || fix.result.value === undefined) return null;
  const { after } = fix.result.value;
  return (
    <div className="eviction-overlap-fix" role="status" data-testid="strategy-fix-applied">
      <span>
        <Icon name="check" size={14} /> Applied: <code>subscribeWhere</code> is <code>{after}</code> on the running peer, until it restarts.
      </span>
      <CopyButton
        text={fixedStrategySetting(strategy, after)}
        label={`Copy the fixed strategy of ${strategy.collection} for settings.json`}
        caption="Copy fixed setting"
      />
    </div>
  );
}

/** Every statement of a run, for its tooltip. */
function runTitle(run: EvictionRunInfo): string {
  return [
    ...run.cancelled.map((s) => `cancelled: ${s}`),
    `ran: ${run.evictStatement}${run.ttl === undefined ? '' : ` (ttl ${run.ttl})`}`,
    ...run.registered.map((s) => `registered: ${s}`),
  ].join('\n');
}

/** The answer of Run now or Force: what it did, or why it did not, plainly. */
function RunResult({ run, onForce }: { readonly run: EvictionRunInfo; readonly onForce: () => void }) {
  if (run.outcome !== 'evicted') {
    const refusal = REFUSALS[run.code ?? 'eviction/failed'];
    return (
      <div className={`eviction-refusal is-${run.outcome}`} role="alert">
        <Icon name="alert" size={16} />
        <div>
          <p className="eviction-refusal-title">
            {run.forced ? 'Forced run' : 'Run'} of <code>{run.collection}</code> {run.outcome}: {refusal.title}
            {run.code !== undefined && <code className="error-code">{run.code}</code>}
          </p>
          {run.reason !== undefined && <p>{run.reason}</p>}
          <p className="muted">{refusal.hint}</p>
        </div>
        {!run.forced && forceOverrides(run.code) && (
          <Button variant="danger" onClick={onForce}>
            Force…
          </Button>
        )}
      </div>
    );
  }
  return (
    <div className="eviction-ran" role="status">
      <Icon name="check" size={16} />
      <div>
        <p className="eviction-ran-title">
          {run.forced ? 'Forced run' : 'Run'} of <code>{run.collection}</code>: evicted <strong>{formatCount(run.evicted)}</strong>{' '}
          {run.evicted === 1 ? 'document' : 'documents'}, freed <strong>{formatBytes(run.bytesFreed)}</strong> (store {formatBytes(run.storeBytesBefore)} →{' '}
          {formatBytes(run.storeBytesAfter)}) in {formatDuration(run.durationMs)}
          {run.txnId !== undefined && <span className="muted"> · txn #{run.txnId}</span>}
          {run.kept > 0 && <span> · {formatCount(run.kept)} kept, not yet at the Big Peer</span>}
        </p>
        <ol className="eviction-steps">
          {run.cancelled.map((s) => (
            <li key={`c${s}`}>
              <span className="eviction-step">cancelled</span> <DqlText text={s} />
            </li>
          ))}
          <li>
            <span className="eviction-step">ran</span> <DqlText text={run.evictStatement} />
            {run.ttl !== undefined && <span className="muted"> with ttl = {run.ttl}</span>}
          </li>
          {run.registered.map((s) => (
            <li key={`r${s}`}>
              <span className="eviction-step">registered</span> <DqlText text={s} />
            </li>
          ))}
        </ol>
      </div>
    </div>
  );
}
