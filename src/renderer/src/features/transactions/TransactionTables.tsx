/**
 * The tables under the timeline: commits, and blocked waits (with the writers waiting now on
 * top), newest first. A row is selected with a click or the arrow keys; the timeline shows it.
 */
import { TxnHint } from './TxnHint.tsx';
import { memo, useEffect, useRef, type RefObject } from 'react';
import type { BlockedWaitEntry, TransactionEntry, WriteSlotState } from '../../../../shared/inspector/transactions.ts';
import { formatCount, formatDuration } from '../../ui/format.ts';
import { EmptyState } from '../../ui/states.tsx';
import { LevelBadge } from '../logs/LevelBadge.tsx';
import { OriginatorTag } from './SlotStatus.tsx';
import type { Selection } from './slice.ts';
import { nextBlockedLogLevel } from './timeline-layout.ts';
import { clockTime, durationText, waitKey } from './transactions-model.ts';
import { useRowKeys } from './use-row-keys.ts';

/** Keeps the selected row in view when the selection comes from the timeline or the keys. */
export function useScrollToSelected(container: RefObject<HTMLElement | null>, selectedKey: string | number | undefined) {
  useEffect(() => {
    if (selectedKey === undefined) return;
    container.current?.querySelector('tr[aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [container, selectedKey]);
}

export function CommitsTable({
  commits,
  selected,
  onSelect,
}: {
  readonly commits: readonly TransactionEntry[];
  readonly selected: Selection;
  readonly onSelect: (s: Selection) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = [...commits].reverse();
  const selectedTxn = selected?.kind === 'commit' ? selected.txnId : undefined;
  useScrollToSelected(scroller, selectedTxn);
  const onKeyDown = useRowKeys(
    rows,
    (c) => c.txnId === selectedTxn,
    (c) => onSelect({ kind: 'commit', txnId: c.txnId }),
  );
  if (rows.length === 0) {
    return (
      <EmptyState compact icon="activity" title="No commits yet">
        Each write transaction of this peer shows here when it commits.
      </EmptyState>
    );
  }
  return (
    <div ref={scroller} className="txn-table-scroll" tabIndex={0} onKeyDown={onKeyDown} aria-label="Commits, newest first">
      <table className="data-table txn-table" aria-label="Commits">
        <colgroup>
          <col className="txn-col-txn" />
          <col className="txn-col-originator" />
          <col />
          <col className="txn-col-time" />
          <col className="txn-col-duration" />
          <col />
          <col className="txn-col-count" />
        </colgroup>
        <thead>
          <tr>
            <th scope="col" className="num">
              Txn
            </th>
            <th scope="col">Originator</th>
            <th scope="col">Hint</th>
            <th scope="col">Started (UTC)</th>
            <th scope="col" className="num">
              Duration
            </th>
            <th scope="col">Collections</th>
            <th scope="col" className="num">
              Documents
            </th>
            <th scope="col">Ids</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((entry) => (
            <CommitRow key={entry.txnId} entry={entry} selected={entry.txnId === selectedTxn} onSelect={onSelect} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

const CommitRow = memo(function CommitRow({
  entry,
  selected,
  onSelect,
}: {
  readonly entry: TransactionEntry;
  readonly selected: boolean;
  readonly onSelect: (s: Selection) => void;
}) {
  return (
    <tr aria-current={selected || undefined} className={selected ? 'is-selected' : undefined} onClick={() => onSelect({ kind: 'commit', txnId: entry.txnId })}>
      <td className="num mono">#{entry.txnId}</td>
      <td>
        <OriginatorTag originator={entry.originator} />
      </td>
      <td className="txn-cell-hint">{entry.hint === undefined ? <span className="faint">—</span> : <TxnHint hint={entry.hint} />}</td>
      <td className="mono muted">{clockTime(entry.startedAt)}</td>
      <td className={`num mono${entry.durationMs >= 1_000 ? ' txn-slow' : ''}`}>{durationText(entry.durationMs)}</td>
      <td className="mono txn-cell-collections" title={entry.collections.join(', ')}>
        {entry.collections.length === 0 ? <span className="faint">none</span> : entry.collections.join(', ')}
      </td>
      <td className="num mono" title={entry.sampleIds.join('\n')}>
        {formatCount(entry.documents)}
      </td>
      <td className="mono txn-cell-ids" title={entry.sampleIds.join('\n')}>
        {entry.sampleIds.length === 0 ? (
          <span className="faint">—</span>
        ) : (
          <>
            {entry.sampleIds.join(', ')}
            {entry.documents > entry.sampleIds.length && <span className="faint"> (+{formatCount(entry.documents - entry.sampleIds.length)} more)</span>}
          </>
        )}
      </td>
    </tr>
  );
});

interface WaitsTableProps {
  readonly waits: readonly BlockedWaitEntry[];
  /** The hints of the transactions still in the timeline, to name what a writer waited behind. */
  readonly hints: ReadonlyMap<number, string | undefined>;
  readonly slot: WriteSlotState | undefined;
  readonly age: number;
  readonly selected: Selection;
  readonly onSelect: (s: Selection) => void;
}

export function WaitsTable({ waits, hints, slot, age, selected, onSelect }: WaitsTableProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = [...waits].reverse();
  const selectedKey = selected?.kind === 'wait' ? selected.key : undefined;
  useScrollToSelected(scroller, selectedKey);
  const onKeyDown = useRowKeys(
    rows,
    (w) => waitKey(w) === selectedKey,
    (w) => onSelect({ kind: 'wait', key: waitKey(w) }),
  );
  const waiting = slot?.waiting ?? [];
  const holder = slot?.holder;
  if (rows.length === 0 && waiting.length === 0) {
    return (
      <EmptyState compact icon="clock" title="No blocked waits">
        A writer that finds the slot taken waits for it and shows here once it gets it. Use “Hold the write slot” to make one.
      </EmptyState>
    );
  }
  return (
    <div ref={scroller} className="txn-table-scroll" tabIndex={0} onKeyDown={onKeyDown} aria-label="Blocked waits, newest first">
      <table className="data-table txn-table" aria-label="Blocked waits">
        <colgroup>
          <col className="txn-col-originator" />
          <col />
          <col className="txn-col-duration" />
          <col className="txn-col-behind" />
          <col className="txn-col-time" />
          <col className="txn-col-level" />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Writer</th>
            <th scope="col">Hint</th>
            <th scope="col" className="num">
              Waited
            </th>
            <th scope="col">Behind</th>
            <th scope="col">Ended (UTC)</th>
            <th scope="col">Log level</th>
          </tr>
        </thead>
        <tbody>
          {waiting.map((writer, i) => {
            const waitingMs = writer.waitingMs + age;
            const level = age === 0 ? writer.logLevel : nextBlockedLogLevel(waitingMs);
            return (
              <tr key={`waiting-${i}`} className="txn-row-waiting">
                <td>
                  <OriginatorTag originator={writer.originator} />
                </td>
                <td className="txn-cell-hint">{writer.hint === undefined ? <span className="faint">—</span> : <TxnHint hint={writer.hint} />}</td>
                <td className="num mono">{formatDuration(waitingMs)}</td>
                <td>
                  {holder === undefined ? <span className="faint">—</span> : <Behind txnId={holder.txnId} originator={holder.originator} hint={holder.hint} />}
                </td>
                <td>
                  <span className="txn-live">waiting now</span>
                </td>
                <td title={`Its next "blocked" line will be ${level}`}>
                  <LevelBadge level={level} /> <span className="faint">next</span>
                </td>
              </tr>
            );
          })}
          {rows.map((entry) => (
            <WaitRow
              key={waitKey(entry)}
              entry={entry}
              behindHint={hints.get(entry.blockingTxnId)}
              selected={waitKey(entry) === selectedKey}
              onSelect={onSelect}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Behind({ txnId, originator, hint }: { readonly txnId: number; readonly originator: string; readonly hint: string | undefined }) {
  return (
    <span className="txn-behind">
      <span className="mono">#{txnId}</span> <OriginatorTag originator={originator} />
      {hint !== undefined && hint !== '' && <span className="txn-behind-hint mono"> “{hint}”</span>}
    </span>
  );
}

const WaitRow = memo(function WaitRow({
  entry,
  behindHint,
  selected,
  onSelect,
}: {
  readonly entry: BlockedWaitEntry;
  readonly behindHint: string | undefined;
  readonly selected: boolean;
  readonly onSelect: (s: Selection) => void;
}) {
  return (
    <tr aria-current={selected || undefined} className={selected ? 'is-selected' : undefined} onClick={() => onSelect({ kind: 'wait', key: waitKey(entry) })}>
      <td>
        <OriginatorTag originator={entry.originator} />
      </td>
      <td className="txn-cell-hint">{entry.hint === undefined ? <span className="faint">—</span> : <TxnHint hint={entry.hint} />}</td>
      <td className="num mono">{formatDuration(entry.waitedMs)}</td>
      <td>
        <Behind txnId={entry.blockingTxnId} originator={entry.blockedBy} hint={behindHint} />
      </td>
      <td className="mono muted">{clockTime(entry.endedAt)}</td>
      <td>
        {entry.logLevel === null ? (
          <span className="faint" title="It waited less than 10 s: no blocked line was logged">
            not logged
          </span>
        ) : (
          <LevelBadge level={entry.logLevel} />
        )}
      </td>
    </tr>
  );
});
