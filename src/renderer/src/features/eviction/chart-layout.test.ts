import { describe, expect, it } from 'vitest';
import type { EvictionSample } from '../../../../shared/inspector/eviction.ts';
import { CHART_MARGIN, layoutChart, nearestPoint, niceDomain, niceStep } from './chart-layout.ts';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const points = (n: number, documents: (i: number) => number = (i) => 100 + i): EvictionSample[] =>
  Array.from({ length: n }, (_, i) => ({
    at: T0 + i * 1000,
    documents: documents(i),
    storeBytes: 1_000_000 + i * 1000,
    databaseBytes: 900_000 + i * 1000,
    walBytes: 100_000,
    rssBytes: 200e6,
    heapUsedBytes: 50e6 + i,
  }));

describe('the chart’s scales', () => {
  it('rounds steps to 1, 2 or 5 × 10^n', () => {
    expect(niceStep(100, 4)).toBe(50);
    expect(niceStep(7, 4)).toBe(2);
    expect(niceStep(0, 4)).toBe(1);
  });

  it('starts counts at 0, fits sizes to their values, and gives a flat line room', () => {
    expect(niceDomain([120, 180], true)).toEqual({ min: 0, max: 200 });
    expect(niceDomain([1_000_000, 1_060_000], false)).toEqual({ min: 1_000_000, max: 1_060_000 });
    const flat = niceDomain([500, 500], false);
    expect(flat.min).toBeLessThan(500);
    expect(flat.max).toBeGreaterThan(500);
    expect(niceDomain([], true)).toEqual({ min: 0, max: 1 });
  });
});

describe('layoutChart', () => {
  it('draws the points in the window across the width, three plots, with time ticks', () => {
    const samples = points(120);
    const layout = layoutChart({ samples, marks: [], to: T0 + 119_000, windowMs: 60_000, width: 800 });
    expect(layout.points).toHaveLength(61);
    expect(layout.plots.map((p) => p.spec.id)).toEqual(['documents', 'store', 'memory']);
    const documents = layout.plots[0];
    expect(documents?.paths[0]?.d.startsWith(`M${CHART_MARGIN.left.toFixed(1)},`)).toBe(true);
    expect(documents?.paths[0]?.d.split('L')).toHaveLength(61);
    expect(documents?.latest).toEqual([{ id: 'documents', value: 219 }]);
    expect(layout.plots[2]?.paths.map((p) => p.id)).toEqual(['rssBytes', 'heapUsedBytes']);
    expect(layout.timeTicks.map((t) => t.label)).toEqual(['12:01:00', '12:01:10', '12:01:20', '12:01:30', '12:01:40', '12:01:50']);
  });

  it('draws the database file and the WAL as two lines of the store plot, from 0: a checkpoint drops the WAL, not the file', () => {
    // 4.7 MB, most of it WAL, then a checkpoint at the 10th point: the WAL written back into the file.
    const samples = points(20).map((p, i) => {
      const [databaseBytes, walBytes] = i < 10 ? [832_000, 3_900_000] : [858_000, 32_000];
      return { ...p, databaseBytes, walBytes, storeBytes: databaseBytes + walBytes };
    });
    const layout = layoutChart({ samples, marks: [], to: T0 + 19_000, windowMs: 60_000, width: 800 });
    const store = layout.plots[1];
    expect(store?.spec.title).toBe('Store on disk');
    expect(store?.paths.map((p) => p.id)).toEqual(['databaseBytes', 'walBytes']);
    expect(store?.min).toBe(0);
    expect(store?.latest).toEqual([
      { id: 'databaseBytes', value: 858_000 },
      { id: 'walBytes', value: 32_000 },
    ]);
    // The file's line stays near where it was; the WAL's falls by nearly the whole plot.
    const ys = (id: string): number[] => [...(store?.paths.find((p) => p.id === id)?.d.matchAll(/[ML][\d.]+,([\d.]+)/g) ?? [])].map((m) => Number(m[1]));
    const file = ys('databaseBytes');
    const wal = ys('walBytes');
    expect(Math.abs((file[10] as number) - (file[9] as number))).toBeLessThan(2);
    expect((wal[10] as number) - (wal[9] as number)).toBeGreaterThan(0.7 * (store?.height ?? 0));
    const hidden = layoutChart({ samples, marks: [], to: T0 + 19_000, windowMs: 60_000, width: 800, hidden: ['walBytes'] });
    expect(hidden.plots[1]?.paths.map((p) => p.id)).toEqual(['databaseBytes']);
  });

  it('spans the points while they cover less than the window, a minute at least', () => {
    const layout = layoutChart({ samples: points(90), marks: [], to: T0 + 89_000, windowMs: 900_000, width: 800 });
    expect(layout.to - layout.from).toBe(89_000);
    expect(layout.points).toHaveLength(90);
    const young = layoutChart({ samples: points(10), marks: [], to: T0 + 9_000, windowMs: 900_000, width: 800 });
    expect(young.to - young.from).toBe(60_000);
  });

  it('breaks a line across a gap instead of sloping over it, and leaves hidden series out', () => {
    const samples = [...points(3), ...points(3).map((p) => ({ ...p, at: p.at + 30_000 }))];
    const layout = layoutChart({ samples, marks: [], to: T0 + 40_000, windowMs: 60_000, width: 600, hidden: ['heapUsedBytes'] });
    expect(layout.plots[0]?.paths[0]?.d.match(/M/g)).toHaveLength(2);
    expect(layout.plots[2]?.paths.map((p) => p.id)).toEqual(['rssBytes']);
  });

  it('places a line for each eviction and re-sync in view, by kind', () => {
    const layout = layoutChart({
      samples: points(60),
      marks: [
        { kind: 'eviction', at: T0 + 30_000, collection: 'orders', evicted: 5, source: 'statement', outcome: 'evicted', forced: false, txnId: 4 },
        { kind: 'eviction', at: T0 + 31_000, collection: 'orders', evicted: 0, source: 'strategy', outcome: 'refused', forced: false },
        { kind: 'resync', at: T0 + 32_000, collection: 'orders', count: 5, evictedAt: T0 + 30_000, subscriptions: [] },
        { kind: 'resync', at: T0 - 90_000, collection: 'orders', count: 5, evictedAt: T0, subscriptions: [] },
      ],
      to: T0 + 60_000,
      windowMs: 60_000,
      width: 600 + CHART_MARGIN.left + CHART_MARGIN.right,
    });
    expect(layout.marks.map((m) => [m.kind, m.x])).toEqual([
      ['eviction', CHART_MARGIN.left + 300],
      ['idle', CHART_MARGIN.left + 310],
      ['resync', CHART_MARGIN.left + 320],
    ]);
  });

  it('finds the point nearest the pointer', () => {
    const layout = layoutChart({ samples: points(61), marks: [], to: T0 + 60_000, windowMs: 60_000, width: 600 + CHART_MARGIN.left + CHART_MARGIN.right });
    expect(nearestPoint(layout, CHART_MARGIN.left + 304)?.at).toBe(T0 + 30_000);
    expect(nearestPoint(layout, 2)).toBeUndefined();
  });
});
