/**
 * The virtualized list of log entries: only the rows in view (and a few around) are in the DOM,
 * whatever the count. It follows the newest entry until the user scrolls up; then the rows in
 * view stay put even as the ring drops the oldest entries (the virtualizer anchors to them).
 *
 * Keyboard: ↑/↓ move the active row, Enter or Space show its fields, Home/End go to the first or
 * newest entry (End resumes following).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useInspector } from '../../store/index.ts';
import { LogRow } from './LogRow.tsx';

const ROW_HEIGHT = 22;
/**
 * Rows are keyed by their place among the rows drawn, not by entry: when the list follows a
 * flood, every render shows entries that were not drawn before (at 1,000 entries a second, 100
 * per render against about 50 rows drawn), and keyed by entry React would remove every row's
 * elements and create new ones, each styled from scratch. Keyed by place, the same elements
 * stay and only their text and position change. Beyond this many rows drawn (a very tall
 * window), rows are keyed by entry.
 */
const RECYCLED_ROWS = 256;
/** Rows drawn beyond the visible ones on each side, while the user scrolls. */
const OVERSCAN = 12;
/**
 * While following, only the rows above the visible ones are drawn beyond them (nothing is below
 * the newest), and they are never seen before the next entries replace them: fewer rows to lay
 * out at every render of a flood.
 */
const OVERSCAN_FOLLOWING = 2;

interface DrawnRow {
  readonly index: number;
  readonly key: number;
  readonly start: number;
}

/**
 * The rows drawn while following with every row collapsed: the rows the virtualizer will show
 * once the list has scrolled to its end, computed as it computes them (rows are ROW_HEIGHT
 * apart). Drawn in the render that adds entries, they are already the right rows; the scroll to
 * the end that follows then changes nothing on screen, instead of rendering and laying out the
 * rows a second time (the virtualizer's range moves only with the scroll).
 */
function rowsAtEnd(count: number, viewportHeight: number, keyOf: (index: number) => number): DrawnRow[] {
  const offset = Math.max(0, count * ROW_HEIGHT - viewportHeight);
  const first = Math.max(0, Math.floor(offset / ROW_HEIGHT) - OVERSCAN_FOLLOWING);
  const rows: DrawnRow[] = [];
  for (let index = first; index < count; index++) rows.push({ index, key: keyOf(index), start: index * ROW_HEIGHT });
  return rows;
}

export function LogList({ empty }: { readonly empty: ReactNode }) {
  const buffer = useInspector((s) => s.logs.buffer);
  const version = useInspector((s) => s.logs.version);
  const follow = useInspector((s) => s.logsView.follow);
  const expanded = useInspector((s) => s.logsView.expanded);
  const setFollow = useInspector((s) => s.setLogsFollow);
  const toggle = useInspector((s) => s.toggleLogExpanded);
  const scroller = useRef<HTMLDivElement>(null);
  const grid = useRef<HTMLDivElement>(null);
  const lastScrollTop = useRef(0);
  const [activeOrdinal, setActiveOrdinal] = useState<number | undefined>(undefined);

  // As of the last version, not the live size: batches that arrived since wait for the next one.
  const count = buffer.shownSize;
  // A new function per version: the virtualizer re-reads every key when the ring has moved.
  const getItemKey = useCallback(
    (index: number) => {
      void version;
      return buffer.ordinalAt(index);
    },
    [buffer, version],
  );
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    getItemKey,
    overscan: follow ? OVERSCAN_FOLLOWING : OVERSCAN,
    anchorTo: 'end',
    followOnAppend: follow,
    scrollEndThreshold: ROW_HEIGHT,
  });

  // Collapsed rows are exactly ROW_HEIGHT and are not measured (a measure forces a layout per new
  // row); only expanded rows are. A row that collapses keeps its expanded height in the
  // virtualizer's cache, so it is set back here, before the paint.
  useLayoutEffect(() => {
    const sizes = virtualizer.itemSizeCache;
    if (sizes.size === 0) return;
    const stale = [...sizes.keys()].filter((key) => !expanded.has(key as number) && sizes.get(key) !== ROW_HEIGHT);
    if (stale.length === 0) return;
    const inView = new Map(virtualizer.getVirtualItems().map((item) => [item.key, item.index]));
    for (const key of stale) {
      const index = inView.get(key);
      if (index !== undefined) virtualizer.resizeItem(index, ROW_HEIGHT);
      else sizes.delete(key);
    }
  }, [expanded, virtualizer]);

  // Following, the newest entry stays in view (also after a filter change or a resume).
  useEffect(() => {
    if (follow && count > 0 && !virtualizer.isAtEnd(ROW_HEIGHT)) virtualizer.scrollToEnd();
  }, [follow, count, version, virtualizer]);

  const onScroll = (): void => {
    const el = scroller.current;
    if (el === null) return;
    const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight <= ROW_HEIGHT;
    if (atEnd) setFollow(true);
    else if (el.scrollTop < lastScrollTop.current - 1) setFollow(false);
    lastScrollTop.current = el.scrollTop;
  };

  const activeIndex = (): number => {
    if (activeOrdinal === undefined || count === 0) return -1;
    // Rows in view are few; search them first, then give up (the active row scrolled away).
    for (const item of virtualizer.getVirtualItems()) if (item.key === activeOrdinal) return item.index;
    return -1;
  };

  const moveTo = (index: number): void => {
    if (count === 0) return;
    const clamped = Math.max(0, Math.min(count - 1, index));
    setActiveOrdinal(buffer.ordinalAt(clamped));
    virtualizer.scrollToIndex(clamped, { align: 'auto' });
    if (clamped < count - 1) setFollow(false);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    if (event.target !== event.currentTarget) return;
    const current = activeIndex();
    const visible = virtualizer.getVirtualItems();
    const fallback = current === -1 ? (visible.at(-1)?.index ?? count - 1) : current;
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? ROW_HEIGHT * 10) / ROW_HEIGHT) - 1);
    switch (event.key) {
      case 'ArrowDown':
        moveTo(current === -1 ? fallback : current + 1);
        break;
      case 'ArrowUp':
        moveTo(current === -1 ? fallback : current - 1);
        break;
      case 'PageDown':
        moveTo(fallback + page);
        break;
      case 'PageUp':
        moveTo(fallback - page);
        break;
      case 'Home':
        moveTo(0);
        break;
      case 'End':
        moveTo(count - 1);
        setFollow(true);
        break;
      case 'Enter':
      case ' ':
        if (current !== -1 && activeOrdinal !== undefined) toggle(activeOrdinal);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const onToggle = useCallback(
    (ordinal: number) => {
      setActiveOrdinal(ordinal);
      toggle(ordinal);
      // The keys go on from the row clicked.
      grid.current?.focus({ preventScroll: true });
    },
    [toggle],
  );

  const viewportHeight = virtualizer.scrollRect?.height ?? 0;
  const items: readonly DrawnRow[] =
    follow && expanded.size === 0 && viewportHeight > 0
      ? rowsAtEnd(count, viewportHeight, (index) => buffer.ordinalAt(index))
      : virtualizer.getVirtualItems().map((item) => ({ index: item.index, key: item.key as number, start: item.start }));
  const ranges = buffer.filter.ranges;
  const active = activeIndex() === -1 ? undefined : activeOrdinal;

  return (
    // A grid (not a table): it has an active row moved with the keys, which only composite roles may announce.
    <div
      ref={grid}
      className="log-table"
      role="grid"
      aria-label="Log entries"
      aria-readonly="true"
      aria-rowcount={count + 1}
      tabIndex={0}
      aria-activedescendant={active === undefined ? undefined : `log-row-${active}`}
      onKeyDown={onKeyDown}
    >
      <div className="log-head" role="rowgroup">
        <div className="log-line" role="row" aria-rowindex={1}>
          <span role="columnheader" className="log-cell log-cell-toggle">
            <span className="visually-hidden">Fields</span>
          </span>
          <span role="columnheader" className="log-cell log-cell-time">
            Time (UTC)
          </span>
          <span role="columnheader" className="log-cell log-cell-level">
            Level
          </span>
          <span role="columnheader" className="log-cell log-cell-component">
            Component
          </span>
          <span role="columnheader" className="log-cell log-cell-message">
            Message
          </span>
        </div>
      </div>
      <div ref={scroller} className="log-scroller" role="rowgroup" aria-label="Log entries, newest last" onScroll={onScroll}>
        {count === 0 ? (
          empty
        ) : (
          <div className="log-canvas" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item, place) => {
              if (item.index >= count) return null;
              const ordinal = item.key;
              const isExpanded = expanded.has(ordinal);
              return (
                <LogRow
                  key={items.length <= RECYCLED_ROWS ? place : `entry-${ordinal}`}
                  entry={buffer.at(item.index)}
                  ordinal={ordinal}
                  index={item.index}
                  start={item.start}
                  expanded={isExpanded}
                  active={ordinal === active}
                  ranges={ranges}
                  measure={isExpanded ? virtualizer.measureElement : undefined}
                  onToggle={onToggle}
                />
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}
