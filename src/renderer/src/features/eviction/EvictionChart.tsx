/**
 * The chart: local documents, the store's size on disk (the database file and its WAL, apart) and
 * the process's memory over the last
 * minutes (one point a second, from the peer's sampler), three plots on one time axis, with a
 * vertical line for each eviction (blue) and each re-sync (red, dashed: documents coming back, the
 * loop). Hovering shows the values at that second; each mark's tooltip says what it was. Drawn by
 * hand in SVG at the measured width, so that text and lines stay crisp; colours are CSS classes.
 */
import { useMemo, useState, type PointerEvent } from 'react';
import type { EvictionMark, EvictionSample, EvictionState } from '../../../../shared/inspector/eviction.ts';
import { useInspector } from '../../store/index.ts';
import { formatBytes, formatCount, formatDuration, plural } from '../../ui/format.ts';
import { Section } from '../../ui/Section.tsx';
import { Segmented } from '../../ui/Segmented.tsx';
import { useElementSize } from '../mesh/use-element-size.ts';
import { CHART_MARGIN, SERIES_NAMES, layoutChart, nearestPoint, xOf, type ChartLayout, type SeriesId } from './chart-layout.ts';
import { clock, describeMark } from './model.ts';
import { CHART_WINDOWS } from './slice.ts';

const ALL_SERIES: readonly SeriesId[] = ['documents', 'databaseBytes', 'walBytes', 'rssBytes', 'heapUsedBytes'];

export function EvictionChart({ state }: { readonly state: EvictionState }) {
  const samples = useInspector((s) => s.eviction.samples);
  const marks = useInspector((s) => s.eviction.marks);
  const view = useInspector((s) => s.evictionView);
  const { setEvictionChartWindow, toggleEvictionSeries } = useInspector.getState();
  const [box, size] = useElementSize<HTMLDivElement>();
  const [hoverX, setHoverX] = useState<number | undefined>(undefined);
  const to = samples.at(-1)?.at ?? state.now;
  const width = size?.width ?? 900;
  const layout = useMemo(
    () => layoutChart({ samples, marks, to, windowMs: view.chartWindowMs, width, hidden: view.hiddenSeries }),
    [samples, marks, to, view.chartWindowMs, width, view.hiddenSeries],
  );
  const hovered = hoverX === undefined ? undefined : nearestPoint(layout, hoverX);
  const shown = hovered ?? samples.at(-1);
  const counts = countMarks(layout.marks.map((m) => m.mark));
  const onPointerMove = (event: PointerEvent<SVGSVGElement>): void => {
    const rect = event.currentTarget.getBoundingClientRect();
    setHoverX(event.clientX - rect.left);
  };
  return (
    <Section
      card
      className="eviction-chart-card"
      title="Documents, store and memory"
      description={`One point a second, the last ${Math.round((state.sampleEveryMs * state.sampleCapacity) / 60_000)} minutes kept; a line at each eviction and each re-sync.`}
      actions={
        <Segmented
          label="Chart window"
          options={CHART_WINDOWS.map(({ ms, label }) => ({ value: ms, label }))}
          value={view.chartWindowMs}
          onChange={setEvictionChartWindow}
        />
      }
    >
      <div className="eviction-legend">
        <div role="group" aria-label="Series shown" className="eviction-legend-group">
          {ALL_SERIES.map((id) => (
            <button
              key={id}
              type="button"
              className={`eviction-series-toggle series-${id}`}
              aria-pressed={!view.hiddenSeries.includes(id)}
              onClick={() => toggleEvictionSeries(id)}
              title={`${view.hiddenSeries.includes(id) ? 'Show' : 'Hide'} ${SERIES_NAMES[id]}`}
            >
              <span className="eviction-swatch" aria-hidden="true" />
              {SERIES_NAMES[id]}
            </button>
          ))}
        </div>
        <div className="eviction-legend-group" aria-label="Marks">
          <span className="eviction-mark-key mark-eviction">
            <span className="eviction-mark-swatch" aria-hidden="true" />
            Eviction <span className="eviction-legend-count">{formatCount(counts.evictions)}</span>
          </span>
          <span className="eviction-mark-key mark-resync">
            <span className="eviction-mark-swatch" aria-hidden="true" />
            Re-sync <span className="eviction-legend-count">{formatCount(counts.resyncs)}</span>
          </span>
          <span className="eviction-mark-key mark-idle">
            <span className="eviction-mark-swatch" aria-hidden="true" />
            Run that evicted nothing
          </span>
        </div>
      </div>
      <p className="eviction-readout" aria-live="off">
        {shown === undefined ? (
          <span className="faint">No point yet: the peer takes one a second.</span>
        ) : (
          <>
            <span className="mono">{clock(shown.at)}</span>
            {hovered === undefined && <span className="faint"> (latest)</span>}
            <Reading className="series-documents" label="documents" value={formatCount(shown.documents)} />
            <Reading className="series-databaseBytes" label="database" value={formatBytes(shown.databaseBytes)} />
            <Reading className="series-walBytes" label="WAL" value={formatBytes(shown.walBytes)} />
            <Reading className="series-rssBytes" label="RSS" value={formatBytes(shown.rssBytes)} />
            <Reading className="series-heapUsedBytes" label="heap" value={formatBytes(shown.heapUsedBytes)} />
          </>
        )}
      </p>
      <div className="eviction-chart" ref={box}>
        <svg
          width={layout.width}
          height={layout.height}
          role="img"
          aria-label={`Chart of the last ${formatDuration(layout.to - layout.from)}: ${plural(layout.points.length, 'point')}, ${plural(counts.evictions, 'eviction')}, ${plural(counts.resyncs, 're-sync', 're-syncs')}`}
          onPointerMove={onPointerMove}
          onPointerLeave={() => setHoverX(undefined)}
        >
          {layout.plots.map((plot) => (
            <g key={plot.spec.id} className={`eviction-plot plot-${plot.spec.id}`}>
              <rect className="eviction-plot-frame" x={layout.left} y={plot.top} width={layout.right - layout.left} height={plot.height} />
              {layout.timeTicks.map((tick) => (
                <line key={tick.x} className="eviction-gridline" x1={tick.x} x2={tick.x} y1={plot.top} y2={plot.top + plot.height} />
              ))}
              {plot.ticks.map((tick) => (
                <text
                  key={tick.y}
                  className="eviction-value-tick"
                  x={layout.left - 6}
                  y={tick.y}
                  textAnchor="end"
                  dominantBaseline={tick.y === plot.top ? 'hanging' : 'auto'}
                >
                  {tick.label}
                </text>
              ))}
              <text className="eviction-plot-title" x={layout.left + 6} y={plot.top + 13}>
                {plot.spec.title}
              </text>
              {plot.paths.map((path) => (
                <path key={path.id} className={`eviction-line series-${path.id}`} d={path.d} />
              ))}
            </g>
          ))}
          {layout.timeTicks.map((tick) => (
            <text key={tick.x} className="eviction-time-tick" x={tick.x} y={layout.height - 6} textAnchor="middle">
              {tick.label}
            </text>
          ))}
          <Marks layout={layout} />
          {hovered !== undefined && <Cursor layout={layout} sample={hovered} hidden={view.hiddenSeries} />}
        </svg>
        {layout.points.length === 0 && (
          <p className="eviction-chart-empty">
            <span>The peer starts sampling when the panel first opens, a strategy is configured, or something is evicted. Points appear once a second.</span>
          </p>
        )}
      </div>
      <ul className="visually-hidden" aria-label="Evictions and re-syncs in view">
        {layout.marks.map((m) => (
          <li key={m.key}>{describeMark(m.mark)}</li>
        ))}
      </ul>
    </Section>
  );
}

function Reading({ className, label, value }: { readonly className: string; readonly label: string; readonly value: string }) {
  return (
    <span className={`eviction-reading ${className}`}>
      <span className="eviction-swatch" aria-hidden="true" />
      {label} <strong>{value}</strong>
    </span>
  );
}

function Marks({ layout }: { readonly layout: ChartLayout }) {
  const top = CHART_MARGIN.top;
  const bottom = layout.height - CHART_MARGIN.bottom;
  return (
    <g className="eviction-marks">
      {layout.marks.map((m) => (
        <g key={m.key} className={`eviction-mark mark-${m.kind}`} data-testid="eviction-mark" data-kind={m.kind} data-collection={m.mark.collection}>
          <title>{describeMark(m.mark)}</title>
          <line className="eviction-mark-line" x1={m.x} x2={m.x} y1={top} y2={bottom} />
          <path className="eviction-mark-head" d={m.kind === 'resync' ? `M${m.x},${top + 7}l-4.5,-7h9z` : `M${m.x},${top}l-4.5,7h9z`} />
          {/* A wider, invisible line, so that the tooltip is easy to hit. */}
          <line className="eviction-mark-hit" x1={m.x} x2={m.x} y1={top} y2={bottom} />
        </g>
      ))}
    </g>
  );
}

function Cursor({ layout, sample, hidden }: { readonly layout: ChartLayout; readonly sample: EvictionSample; readonly hidden: readonly SeriesId[] }) {
  const x = xOf(layout, sample.at);
  return (
    <g className="eviction-cursor" aria-hidden="true">
      <line x1={x} x2={x} y1={CHART_MARGIN.top} y2={layout.height - CHART_MARGIN.bottom} />
      {layout.plots.flatMap((plot) =>
        plot.spec.series
          .filter((id) => !hidden.includes(id))
          .map((id) => {
            const y = plot.top + plot.height - ((sample[id] - plot.min) / (plot.max - plot.min || 1)) * plot.height;
            return <circle key={id} className={`series-${id}`} cx={x} cy={y} r={3} />;
          }),
      )}
    </g>
  );
}

function countMarks(marks: readonly EvictionMark[]): { readonly evictions: number; readonly resyncs: number } {
  let evictions = 0;
  let resyncs = 0;
  for (const m of marks) {
    if (m.kind === 'resync') resyncs++;
    else if (m.outcome === 'evicted') evictions++;
  }
  return { evictions, resyncs };
}
