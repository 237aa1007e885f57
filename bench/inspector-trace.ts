/**
 * Opt-in traces of the inspector suite's loaded recordings, to find what the longest frames spend
 * their time on. With `SYNCMESH_BENCH_TRACE=<folder>`, each flood and scroll is recorded with
 * Chromium's timeline categories into `<folder>/<name>.json` (Chrome's trace format: open it in
 * DevTools' Performance panel). `node bench/inspector-trace.ts <file.json>` prints the renderer
 * main thread's longest gaps between frames and what ran in them.
 *
 * The compositor's categories are recorded too: the printout ends with how long each commit waited
 * for raster before it could be drawn (its pending tree), the tiles rastered per draw and the
 * compositor layers. A frame can be late with an idle main thread when that wait is long: the
 * main thread's next frame begins only once the previous one is activated.
 *
 * Tracing costs time itself, so a traced run's figures are not the suite's figures.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CDPSession } from '@playwright/test';

const CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'v8.execute',
  'blink.user_timing',
  'disabled-by-default-v8.cpu_profiler',
  'cc',
  'disabled-by-default-cc.debug.scheduler',
  'renderer.scheduler',
  'viz',
  'input',
].join(',');

/** The folder traces go to, when asked for. */
export const traceFolder = (): string | undefined => {
  const folder = process.env.SYNCMESH_BENCH_TRACE;
  return folder === undefined || folder === '' ? undefined : folder;
};

/** Runs `work` under a trace saved as `<folder>/<name>.json` when SYNCMESH_BENCH_TRACE is set; otherwise just runs it. */
export async function traced<T>(cdp: CDPSession, name: string, work: () => Promise<T>): Promise<T> {
  const folder = traceFolder();
  if (folder === undefined) return work();
  const events: unknown[] = [];
  const collect = (data: { value: unknown[] }): void => {
    events.push(...data.value);
  };
  cdp.on('Tracing.dataCollected', collect);
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  try {
    return await work();
  } finally {
    const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
    await cdp.send('Tracing.end');
    await done;
    cdp.off('Tracing.dataCollected', collect);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.json`), JSON.stringify({ traceEvents: events }));
  }
}

interface TraceEvent {
  readonly name: string;
  readonly cat: string;
  readonly ph: string;
  readonly ts: number;
  readonly dur?: number;
  readonly pid: number;
  readonly tid: number;
  readonly args?: { data?: Record<string, unknown>; name?: string };
}

/** The renderer's main thread: the thread named CrRendererMain with the most events. */
function mainThread(events: readonly TraceEvent[]): { pid: number; tid: number } {
  const named = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  let best = { pid: 0, tid: 0, count: -1 };
  for (const t of named) {
    const count = events.filter((e) => e.pid === t.pid && e.tid === t.tid).length;
    if (count > best.count) best = { pid: t.pid, tid: t.tid, count };
  }
  return best;
}

const label = (e: TraceEvent): string => {
  const data = e.args?.data ?? {};
  const detail = (data.functionName as string | undefined) ?? (data.type as string | undefined) ?? (data.url as string | undefined)?.split('/').pop();
  return detail === undefined || detail === '' ? e.name : `${e.name}(${detail})`;
};

/** Prints the longest gaps between animation frames and the work inside each. */
function analyse(file: string, top: number): void {
  const { traceEvents } = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: TraceEvent[] };
  const { pid, tid } = mainThread(traceEvents);
  const main = traceEvents.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X').sort((a, b) => a.ts - b.ts);
  const frames = main.filter((e) => e.name === 'FireAnimationFrame').map((e) => e.ts);
  const gaps: { from: number; to: number }[] = [];
  for (let i = 1; i < frames.length; i++) gaps.push({ from: frames[i - 1] as number, to: frames[i] as number });
  gaps.sort((a, b) => b.to - b.from - (a.to - a.from));
  const tasks = main.filter((e) => e.name === 'RunTask');
  console.log(`${file}: ${frames.length} animation frames, ${tasks.length} tasks on the main thread`);
  for (const gap of gaps.slice(0, top)) {
    console.log(`\ngap of ${((gap.to - gap.from) / 1000).toFixed(1)} ms between frames:`);
    for (const task of tasks) {
      const end = task.ts + (task.dur ?? 0);
      if (end < gap.from || task.ts > gap.to || (task.dur ?? 0) < 1000) continue;
      // What ran inside the task, by name, with the time of each kind.
      const inside = main.filter((e) => e !== task && e.ts >= task.ts && e.ts + (e.dur ?? 0) <= end && (e.dur ?? 0) >= 300);
      const totals = new Map<string, number>();
      for (const e of inside) totals.set(label(e), (totals.get(label(e)) ?? 0) + (e.dur ?? 0));
      const parts = [...totals]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([n, d]) => `${n} ${(d / 1000).toFixed(1)}`)
        .join(', ');
      console.log(`  task at +${((task.ts - gap.from) / 1000).toFixed(1)} ms, ${((task.dur ?? 0) / 1000).toFixed(1)} ms: ${parts}`);
    }
  }
  compositorSummary(traceEvents);
}

/** Nearest-rank percentile of sorted numbers. */
const rank = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/** Commit → activation waits (raster), tiles per draw, and layer counts, from the compositor's events. */
function compositorSummary(events: readonly TraceEvent[]): void {
  const waits: number[] = [];
  let begun: number | undefined;
  for (const e of events.filter((x) => x.name === 'PendingTree:waiting').sort((a, b) => a.ts - b.ts)) {
    if (e.ph === 'b') begun = e.ts;
    else if (e.ph === 'e' && begun !== undefined) {
      waits.push((e.ts - begun) / 1000);
      begun = undefined;
    }
  }
  const tiles = events
    .filter((e) => e.name === 'TileManager::PrepareToDrawFinished')
    .map((e) => Number((e.args as { stats?: { completed_count?: number } } | undefined)?.stats?.completed_count ?? 0));
  const layers = events
    .filter((e) => e.name === 'TreeSynchronizer::PushLayerPropertiesTo.Main')
    .map((e) => Number((e.args as { layer_count?: number } | undefined)?.layer_count ?? 0));
  if (waits.length === 0 && tiles.length === 0) return;
  waits.sort((a, b) => a - b);
  tiles.sort((a, b) => a - b);
  console.log(
    `\ncompositor: ${waits.length} commits waited for raster p50 ${rank(waits, 50).toFixed(1)} ms, p95 ${rank(waits, 95).toFixed(1)} ms, max ${(waits.at(-1) ?? 0).toFixed(1)} ms; ` +
      `tiles rastered per draw p50 ${rank(tiles, 50)}, max ${tiles.at(-1) ?? 0}; layers at most ${Math.max(0, ...layers)}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  if (file === undefined) {
    console.error('usage: node bench/inspector-trace.ts <trace.json> [gaps to show, default 5]');
    process.exit(2);
  }
  analyse(file, Number(top ?? 5));
}
