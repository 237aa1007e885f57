/**
 * The timeline: a time axis ending now, a lane per originator with a bar per commit (and an open
 * bar for the holder of the slot), and a lane of blocked waits coloured by the level of their log
 * line. Bars are placed in percentages of the window (CSSOM styles, allowed by the CSP), so the
 * view needs no measuring. Pointer users click a bar to select it; keyboard users select rows in
 * the tables below, which hold the same entries.
 */
import { usePeerNames } from '../../ui/peer-names-context.ts';
import { withPeerNames } from '../mesh/peer-names.ts';
import { memo } from 'react';
import { ORIGINATORS, type Originator } from '../../../../shared/transactions.ts';
import { formatDuration, plural } from '../../ui/format.ts';
import type { CommitBar, HolderBar, Span, TimelineLayout, WaitBar, WaitingBar } from './timeline-layout.ts';
import { clockTime, describeWait, describeWaiting, durationText, waitKey, writerName } from './transactions-model.ts';
import type { Selection } from './slice.ts';

const pct = (fraction: number): string => `${(fraction * 100).toFixed(3)}%`;
const place = (s: Span) => ({ left: pct(s.left), width: pct(s.width) });

interface TimelineProps {
  readonly layout: TimelineLayout;
  /** `1 min`. */
  readonly windowLabel: string;
  readonly selected: Selection;
  readonly frozen: boolean;
  readonly onSelect: (selection: Selection) => void;
}

export function Timeline({ layout, windowLabel, selected, frozen, onSelect }: TimelineProps) {
  const commitCount = ORIGINATORS.reduce((n, o) => n + layout.commits[o].length, 0);
  const empty = commitCount === 0 && layout.waits.length === 0;
  return (
    <div className="txn-timeline" role="group" aria-label={`Timeline of write transactions, the last ${windowLabel}`}>
      <div className="txn-axis" aria-hidden="true">
        <div className="txn-lane-label" />
        <div className="txn-track">
          {/* The last tick's label would run into "now". */}
          {layout.ticks
            .filter((tick) => tick.position < 0.94)
            .map((tick) => (
              <span key={tick.at} className="txn-tick-label" style={{ left: pct(tick.position) }}>
                {clockTime(tick.at, false)}
              </span>
            ))}
          <span className={frozen ? 'txn-now-label is-frozen' : 'txn-now-label'}>{frozen ? 'frozen' : 'now'}</span>
        </div>
      </div>
      {ORIGINATORS.map((originator) => (
        <CommitLane key={originator} originator={originator} bars={layout.commits[originator]} ticks={layout.ticks} selected={selected} onSelect={onSelect} />
      ))}
      <WaitLane layout={layout} selected={selected} onSelect={onSelect} />
      {empty && (
        <p className="txn-timeline-empty">
          <span>No writes in the last {windowLabel}. Commits and blocked waits appear here as they happen.</span>
        </p>
      )}
      <p className="visually-hidden">
        {plural(commitCount, 'commit')} and {plural(layout.waits.length, 'blocked wait')} in view; the tables below list them.
      </p>
    </div>
  );
}

function Gridlines({ ticks }: { readonly ticks: TimelineLayout['ticks'] }) {
  return (
    <>
      {ticks.map((tick) => (
        <span key={tick.at} className="txn-gridline" style={{ left: pct(tick.position) }} aria-hidden="true" />
      ))}
    </>
  );
}

const CommitLane = memo(function CommitLane({
  originator,
  bars,
  ticks,
  selected,
  onSelect,
}: {
  readonly originator: Originator;
  readonly bars: readonly (CommitBar | HolderBar)[];
  readonly ticks: TimelineLayout['ticks'];
  readonly selected: Selection;
  readonly onSelect: (selection: Selection) => void;
}) {
  return (
    <div className="txn-lane">
      <div className="txn-lane-label">
        <span className={`txn-swatch txn-${originator.toLowerCase()}`} aria-hidden="true" />
        {originator}
        <span className="txn-lane-count" title="Commits in the window; an open transaction is drawn but not counted">
          {bars.filter((bar) => bar.kind === 'commit').length}
        </span>
      </div>
      <div className="txn-track">
        <Gridlines ticks={ticks} />
        {bars.map((bar) =>
          bar.kind === 'commit' ? (
            <CommitBarView key={bar.entry.txnId} bar={bar} selected={selected?.kind === 'commit' && selected.txnId === bar.entry.txnId} onSelect={onSelect} />
          ) : (
            <HolderBarView key={`holder-${bar.txnId}`} bar={bar} selected={selected?.kind === 'commit' && selected.txnId === bar.txnId} />
          ),
        )}
      </div>
    </div>
  );
});

const CommitBarView = memo(function CommitBarView({
  bar,
  selected,
  onSelect,
}: {
  readonly bar: CommitBar;
  readonly selected: boolean;
  readonly onSelect: (selection: Selection) => void;
}) {
  const { entry } = bar;
  const names = usePeerNames();
  const title = `txn #${entry.txnId} · ${withPeerNames(writerName(entry.originator, entry.hint), names)} · ${durationText(entry.durationMs)} · started ${clockTime(entry.startedAt)}${entry.collections.length > 0 ? ` · ${entry.collections.join(', ')}` : ''} · ${plural(entry.documents, 'document')}`;
  return (
    <div
      className={`txn-bar txn-${entry.originator.toLowerCase()}${selected ? ' is-selected' : ''}`}
      style={place(bar)}
      title={title}
      data-testid="txn-bar"
      data-kind="commit"
      data-txn={entry.txnId}
      onClick={() => onSelect({ kind: 'commit', txnId: entry.txnId })}
    >
      <span className="txn-bar-label">#{entry.txnId}</span>
    </div>
  );
});

function HolderBarView({ bar, selected }: { readonly bar: HolderBar; readonly selected: boolean }) {
  const text = `txn #${bar.txnId} ${writerName(bar.originator, bar.hint)} holding the slot · ${formatDuration(bar.heldMs)}`;
  return (
    <div
      className={`txn-bar txn-${bar.originator.toLowerCase()} is-open${selected ? ' is-selected' : ''}`}
      style={place(bar)}
      title={text}
      data-testid="txn-bar"
      data-kind="holder"
      data-txn={bar.txnId}
    >
      <span className="txn-bar-label">{text}</span>
    </div>
  );
}

function WaitLane({
  layout,
  selected,
  onSelect,
}: {
  readonly layout: TimelineLayout;
  readonly selected: Selection;
  readonly onSelect: (selection: Selection) => void;
}) {
  return (
    <div className="txn-lane txn-lane-waits" style={{ height: `${layout.waitRows * 22 + 8}px` }}>
      <div className="txn-lane-label">
        <span className="txn-swatch txn-swatch-wait" aria-hidden="true" />
        Blocked waits
        <span className="txn-lane-count">{layout.waits.length}</span>
      </div>
      <div className="txn-track">
        <Gridlines ticks={layout.ticks} />
        {layout.waits.map((bar, i) =>
          bar.kind === 'wait' ? (
            <WaitBarView key={waitKey(bar.entry)} bar={bar} selected={selected?.kind === 'wait' && selected.key === waitKey(bar.entry)} onSelect={onSelect} />
          ) : (
            <WaitingBarView key={`waiting-${i}`} bar={bar} />
          ),
        )}
      </div>
    </div>
  );
}

function levelClass(level: string | null): string {
  return level === null ? 'txn-wait-unlogged' : `txn-wait-${level.toLowerCase()}`;
}

const WaitBarView = memo(function WaitBarView({
  bar,
  selected,
  onSelect,
}: {
  readonly bar: WaitBar;
  readonly selected: boolean;
  readonly onSelect: (selection: Selection) => void;
}) {
  const { entry } = bar;
  const text = describeWait(entry);
  const level = entry.logLevel === null ? 'not logged (under 10 s)' : `logged at ${entry.logLevel}`;
  return (
    <div
      className={`txn-bar txn-wait ${levelClass(entry.logLevel)}${selected ? ' is-selected' : ''}`}
      style={{ ...place(bar), top: `${bar.row * 22 + 4}px` }}
      title={`${text} · ${level} · ended ${clockTime(entry.endedAt)}`}
      data-testid="txn-wait"
      data-level={entry.logLevel ?? 'none'}
      onClick={() => onSelect({ kind: 'wait', key: waitKey(entry) })}
    >
      <span className="txn-bar-label">
        {text}
        {entry.logLevel !== null && <b> · {entry.logLevel}</b>}
      </span>
    </div>
  );
});

function WaitingBarView({ bar }: { readonly bar: WaitingBar }) {
  const text = describeWaiting(bar, bar.behindTxnId === undefined || bar.behind === undefined ? undefined : { txnId: bar.behindTxnId, originator: bar.behind });
  return (
    <div
      className={`txn-bar txn-wait is-open ${levelClass(bar.logLevel)}`}
      style={{ ...place(bar), top: `${bar.row * 22 + 4}px` }}
      title={`${text} · next line at ${bar.logLevel}`}
      data-testid="txn-wait"
      data-level={bar.logLevel}
      data-waiting="true"
    >
      <span className="txn-bar-label">
        {text} · next line {bar.logLevel}
      </span>
    </div>
  );
}
