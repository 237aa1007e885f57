/**
 * The Transactions panel: the write slot now (polled twice a second while the panel is shown),
 * a live timeline of commits and blocked waits, and the same entries in tables; plus the QA hold
 * of the write slot.
 */
import { useEffect, useMemo, useState } from 'react';
import { ORIGINATORS } from '../../../../shared/transactions.ts';
import { useInspector } from '../../store/index.ts';
import { Button } from '../../ui/Button.tsx';
import { formatCount, formatDuration } from '../../ui/format.ts';
import { useTicker } from '../../ui/hooks.ts';
import { ErrorNotice, Loading } from '../../ui/states.tsx';
import { Segmented } from '../../ui/Segmented.tsx';
import { Tabs } from '../../ui/Tabs.tsx';
import { HoldDialog } from './HoldDialog.tsx';
import { SlotStatus } from './SlotStatus.tsx';
import { TIMELINE_WINDOWS } from './slice.ts';
import { Timeline } from './Timeline.tsx';
import { CommitsTable, WaitsTable } from './TransactionTables.tsx';
import { layoutTimeline } from './timeline-layout.ts';
import { TIMELINE_CAPACITY, durationText, summarize } from './transactions-model.ts';
import '../logs/levels.css';
import './transactions.css';

/** How often the slot is asked for while the panel is shown. */
export const SLOT_POLL_MS = 500;

export function TransactionsPanel() {
  const data = useInspector((s) => s.transactions);
  const view = useInspector((s) => s.transactionsView);
  const {
    loadTransactions,
    pollWriteSlot,
    holdWriteSlot,
    releaseWriteSlot,
    selectTransaction,
    setTimelineWindow,
    freezeTimeline,
    toggleOriginator,
    setTransactionsTab,
  } = useInspector.getState();
  const [holdOpen, setHoldOpen] = useState(false);
  const tick = useTicker(SLOT_POLL_MS);

  useEffect(() => {
    void loadTransactions();
  }, [loadTransactions]);
  useEffect(() => {
    const timer = setInterval(() => void pollWriteSlot(), SLOT_POLL_MS);
    return () => clearInterval(timer);
  }, [pollWriteSlot]);

  const now = view.frozenAt ?? tick;
  const age = data.slotAt === undefined ? 0 : Math.max(0, tick - data.slotAt);
  const commits = data.commits.items;
  const waits = data.waits.items;
  const visibleCommits = view.hidden.length === 0 ? commits : commits.filter((c) => !view.hidden.includes(c.originator));
  const visibleWaits = view.hidden.length === 0 ? waits : waits.filter((w) => !view.hidden.includes(w.originator));
  const layout = layoutTimeline({
    commits,
    waits,
    slot: view.frozenAt === undefined ? data.slot : undefined,
    slotAt: data.slotAt,
    now,
    windowMs: view.windowMs,
    hidden: view.hidden,
  });
  const summary = summarize(visibleCommits, visibleWaits, now - view.windowMs);
  const hints = useMemo(() => new Map(commits.map((c) => [c.txnId, c.hint] as const)), [commits]);
  const waitingNow = data.slot?.waiting.length ?? 0;
  const windowLabel = TIMELINE_WINDOWS.find((w) => w.ms === view.windowMs)?.label ?? formatDuration(view.windowMs);

  if (data.status === 'loading' && commits.length === 0 && data.slot === undefined) {
    return (
      <div className="txn-panel">
        <Loading>Loading transactions…</Loading>
      </div>
    );
  }

  return (
    <section className="txn-panel" aria-label="Transactions">
      <SlotStatus slot={data.slot} age={age} hold={view.hold} now={tick} onHold={() => setHoldOpen(true)} onRelease={() => void releaseWriteSlot()} />
      {data.status === 'error' && data.error !== undefined && (
        <div className="txn-notice">
          <ErrorNotice
            compact
            error={data.error}
            title="Could not load the recent transactions; new ones still arrive."
            onRetry={() => void loadTransactions()}
          />
        </div>
      )}
      {data.slotError !== undefined && (
        <div className="txn-notice">
          <ErrorNotice compact error={data.slotError} title="Could not read the write slot." />
        </div>
      )}

      <div className="txn-toolbar" role="toolbar" aria-label="Timeline controls">
        <Segmented
          label="Time window"
          options={TIMELINE_WINDOWS.map(({ ms, label }) => ({ value: ms, label }))}
          value={view.windowMs}
          onChange={setTimelineWindow}
        />
        <div className="txn-originators" role="group" aria-label="Originators shown">
          {ORIGINATORS.map((originator) => (
            <button
              key={originator}
              type="button"
              className="txn-originator-toggle"
              aria-pressed={!view.hidden.includes(originator)}
              onClick={() => toggleOriginator(originator)}
              title={`${view.hidden.includes(originator) ? 'Show' : 'Hide'} ${originator} transactions`}
            >
              <span className={`txn-swatch txn-${originator.toLowerCase()}`} aria-hidden="true" />
              {originator}
              <span className="txn-lane-count">{formatCount(summary.byOriginator[originator])}</span>
            </button>
          ))}
        </div>
        <Button
          variant="ghost"
          icon={view.frozenAt === undefined ? 'stop' : 'play'}
          aria-pressed={view.frozenAt !== undefined}
          onClick={() => freezeTimeline(view.frozenAt === undefined)}
          title="Stop the timeline moving, to look at a moment (entries keep arriving)"
        >
          {view.frozenAt === undefined ? 'Freeze' : 'Follow now'}
        </Button>
        <p className="txn-summary" aria-live="off">
          <strong>{formatCount(summary.commits)}</strong> commits
          {summary.longest !== undefined && (
            <>
              {' '}
              · longest <strong>{durationText(summary.longest.durationMs)}</strong> (#{summary.longest.txnId})
            </>
          )}{' '}
          · <strong>{formatCount(summary.waits)}</strong> blocked {summary.waits === 1 ? 'wait' : 'waits'}
          {summary.loudWaits > 0 && <span className="txn-loud"> ({formatCount(summary.loudWaits)} at WARN or ERROR)</span>}
          {waitingNow > 0 && <span className="txn-loud"> · {formatCount(waitingNow)} waiting now</span>} in the last {windowLabel}
        </p>
      </div>

      <Timeline layout={layout} windowLabel={windowLabel} selected={view.selected} frozen={view.frozenAt !== undefined} onSelect={selectTransaction} />

      <div className="txn-tables">
        <div className="txn-tables-head">
          <Tabs
            label="Transaction lists"
            value={view.tab}
            onChange={setTransactionsTab}
            idPrefix="txn"
            options={[
              { id: 'commits', label: 'Commits', count: formatCount(visibleCommits.length) },
              { id: 'waits', label: 'Blocked waits', count: formatCount(visibleWaits.length + (data.slot?.waiting.length ?? 0)) },
            ]}
          />
          <span className="txn-kept" title="The panel and the peer keep the last 1,000 of each">
            last {formatCount(TIMELINE_CAPACITY)} kept
            {data.commits.dropped + data.waits.dropped > 0 && ` · ${formatCount(data.commits.dropped + data.waits.dropped)} older let go`}
          </span>
        </div>
        <div className="txn-tables-body" role="tabpanel" id={`txn-panel-${view.tab}`} aria-labelledby={`txn-tab-${view.tab}`}>
          {view.tab === 'commits' ? (
            <CommitsTable commits={visibleCommits} selected={view.selected} onSelect={selectTransaction} />
          ) : (
            <WaitsTable waits={visibleWaits} hints={hints} slot={data.slot} age={age} selected={view.selected} onSelect={selectTransaction} />
          )}
        </div>
      </div>

      {holdOpen && (
        <HoldDialog
          initialMs={view.hold.ms}
          initialHint={view.hold.hint}
          onHold={(ms, hint) => void holdWriteSlot(ms, hint)}
          onClose={() => setHoldOpen(false)}
        />
      )}
    </section>
  );
}
