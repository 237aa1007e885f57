/**
 * Timing and reporting helpers shared by every benchmark suite. A suite measures pairs: our
 * code and a baseline doing the same work, alternated repetition by repetition so that noise on
 * a busy machine falls on both sides alike; each side's figure is the median of its repetitions.
 * Everything is bounded: a fixed number of repetitions, cut short (never below one) by a
 * time budget.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** What `npm run bench` gives each suite. */
export interface SuiteContext {
  /** A fresh empty directory under the run's temporary root, removed when the run ends. */
  tempDir(label: string): string;
  /** Prints a progress line (to stderr, so that stdout holds only the tables). */
  log(message: string): void;
}

/**
 * A benchmark suite: its rows, measured. Add one to `bench/run.ts` to have it run. Several suites
 * may share a name (one table each): `npm run bench -- NAME` runs them all, and `--help` lists
 * the name once, so every suite of a name gives the same `summary` and `durationSeconds`.
 */
export interface Suite {
  readonly name: string;
  readonly title: string;
  /** One line for `npm run bench -- --help`: what the suites of this name measure, against which baseline, and what they need. */
  readonly summary: string;
  /** Roughly how long `npm run bench -- NAME` takes on the 2-core machine, in seconds, as measured (docs/benchmarks.md). */
  readonly durationSeconds: number;
  run(context: SuiteContext): Promise<Row[]>;
}

/**
 * How a row compares ours with the baseline:
 * - `throughput`: more work per second is better; ratio = raw time / our time, as a percentage.
 * - `time`: less time is better; ratio = our time / raw time, as a multiple.
 * - `memory`: less is better; ratio = ours / raw, as a multiple.
 */
export type RowKind = 'throughput' | 'time' | 'memory';

export interface Row {
  readonly name: string;
  readonly kind: RowKind;
  /** Median milliseconds (throughput, time) or megabytes (memory). */
  readonly ours: number;
  readonly raw: number;
  /** Items each repetition processes, for a throughput figure (docs/s). */
  readonly items?: number;
  /** Repetitions each side's median is taken over. */
  readonly repetitions?: number;
  /** Throughput: lowest acceptable percentage; time and memory: highest acceptable multiple. None: reported only. */
  readonly target?: number;
}

/** The ratio as the row's kind defines it (percentage for throughput, multiple otherwise). */
export function ratioOf(row: Row): number {
  return row.kind === 'throughput' ? (100 * row.raw) / row.ours : row.ours / row.raw;
}

export function verdictOf(row: Row): 'PASS' | 'MISS' | 'INFO' {
  if (row.target === undefined) return 'INFO';
  const ratio = ratioOf(row);
  return (row.kind === 'throughput' ? ratio >= row.target : ratio <= row.target) ? 'PASS' : 'MISS';
}

// `npm run bench` cannot pass --expose-gc to node; setting the flag now exposes `gc` to
// contexts created from now on.
function exposeGc(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}
const gc = exposeGc();

/** A full garbage collection, where available, so that one repetition's garbage is not timed in the next. */
export function collectGarbage(): void {
  gc?.();
}

/** The p-th percentile (0–100) of values sorted ascending, by the nearest-rank method. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** One side of a comparison: untimed setup, the timed work, untimed teardown. */
export interface Side<S> {
  setup?(): S | Promise<S>;
  run(state: S): unknown;
  teardown?(state: S): void | Promise<void>;
}

export interface CompareOptions {
  /** Untimed repetitions of each side first (JIT warm-up, page cache). */
  readonly warmup: number;
  /** Timed repetitions of each side, at most. */
  readonly repeat: number;
  /** Stop starting repetitions after this many milliseconds (setup and teardown included). */
  readonly budgetMs: number;
}

export interface Comparison {
  readonly ours: number;
  readonly raw: number;
  readonly repetitions: number;
  readonly oursSamples: readonly number[];
  readonly rawSamples: readonly number[];
}

/** One repetition of a side: untimed setup, garbage collection, the timed run, untimed teardown. */
export async function timeOnce<S>(side: Side<S>): Promise<number> {
  const state = (await side.setup?.()) as S;
  collectGarbage();
  let elapsed: number;
  try {
    const start = performance.now();
    await side.run(state);
    elapsed = performance.now() - start;
  } finally {
    await side.teardown?.(state);
  }
  return elapsed;
}

/**
 * Times ours and raw, alternating (ours, raw, ours, raw, …) so that both meet the same machine
 * state; returns each side's median in milliseconds.
 */
export async function compare<A, B>(ours: Side<A>, raw: Side<B>, options: CompareOptions): Promise<Comparison> {
  const started = performance.now();
  for (let i = 0; i < options.warmup; i++) {
    await timeOnce(ours);
    await timeOnce(raw);
  }
  const oursSamples: number[] = [];
  const rawSamples: number[] = [];
  for (let i = 0; i < options.repeat; i++) {
    if (i > 0 && performance.now() - started > options.budgetMs) break;
    oursSamples.push(await timeOnce(ours));
    rawSamples.push(await timeOnce(raw));
  }
  return { ours: median(oursSamples), raw: median(rawSamples), repetitions: oursSamples.length, oursSamples, rawSamples };
}

// ---- printing ----

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

function formatValue(row: Row, value: number): string {
  switch (row.kind) {
    case 'memory':
      return `${value.toFixed(1)} MB`;
    case 'time':
      return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
    case 'throughput': {
      const time = `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;
      return row.items === undefined ? time : `${number.format(row.items / (value / 1000))}/s (${time})`;
    }
  }
}

function formatRatio(row: Row, ratio: number): string {
  return row.kind === 'throughput' ? `${ratio.toFixed(0)}%` : `${ratio.toFixed(2)}×`;
}

function formatTarget(row: Row): string {
  if (row.target === undefined) return '—';
  return row.kind === 'throughput' ? `≥ ${row.target}%` : `≤ ${row.target}×`;
}

/** The rows as a text table: name, ours, raw, ratio, target, verdict, repetitions. */
export function formatTable(title: string, rows: readonly Row[]): string {
  const header = ['benchmark', 'ours', 'raw', 'ratio', 'target', 'result', 'n'];
  const cells = rows.map((row) => [
    row.name,
    formatValue(row, row.ours),
    formatValue(row, row.raw),
    formatRatio(row, ratioOf(row)),
    formatTarget(row),
    verdictOf(row),
    row.repetitions === undefined ? '' : String(row.repetitions),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: readonly string[]): string =>
    c.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [title, line(header), rule, ...cells.map(line)].join('\n');
}

/** Stops a suite with `message()` when a measurement's precondition fails (a result is wrong, not slow). */
export function check(condition: boolean, message: () => string): void {
  if (!condition) throw new Error(message());
}

/** `promise`, or a rejection naming `what` after `timeoutMs`: every wait of a suite is bounded. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `warmup` untimed repetitions of every side, then up to `repeat` timed ones, each
 * repetition running every side once in turn (a full GC before each), until `budgetMs` is
 * spent. A side does its own timing and returns milliseconds.
 */
export async function alternate(
  sides: readonly ((repetition: number) => Promise<number>)[],
  options: { warmup: number; repeat: number; budgetMs: number },
): Promise<number[][]> {
  const started = performance.now();
  let repetition = 0;
  for (let i = 0; i < options.warmup; i++) {
    for (const side of sides) {
      collectGarbage();
      await side(repetition);
    }
    repetition++;
  }
  const samples: number[][] = sides.map(() => []);
  for (let i = 0; i < options.repeat; i++) {
    if (i > 0 && performance.now() - started > options.budgetMs) break;
    for (const [s, side] of sides.entries()) {
      collectGarbage();
      samples[s]?.push(await side(repetition));
    }
    repetition++;
  }
  return samples;
}
