/**
 * A SELECT result as a virtualized grid (`role="grid"`): only the rows on screen exist in the
 * DOM, whatever the result's size, and their pages are fetched with `documents:rows` as they
 * scroll into view. Table mode has a column per field (resizable); JSON mode a line per document.
 * Arrow keys, Page Up/Down, Home and End move the selection.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { jsonEqual } from '../../../../shared/json.ts';
import type { JsonObject, JsonValue } from '../../../../shared/json.ts';
import { useInspector } from '../../store/index.ts';
import { formatCount } from '../../ui/format.ts';
import { JsonView, scalarView } from '../../ui/JsonView.tsx';
import { columnWidths } from './columns.ts';
import { rowAt, type PageCache } from './paging.ts';
import type { ResultMode, ResultState } from './slice.ts';

const ROW_HEIGHT = 24;
const HEADER_HEIGHT = 27;
/**
 * Rows built beyond each edge of the view (96 px, about a wheel notch). A fast scroll replaces
 * every row each frame, so each of these costs its build, layout and paint in every frame: with
 * 8 (192 px) the inspector bench's 100,000-row scroll took 15–16 ms of work per frame (p50), with
 * 4 it takes 12–14 ms.
 */
const OVERSCAN = 4;
/**
 * Rows are keyed by their slot in the window of built rows (index minus the window's first), and
 * the window is one block moved by one transform. Each slot's element then stays where it is in
 * the DOM and only its text changes as the window moves: a fast scroll, which replaces every row
 * each frame, changes text in the same elements instead of removing, building and styling rows,
 * and the rows are always in index order in the DOM (what assistive technology reads) with no
 * reordering when a scroll stops. One transform instead of one per row also leaves the compositor
 * one paint chunk to place rather than a chunk and a transform node per row. The price: a slow
 * scroll changes every row's text each time it passes a row (24 px), the work of one frame of a
 * fast scroll (about 8 ms on the 2-core machine, docs/benchmarks.md), instead of one row's.
 */
const slotKey = (index: number, first: number): number => index - first;
/**
 * Pages of the visible range are fetched at most this often while the range moves (a throttle,
 * not a debounce: a long scroll fetches as it goes), and once more when it stops.
 */
const FETCH_INTERVAL_MS = 50;

export function ResultsGrid({ result, mode }: { readonly result: ResultState; readonly mode: ResultMode }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const ensureRows = useInspector((s) => s.ensureRows);
  const selectRow = useInspector((s) => s.selectRow);
  const selectedIndex = useInspector((s) => s.documentsView.selected?.index);
  const selectedId = useInspector((s) => s.documentsView.selected?.id);
  const { cache, columns } = result;
  const total = cache.total;
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN,
    scrollMargin: HEADER_HEIGHT,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? 0;

  useThrottledFetch(first, last, cache.resultId, ensureRows);
  useScrolledAcross(scrollRef);

  // A new statement starts at the top; a refresh of the same one stays where it is.
  useEffect(() => {
    virtualizer.scrollToOffset(0);
  }, [result.epoch, virtualizer]);

  const widths = useColumnWidths(columns, cache, result.epoch);
  const gridWidth = mode === 'table' ? NUMBER_WIDTH + columns.reduce((sum, c) => sum + (widths.get(c) ?? 120), 0) : undefined;

  const move = (index: number) => {
    const target = Math.max(0, Math.min(total - 1, index));
    selectRow(target);
    virtualizer.scrollToIndex(target, { align: 'auto' });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 300) / ROW_HEIGHT) - 2);
    const at = selectedIndex ?? -1;
    if (event.key === 'ArrowDown') move(at + 1);
    else if (event.key === 'ArrowUp') move(Math.max(0, at - 1));
    else if (event.key === 'PageDown') move(at + page);
    else if (event.key === 'PageUp') move(at - page);
    else if (event.key === 'Home' && (event.ctrlKey || event.metaKey || mode === 'json')) move(0);
    else if (event.key === 'End' && (event.ctrlKey || event.metaKey || mode === 'json')) move(total - 1);
    else if (event.key === 'Escape') selectRow(undefined);
    else return;
    event.preventDefault();
  };

  return (
    <div
      ref={scrollRef}
      className={`rt rt-${mode}`}
      role="grid"
      aria-label="Query results"
      aria-rowcount={total + 1}
      aria-colcount={mode === 'table' ? columns.length + 1 : 2}
      aria-readonly="true"
      data-scrolling={virtualizer.isScrolling ? '' : undefined}
      aria-activedescendant={selectedIndex === undefined ? undefined : `rt-row-${selectedIndex}`}
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <div className="rt-inner" style={{ width: gridWidth, height: virtualizer.getTotalSize() + HEADER_HEIGHT }}>
        <div className="rt-head" role="row" aria-rowindex={1} style={{ height: HEADER_HEIGHT }}>
          <div className="rt-cell rt-num" role="columnheader" style={{ width: NUMBER_WIDTH }}>
            #
          </div>
          {mode === 'table' ? (
            columns.map((column) => <HeaderCell key={column} column={column} width={widths.get(column) ?? 120} onResize={widths.resize} />)
          ) : (
            <div className="rt-cell rt-json-cell" role="columnheader">
              Document (JSON)
            </div>
          )}
        </div>
        <div className="rt-window" style={{ transform: `translateY(${items[0]?.start ?? HEADER_HEIGHT}px)` }}>
          {items.map((item) => (
            <Row
              key={slotKey(item.index, first)}
              index={item.index}
              row={rowAt(cache, item.index)}
              mode={mode}
              columns={columns}
              widths={widths.map}
              selected={item.index === selectedIndex && isSameRow(rowAt(cache, item.index), selectedId)}
              onSelect={selectRow}
            />
          ))}
        </div>
      </div>
    </div>
  );
}

const NUMBER_WIDTH = 64;

/**
 * Marks the grid `data-scrolled-across` while it is scrolled sideways, which is when the rows'
 * number cells stick to its left edge (documents.css). A sticky cell is a compositor layer of its
 * own, whose box may be anywhere the cell can move to, so every row painted after one got a layer
 * too: 70 layers while scrolling down a wide result, none needed until it is scrolled across. Set
 * on the element directly: a sideways scroll renders nothing.
 */
function useScrolledAcross(scrollRef: { readonly current: HTMLDivElement | null }): void {
  useEffect(() => {
    const element = scrollRef.current;
    if (element === null) return undefined;
    const mark = (): void => {
      const across = element.scrollLeft > 0;
      if (element.hasAttribute('data-scrolled-across') !== across) element.toggleAttribute('data-scrolled-across', across);
    };
    mark();
    // In the capture phase: before the virtualizer's listener renders new rows, while layout is
    // still clean. After it, reading scrollLeft forced a layout of those rows (12 ms a frame).
    element.addEventListener('scroll', mark, { capture: true, passive: true });
    return () => element.removeEventListener('scroll', mark, { capture: true });
  }, [scrollRef]);
}

/**
 * Calls `ensureRows` for the latest visible range at most every FETCH_INTERVAL_MS while it keeps
 * changing; the last call, after the range stops, always sees the final range (trailing edge).
 */
function useThrottledFetch(first: number, last: number, resultId: string, ensureRows: (start: number, end: number) => void): void {
  const fetchLatest = useRef(() => ensureRows(first, last));
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const lastFetchAt = useRef(-Infinity);
  useEffect(() => {
    fetchLatest.current = () => ensureRows(first, last);
    if (timer.current !== undefined) return; // the pending call will read this range
    const wait = Math.max(0, lastFetchAt.current + FETCH_INTERVAL_MS - performance.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      lastFetchAt.current = performance.now();
      fetchLatest.current();
    }, wait);
  }, [first, last, resultId, ensureRows]);
  useEffect(
    () => () => {
      if (timer.current !== undefined) clearTimeout(timer.current);
      timer.current = undefined;
    },
    [],
  );
}

/** Whether the row at the selected index is still the selected document (a refresh may have moved it). */
function isSameRow(row: JsonObject | undefined, id: JsonValue | undefined): boolean {
  return id === undefined || (row !== undefined && jsonEqual(row['_id'] ?? null, id));
}

interface RowProps {
  readonly index: number;
  readonly row: JsonObject | undefined;
  readonly mode: ResultMode;
  readonly columns: readonly string[];
  readonly widths: ReadonlyMap<string, number>;
  readonly selected: boolean;
  readonly onSelect: (index: number) => void;
}

const Row = memo(function Row({ index, row, mode, columns, widths, selected, onSelect }: RowProps) {
  return (
    <div
      id={`rt-row-${index}`}
      className={`rt-row${selected ? ' rt-selected' : ''}${index % 2 === 1 ? ' rt-odd' : ''}`}
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      onMouseDown={() => onSelect(index)}
    >
      <div className="rt-cell rt-num" role="rowheader" style={{ width: NUMBER_WIDTH }}>
        {formatCount(index + 1)}
      </div>
      {row === undefined ? (
        mode === 'table' ? (
          // The cells the row will have (the same component), empty: once its page arrives, only their text changes.
          columns.map((column) => <ValueGridCell key={column} value={undefined} width={widths.get(column) ?? 120} pending />)
        ) : (
          <div className="rt-cell rt-pending" role="gridcell" aria-busy="true">
            <span className="skeleton" />
          </div>
        )
      ) : mode === 'table' ? (
        columns.map((column) => <ValueGridCell key={column} value={row[column]} width={widths.get(column) ?? 120} />)
      ) : (
        <div className="rt-cell rt-json-cell" role="gridcell">
          <JsonView value={row} inline maxLength={1000} />
        </div>
      )}
    </div>
  );
});

/**
 * A table cell: a scalar is the cell's own text (one element, not a cell around a span: a fast
 * scroll builds and lays out every cell of the rows it brings in, each frame).
 */
function ValueGridCell({ value, width, pending = false }: { readonly value: JsonValue | undefined; readonly width: number; readonly pending?: boolean }) {
  if (pending) return <div className="rt-cell rt-value rt-loading" role="gridcell" aria-busy="true" style={{ width }} />;
  const scalar = scalarView(value);
  if (scalar === undefined) {
    return (
      <div className="rt-cell" role="gridcell" style={{ width }}>
        <JsonView value={value} inline maxLength={300} />
      </div>
    );
  }
  return (
    <div className={`rt-cell rt-value ${scalar.className}`} role="gridcell" style={{ width }}>
      {scalar.text}
    </div>
  );
}

function HeaderCell({
  column,
  width,
  onResize,
}: {
  readonly column: string;
  readonly width: number;
  readonly onResize: (column: string, width: number) => void;
}) {
  const drag = useRef<{ x: number; width: number } | undefined>(undefined);
  const onPointerDown = (event: PointerEvent<HTMLSpanElement>) => {
    event.currentTarget.setPointerCapture(event.pointerId);
    drag.current = { x: event.clientX, width };
    event.preventDefault();
    event.stopPropagation();
  };
  const onPointerMove = (event: PointerEvent<HTMLSpanElement>) => {
    if (drag.current !== undefined) onResize(column, Math.max(48, Math.min(1200, drag.current.width + event.clientX - drag.current.x)));
  };
  return (
    <div className="rt-cell rt-header-cell" role="columnheader" style={{ width }} title={column}>
      <span className="rt-header-name">{column}</span>
      <span
        className="rt-resize"
        aria-hidden="true"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={() => (drag.current = undefined)}
        onDoubleClick={() => onResize(column, -1)}
      />
    </div>
  );
}

/** Column widths: sized from the first rows, changed by dragging a header's edge (a double click resets it). */
function useColumnWidths(columns: readonly string[], cache: PageCache, epoch: number) {
  const [overrides, setOverrides] = useState<ReadonlyMap<string, number>>(new Map());
  useEffect(() => setOverrides(new Map()), [epoch]);
  const sample = useMemo(() => {
    const rows: JsonObject[] = [];
    for (let i = 0; i < Math.min(cache.total, 100); i++) {
      const row = rowAt(cache, i);
      if (row !== undefined) rows.push(row);
    }
    return rows;
    // Sized once per statement and column set (not per page), so that columns do not jump while scrolling.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- without `cache`, on purpose (above)
  }, [epoch, columns]);
  const base = useMemo(() => columnWidths(columns, sample), [columns, sample]);
  const map = useMemo(() => {
    const all = new Map<string, number>();
    for (const column of columns) all.set(column, overrides.get(column) ?? base[column] ?? 120);
    return all;
  }, [columns, base, overrides]);
  return {
    map,
    get: (column: string) => map.get(column),
    resize: (column: string, width: number) =>
      setOverrides((previous) => {
        const next = new Map(previous);
        if (width < 0) next.delete(column);
        else next.set(column, width);
        return next;
      }),
  };
}
