/**
 * The eviction chart's geometry, pure: three plots stacked on one time axis (local documents,
 * store size on disk as the database file and the WAL, process memory), each with its own scale, and a vertical line across all
 * three for each eviction and each re-sync. Coordinates are in pixels of the measured width, so
 * that text and strokes stay crisp.
 */
import type { EvictionMark, EvictionSample } from '../../../../shared/inspector/eviction.ts';
import { markKey } from '../../../../shared/inspector/eviction.ts';
import { formatBytes, formatCount } from '../../ui/format.ts';

export type SeriesId = 'documents' | 'databaseBytes' | 'walBytes' | 'rssBytes' | 'heapUsedBytes';

export interface PlotSpec {
  readonly id: 'documents' | 'store' | 'memory';
  readonly title: string;
  readonly series: readonly SeriesId[];
  /** The axis starts at 0 (counts), or fits the values (sizes, whose changes matter more than their size). */
  readonly zeroBased: boolean;
  readonly format: (value: number) => string;
}

export const PLOTS: readonly PlotSpec[] = [
  { id: 'documents', title: 'Local documents', series: ['documents'], zeroBased: true, format: formatCount },
  // The file and its WAL apart, from 0: a checkpoint moves megabytes from one to the other and frees none.
  { id: 'store', title: 'Store on disk', series: ['databaseBytes', 'walBytes'], zeroBased: true, format: formatBytes },
  { id: 'memory', title: 'Process memory', series: ['rssBytes', 'heapUsedBytes'], zeroBased: false, format: formatBytes },
];

export const SERIES_NAMES: Readonly<Record<SeriesId, string>> = {
  documents: 'Local documents',
  databaseBytes: 'Database file',
  walBytes: 'WAL',
  rssBytes: 'Memory (RSS)',
  heapUsedBytes: 'JS heap used',
};

export const CHART_MARGIN = { left: 64, right: 12, top: 6, bottom: 22 } as const;
/** The shortest time the chart spans: while the points cover less of the window, it spans them, at least this. */
export const MIN_SPAN_MS = 60_000;
export const PLOT_HEIGHT = 84;
export const PLOT_GAP = 16;

export interface PlotLayout {
  readonly spec: PlotSpec;
  /** Top of the plot area (px). */
  readonly top: number;
  readonly height: number;
  readonly min: number;
  readonly max: number;
  /** `d` of each series' line (empty when no points). */
  readonly paths: readonly { readonly id: SeriesId; readonly d: string }[];
  /** Labels of the value axis: the bottom and the top of the scale. */
  readonly ticks: readonly { readonly y: number; readonly label: string }[];
  /** The last value of each series. */
  readonly latest: readonly { readonly id: SeriesId; readonly value: number }[];
}

export interface MarkLine {
  readonly key: string;
  readonly x: number;
  readonly mark: EvictionMark;
  /** `eviction`, `resync`, or `idle` for a run that evicted nothing (refused, postponed, failed). */
  readonly kind: 'eviction' | 'resync' | 'idle';
}

export interface ChartLayout {
  readonly width: number;
  readonly height: number;
  /** The time at the left and right edges (ms, the peer's clock). */
  readonly from: number;
  readonly to: number;
  readonly plots: readonly PlotLayout[];
  readonly marks: readonly MarkLine[];
  readonly timeTicks: readonly { readonly x: number; readonly label: string }[];
  /** Points in view. */
  readonly points: readonly EvictionSample[];
  /** The plot area's left and right (px). */
  readonly left: number;
  readonly right: number;
}

/** A round step for `span` in about `count` steps: 1, 2 or 5 × 10^n. */
export function niceStep(span: number, count: number): number {
  if (!(span > 0)) return 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

/** The scale of a plot: from 0 (or just under the smallest value) to just over the largest, on round numbers. */
export function niceDomain(values: readonly number[], zeroBased: boolean): { readonly min: number; readonly max: number } {
  if (values.length === 0) return { min: 0, max: 1 };
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (zeroBased) lo = Math.min(0, lo);
  if (hi === lo) {
    // A flat line sits in the middle of a small range.
    const pad = hi === 0 ? 1 : Math.abs(hi) * 0.05;
    hi += pad;
    lo = zeroBased ? lo : lo - pad;
  }
  const step = niceStep(hi - lo, 4);
  const min = zeroBased ? Math.min(0, Math.floor(lo / step) * step) : Math.floor(lo / step) * step;
  return { min: Math.max(0, min), max: Math.ceil(hi / step) * step };
}

/** Time-axis steps, in ms, one per window size (about six labels). */
const TIME_STEPS = [10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000];

function timeStep(windowMs: number): number {
  return TIME_STEPS.find((s) => windowMs / s <= 7) ?? 900_000;
}

const clockLabel = (at: number, seconds: boolean): string => new Date(at).toISOString().slice(11, seconds ? 19 : 16);

export interface ChartInput {
  readonly samples: readonly EvictionSample[];
  readonly marks: readonly EvictionMark[];
  /** The time at the right edge (the newest point, or the peer's now). */
  readonly to: number;
  /** The most the chart spans; less while the points cover less (at least MIN_SPAN_MS). */
  readonly windowMs: number;
  readonly width: number;
  /** Series not drawn. */
  readonly hidden?: readonly SeriesId[];
}

export function layoutChart({ samples, marks, to, windowMs: maxWindowMs, width, hidden = [] }: ChartInput): ChartLayout {
  // A chart started a minute ago fills its width instead of sitting in the last sliver of 15 minutes.
  const first = samples[0]?.at;
  const windowMs = first === undefined ? maxWindowMs : Math.min(maxWindowMs, Math.max(MIN_SPAN_MS, to - first));
  const from = to - windowMs;
  const left = CHART_MARGIN.left;
  const right = Math.max(left + 10, width - CHART_MARGIN.right);
  const x = (at: number): number => left + ((at - from) / windowMs) * (right - left);
  const points = samples.filter((s) => s.at >= from && s.at <= to);
  const plots = PLOTS.map((spec, i): PlotLayout => {
    const top = CHART_MARGIN.top + i * (PLOT_HEIGHT + PLOT_GAP);
    const shown = spec.series.filter((id) => !hidden.includes(id));
    const values = points.flatMap((p) => shown.map((id) => p[id]));
    const { min, max } = niceDomain(values, spec.zeroBased);
    const y = (value: number): number => top + PLOT_HEIGHT - ((value - min) / (max - min)) * PLOT_HEIGHT;
    const paths = shown.map((id) => ({
      id,
      d: linePath(
        points,
        (p) => x(p.at),
        (p) => y(p[id]),
      ),
    }));
    const last = points.at(-1);
    return {
      spec,
      top,
      height: PLOT_HEIGHT,
      min,
      max,
      paths,
      ticks: [
        { y: top + PLOT_HEIGHT, label: spec.format(min) },
        { y: top, label: spec.format(max) },
      ],
      latest: last === undefined ? [] : shown.map((id) => ({ id, value: last[id] })),
    };
  });
  const step = timeStep(windowMs);
  const timeTicks: { x: number; label: string }[] = [];
  for (let at = Math.ceil(from / step) * step; at <= to; at += step) timeTicks.push({ x: Math.round(x(at) * 10) / 10, label: clockLabel(at, step < 60_000) });
  const markLines = marks
    .filter((m) => m.at >= from && m.at <= to)
    .map((mark): MarkLine => ({
      key: markKey(mark),
      x: Math.round(x(mark.at) * 10) / 10,
      mark,
      kind: mark.kind === 'resync' ? 'resync' : mark.outcome === 'evicted' ? 'eviction' : 'idle',
    }));
  const height = CHART_MARGIN.top + PLOTS.length * PLOT_HEIGHT + (PLOTS.length - 1) * PLOT_GAP + CHART_MARGIN.bottom;
  return { width, height, from, to, plots, marks: markLines, timeTicks, points, left, right };
}

/**
 * A polyline through the points; a gap of more than three sampling intervals (the sampler stopped,
 * or the peer was busy) breaks the line instead of drawing a slope across it.
 */
function linePath(points: readonly EvictionSample[], x: (p: EvictionSample) => number, y: (p: EvictionSample) => number): string {
  let d = '';
  let previous: EvictionSample | undefined;
  const interval = typicalInterval(points);
  for (const p of points) {
    const move = previous === undefined || p.at - previous.at > interval * 3;
    d += `${move ? 'M' : 'L'}${x(p).toFixed(1)},${y(p).toFixed(1)}`;
    previous = p;
  }
  return d;
}

function typicalInterval(points: readonly EvictionSample[]): number {
  if (points.length < 2) return 1000;
  const gaps: number[] = [];
  for (let i = 1; i < points.length && gaps.length < 50; i++) gaps.push((points[i] as EvictionSample).at - (points[i - 1] as EvictionSample).at);
  gaps.sort((a, b) => a - b);
  return Math.max(1, gaps[Math.floor(gaps.length / 2)] as number);
}

/** The point nearest `px` (a pointer's x in the chart), if any is in view. */
export function nearestPoint(layout: ChartLayout, px: number): EvictionSample | undefined {
  if (layout.points.length === 0 || px < layout.left - 4 || px > layout.right + 4) return undefined;
  const at = layout.from + ((px - layout.left) / (layout.right - layout.left)) * (layout.to - layout.from);
  let best: EvictionSample | undefined;
  for (const p of layout.points) if (best === undefined || Math.abs(p.at - at) < Math.abs(best.at - at)) best = p;
  return best;
}

/** The x of a time in the chart. */
export function xOf(layout: ChartLayout, at: number): number {
  return layout.left + ((at - layout.from) / (layout.to - layout.from)) * (layout.right - layout.left);
}
