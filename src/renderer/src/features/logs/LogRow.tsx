/** One log entry in the list: time, level, component, message; expanded, its structured fields. */
import { usePeerNames } from '../../ui/peer-names-context.ts';
import { memo, type MouseEvent } from 'react';
import { renderLogLine, type LogEntry } from '../../../../shared/log.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { LevelBadge } from './LevelBadge.tsx';
import { splitByRanges, type CompiledFilter } from './log-filter.ts';
import { fieldText, timeOfDay } from './log-export.ts';

interface LogRowProps {
  readonly entry: LogEntry;
  readonly ordinal: number;
  /** Position in the filtered view (for aria-rowindex and the virtualizer). */
  readonly index: number;
  readonly start: number;
  readonly expanded: boolean;
  readonly active: boolean;
  readonly ranges: CompiledFilter['ranges'];
  /** The virtualizer's measure, for an expanded row only (a collapsed row is ROW_HEIGHT, unmeasured). */
  readonly measure: ((element: HTMLElement | null) => void) | undefined;
  readonly onToggle: (ordinal: number, index: number) => void;
}

function Highlighted({ text, ranges }: { readonly text: string; readonly ranges: CompiledFilter['ranges'] }) {
  const found = ranges(text);
  if (found.length === 0) return text;
  return splitByRanges(text, found).map((piece, i) => (piece.hit ? <mark key={i}>{piece.text}</mark> : piece.text));
}

export const LogRow = memo(function LogRow({ entry, ordinal, index, start, expanded, active, ranges, measure, onToggle }: LogRowProps) {
  const toggle = (event: MouseEvent): void => {
    // Selecting text in a row is not a click on it.
    const selection = window.getSelection();
    if (selection !== null && !selection.isCollapsed && event.currentTarget.contains(selection.anchorNode)) return;
    onToggle(ordinal, index);
  };
  const level = entry.level.toLowerCase();
  return (
    <div
      ref={measure}
      id={`log-row-${ordinal}`}
      role="row"
      aria-rowindex={index + 2}
      data-index={index}
      className={`log-row log-row-${level}${active ? ' is-active' : ''}${expanded ? ' is-expanded' : ''}`}
      style={{ transform: `translateY(${start}px)` }}
      onClick={toggle}
    >
      <div className="log-line">
        <span role="gridcell" className="log-cell log-cell-toggle">
          <button
            type="button"
            tabIndex={-1}
            className="log-chevron"
            aria-expanded={expanded}
            aria-label={`${expanded ? 'Hide' : 'Show'} the fields of entry ${entry.seq}`}
            onClick={(e) => {
              e.stopPropagation();
              onToggle(ordinal, index);
            }}
          >
            ›
          </button>
        </span>
        <span role="gridcell" className="log-cell log-cell-time" title={entry.timestamp}>
          {timeOfDay(entry.timestamp)}
        </span>
        <span role="gridcell" className="log-cell log-cell-level">
          <LevelBadge level={entry.level} />
        </span>
        <span role="gridcell" className="log-cell log-cell-component" title={entry.component}>
          {entry.component}
        </span>
        <span role="gridcell" className="log-cell log-cell-message">
          <Highlighted text={entry.message} ranges={ranges} />
        </span>
      </div>
      {expanded && <LogDetails entry={entry} ranges={ranges} />}
    </div>
  );
});

function LogDetails({ entry, ranges }: { readonly entry: LogEntry; readonly ranges: CompiledFilter['ranges'] }) {
  const fields = Object.entries(entry.fields);
  const line = renderLogLine(entry);
  // A field holding a peer key names the peer in its tooltip (its presence document's device name).
  const names = usePeerNames();
  const nameOf = (value: unknown): string | undefined => (typeof value === 'string' ? names.get(value) : undefined);
  return (
    // Clicks inside the details select text and copy; they do not fold the row.
    <div className="log-details" role="gridcell" aria-colspan={5} onClick={(e) => e.stopPropagation()}>
      <p className="log-full-message">
        <Highlighted text={entry.message} ranges={ranges} />
      </p>
      <dl className="log-fields">
        <div className="log-field log-field-meta">
          <dt>event</dt>
          <dd>{entry.event}</dd>
        </div>
        <div className="log-field log-field-meta">
          <dt>seq</dt>
          <dd>{entry.seq}</dd>
        </div>
        <div className="log-field log-field-meta">
          <dt>timestamp</dt>
          <dd>{entry.timestamp}</dd>
        </div>
        {fields.map(([key, value]) => (
          <div key={key} className="log-field">
            <dt>{key}</dt>
            <dd
              className={`log-value-${value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value}`}
              title={nameOf(value) === undefined ? undefined : `Peer ${nameOf(value)} (its device name)`}
            >
              <Highlighted text={fieldText(value)} ranges={ranges} />
            </dd>
          </div>
        ))}
      </dl>
      {fields.length === 0 && <p className="log-no-fields">No structured fields.</p>}
      <div className="log-text-line">
        <code>{line}</code>
        <CopyButton text={line} label="Copy the text line" />
      </div>
    </div>
  );
}
