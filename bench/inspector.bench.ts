/**
 * The inspector suite: the mesh inspector's page in Chromium (Debian's, driven by
 * playwright-core), against a peer in this process holding 100,000 documents. docs/benchmarks.md
 * ("Inspector") explains each row; in short:
 *
 * - Page load and panels: from the navigation (or the click on a panel's tab) until the panel's
 *   data is in the DOM and a frame holding it has been painted (bench/inspector-page.ts). Every
 *   sample is a fresh page. Raw: a static page served the same way (bench/inspector-baseline.ts)
 *   that asks for 50 rows over a WebSocket and builds a table of them, measured the same way.
 * - Frames: a requestAnimationFrame loop in the page records every frame for 10 s while the peer
 *   logs 1,000 and 2,000 entries a second (Logs panel, following the newest; with no filter, and
 *   with a text filter typed and the level filter changed during the flood), and while the
 *   Documents table of `SELECT * FROM orders` (100,000 rows) scrolls from top to bottom. Raw: the
 *   same page idle for the same 10 s. The p95 frame interval (≤ 20 ms, see P95_TARGET) and the
 *   longest main-thread stall (≤ 50 ms, see STALL_TARGET) carry the verdicts.
 * - Memory: the renderer's JS heap after a full GC (CDP), with the DOM node count, after each.
 *
 * Skipped, with the reason in the table's title, when Chromium or playwright-core is missing or
 * the renderer cannot be built; other suites run on. Every wait is bounded; the browser, the
 * servers and the peer are closed also on failure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { startInspectorServer, type SessionSource } from '../src/peer/inspector/inspector-server.ts';
import { LogHub, Sync, createInspector, defaultRendererDir, type Inspector } from '../src/peer/host.ts';
import type { InspectorSession } from '../src/shared/inspector/contract.ts';
import { LOG_EVENTS, type LogFieldValue, type LogLevel } from '../src/shared/log.ts';
import { seededRandom } from '../src/testing/seeded-random.ts';
import { generateDocuments } from './documents.ts';
import { median, percentile, type Row, type Suite, type SuiteContext, check, within } from './harness.ts';
import { startBaselineServer } from './inspector-baseline.ts';
import { traced } from './inspector-trace.ts';
import { installProbe, type FrameRecord, type PaintTiming, type ProbeWindow, type ReadySpec } from './inspector-page.ts';

// ---- the browser (as playwright.config.ts launches it for the e2e tests) ----
const CHROMIUM_PATH = process.env['SYNCMESH_CHROMIUM'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const VIEWPORT = { width: 1440, height: 900 };

// ---- the peer ----
const COLLECTION = 'orders';
const DOCS = 100_000;
const LOAD_BATCH = 1_000;
const SEED = 29;
/** Rows the baseline page shows (about what a panel shows on one screen). */
const BASELINE_ROWS = 50;

// ---- page load and panels ----
/** Fresh pages per panel, at most; cut short (never below one) by the budget. */
const PANEL_REPEAT = 5;
const PANEL_BUDGET_MS = 60_000;
/** After the first panel is painted, a pause so that the page's start-up calls are answered. */
const SETTLE_MS = 300;
/** Bound on a panel's data appearing. */
const READY_TIMEOUT_MS = 15_000;

// ---- frames ----
const FRAME_MS = 10_000;
/** Idle and loaded recordings per scenario, alternated (idle, loaded, idle, loaded). */
const FRAME_REPEAT = 2;
const FRAME_BUDGET_MS = 60_000;
const LOG_TICK_MS = 10;
/** Entries the peer has logged before the page opens (its recent history, which the Logs panel loads first). */
const HISTORY_ENTRIES = 1_000;
/** Bound on a flood: all its entries must be out by then, or the suite fails. */
const LOG_DEADLINE_MS = FRAME_MS + 3_000;
/** Bound on the result of SELECT * FROM orders appearing, and on lazily fetched rows. */
const QUERY_TIMEOUT_MS = 60_000;
const ROWS_TIMEOUT_MS = 15_000;
/**
 * The goal, "p95 frame under 16 ms", as a ratio against the idle page: at 60 Hz an idle page's
 * frames come every 16.7 ms, so its p95 interval is one vsync; a p95 under load within 1.2× of
 * it means at least 95% of the frames came on the very next vsync (none dropped). One dropped
 * frame at p95 makes it 2×.
 */
const P95_TARGET = 1.2;
/**
 * The issue's goal "no main-thread stall over 50 ms", as a ratio against the idle page's median
 * frame interval (one vsync, 16.7 ms, measured in the same run): 3× is 50 ms.
 */
const STALL_TARGET = 3;
/** An interval above this missed at least one vsync (16.7 ms ± 0.2 ms of jitter otherwise). */
const MISSED_ONE_MS = 20;
/** An interval above this missed at least two (33.3 ms ± jitter otherwise). */
const MISSED_TWO_MS = 36.7;

// ---- bounds on the browser itself ----
const LAUNCH_TIMEOUT_MS = 30_000;
const NAVIGATION_TIMEOUT_MS = 30_000;
const ACTION_TIMEOUT_MS = 10_000;
const CLOSE_TIMEOUT_MS = 15_000;
const BUILD_TIMEOUT_MS = 300_000;

const PROJECT = resolve(import.meta.dirname, '..');
const ELECTRON_VITE = join(PROJECT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');

/** Lines added under the table's title: skips, the renderer build used, panels without data. */
const notes: string[] = [];

export const inspectorSuite: Suite = {
  name: 'inspector',
  summary: "the inspector's page in headless Chromium (load, frames, paints) vs a static page (skipped without Chromium)",
  durationSeconds: 255, // docs/benchmarks.md, its run of 2026-11-27 (load average 7-10); a machine without Chromium skips it in 1 s
  // A getter: run.ts reads the title after run(), so the notes of this run are in it.
  get title() {
    const head = `Inspector · Chromium, headless, ${VIEWPORT.width}×${VIEWPORT.height}; ${DOCS.toLocaleString('en-US')} docs in \`${COLLECTION}\` on SQLite; times are medians (frames: pooled), raw = the baseline named in each row`;
    return [head, ...notes.map((note) => `  note: ${note}`)].join('\n');
  },
  run,
};

// ---- small helpers ----

const thousands = (n: number): string => n.toLocaleString('en-US');
const ms = (value: number): string => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const pct = (share: number): string => `${(share * 100).toFixed(share > 0 && share < 0.01 ? 1 : 0)}%`;
const pause = (delayMs: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, delayMs));

/** Polls `probe` (a page evaluation) every 100 ms until it answers true; false after `timeoutMs`. */
async function pollUntil(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (let i = 0; i < Math.ceil(timeoutMs / 100) + 1; i++) {
    if (await probe()) return true;
    if (performance.now() > deadline) return false;
    await pause(100);
  }
  return false;
}

// ---- the renderer build ----

/** Newest modification time of the files under `dir` (bounded walk). */
function newestMtime(dir: string): number {
  let newest = 0;
  const stack = [dir];
  for (let seen = 0; stack.length > 0 && seen < 50_000; seen++) {
    const current = stack.pop() as string;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/**
 * The built renderer: rebuilt with `electron-vite build` when out/renderer/index.html is missing
 * or older than a file of src/renderer or src/shared (the renderer's bundle includes both). A
 * failed rebuild with an older build present measures the older build, and says so in a note.
 */
function ensureRenderer(context: SuiteContext): { readonly dir: string } | { readonly skip: string } {
  const dir = defaultRendererDir();
  const index = join(dir, 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  const sources = Math.max(newestMtime(join(PROJECT, 'src', 'renderer')), newestMtime(join(PROJECT, 'src', 'shared')));
  if (built >= sources) return { dir };
  context.log(
    built === 0 ? 'building the renderer (out/renderer is missing)' : 'rebuilding the renderer (src/renderer or src/shared is newer than out/renderer)',
  );
  const started = performance.now();
  const build = spawnSync(process.execPath, [ELECTRON_VITE, 'build'], {
    cwd: PROJECT,
    encoding: 'utf8',
    timeout: BUILD_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (build.status === 0 && existsSync(index)) {
    context.log(`  built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { dir };
  }
  const why = `${build.error?.message ?? `electron-vite build exited ${build.status ?? build.signal}`}: ${`${build.stderr}${build.stdout}`.trim().split('\n').slice(-3).join(' | ')}`;
  context.log(`  the build failed: ${why}`);
  if (!existsSync(index)) return { skip: `the renderer could not be built (${why})` };
  notes.push(`the renderer build failed (${why.slice(0, 200)}); measured the previous build of ${new Date(statSync(index).mtimeMs).toISOString()}`);
  return { dir };
}

// ---- the peer and the servers ----

interface Environment {
  readonly context: SuiteContext;
  readonly sync: Sync;
  readonly logHub: LogHub;
  readonly url: string;
  readonly baselineUrl: string;
  readonly browserContext: BrowserContext;
  /** `documents:rows` calls the page made so far. */
  rowsCalls(): number;
}

/** The inspector's sessions, with the page's `documents:rows` calls counted. */
function countingSessions(inspector: Inspector, counter: { rows: number }): SessionSource {
  return {
    openSession(): InspectorSession {
      const session = inspector.openSession();
      const rows = session.handlers['documents:rows'];
      return {
        handlers: {
          ...session.handlers,
          'documents:rows': (input: unknown) => {
            counter.rows += 1;
            return rows(input);
          },
        },
        onEvent: (send) => session.onEvent(send),
        close: () => session.close(),
      };
    },
  };
}

async function loadPeer(context: SuiteContext, sync: Sync): Promise<void> {
  context.log(`loading ${thousands(DOCS)} documents into ${COLLECTION} (SQLite)`);
  for (let first = 0; first < DOCS; first += LOAD_BATCH) {
    await sync.store.execute(`INSERT INTO ${COLLECTION} DOCUMENTS (:docs)`, {
      docs: generateDocuments(Math.min(LOAD_BATCH, DOCS - first), { seed: SEED, first }),
    });
  }
  const n = (await sync.store.execute(`SELECT COUNT(*) AS n FROM ${COLLECTION}`)).items[0]?.n;
  check(n === DOCS, () => `the peer holds ${String(n)} ${COLLECTION}, expected ${DOCS}`);
}

// ---- measuring a page ----

interface Memory {
  /** JS heap in use after a full GC, in MB. */
  readonly heapMB: number;
  /** DOM nodes of the renderer after that GC. */
  readonly nodes: number;
}

async function memoryOf(cdp: CDPSession): Promise<Memory> {
  // Twice: the first collection can leave objects that only a second one frees (weak references, finalizers).
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value;
  check(typeof heap === 'number', () => 'Performance.getMetrics gave no JSHeapUsedSize');
  const { nodes } = await cdp.send('Memory.getDOMCounters');
  return { heapMB: (heap as number) / 1024 / 1024, nodes };
}

interface OpenPage {
  readonly page: Page;
  readonly cdp: CDPSession;
  /** Uncaught exceptions and console errors of the page. */
  readonly errors: string[];
}

/** A fresh page, the probe installed, navigated to `url`; `load` is the panel the probe waits for from the navigation's start. */
async function openPage(env: Pick<Environment, 'browserContext'>, url: string, load: ReadySpec): Promise<OpenPage> {
  const page = await env.browserContext.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`exception: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  try {
    page.setDefaultTimeout(ACTION_TIMEOUT_MS);
    const cdp = await env.browserContext.newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.addInitScript(installProbe, load);
    await page.goto(url, { waitUntil: 'load', timeout: NAVIGATION_TIMEOUT_MS });
    return { page, cdp, errors };
  } catch (error) {
    await page.close().catch(() => {});
    throw error;
  }
}

const evaluateLoad = (page: Page): Promise<PaintTiming> =>
  within(
    page.evaluate(() => (window as unknown as ProbeWindow).__bench.load as Promise<PaintTiming>),
    READY_TIMEOUT_MS + 5_000,
    'the first panel',
  );

const afterPaint = (page: Page): Promise<number> =>
  within(
    page.evaluate(() => (window as unknown as ProbeWindow).__bench.afterPaint()),
    5_000,
    'a frame',
  );

/** Arms the click clock, clicks the tab named `tab`, and answers the click → painted timing. */
async function clickTab(page: Page, tab: string, spec: ReadySpec): Promise<PaintTiming> {
  await page.evaluate((s) => (window as unknown as ProbeWindow).__bench.armClick(s), spec);
  await page.getByRole('tab', { name: tab, exact: true }).click({ timeout: ACTION_TIMEOUT_MS });
  return within(
    page.evaluate(() => (window as unknown as ProbeWindow).__bench.clicked as Promise<PaintTiming>),
    spec.timeoutMs + 5_000,
    `the ${tab} panel after its click`,
  );
}

async function record(page: Page, durationMs: number, scrollSelector?: string): Promise<FrameRecord> {
  const options = scrollSelector === undefined ? { durationMs } : { durationMs, scrollSelector };
  return within(
    page.evaluate((o) => (window as unknown as ProbeWindow).__bench.record(o), options),
    durationMs + 10_000,
    `recording frames for ${durationMs} ms`,
  );
}

// ---- 1. page load and the first paint of each panel ----

interface PanelCase {
  readonly id: string;
  /** The tab's accessible name. */
  readonly title: string;
  readonly spec: ReadySpec;
}

/**
 * What shows that each panel has painted its data (see ReadySpec), by role, label and text
 * rather than by class names, so that it survives the panels' layout changes:
 * Overview and Documents list the collections (`aria-label="Collections"`) with `orders`;
 * Subscriptions a table with the registered `SELECT * FROM orders` (its collection); Transactions
 * a table of the commits that wrote `orders` (the inspector is created before the load, as a host
 * creates it at start, so that its timeline holds them); Permissions and Mesh this peer (its key,
 * whole or shortened); Logs a cell of an entry.
 */
const TABLES = 'table, [role="table"], [role="grid"]';
/** The Logs panel's list ("Log entries", a table or a grid) and a cell of one of its entries. */
const LOG_LIST = '[aria-label^="Log entries"]';
const LOG_CELLS = `${LOG_LIST} [role="row"] [role="cell"], ${LOG_LIST} [role="row"] [role="gridcell"]`;

function panelCases(peerKey: string): PanelCase[] {
  const head = peerKey.slice(0, 8);
  const spec = (panel: string, data: ReadySpec['data']): ReadySpec => ({ panel, data, timeoutMs: READY_TIMEOUT_MS });
  return [
    { id: 'overview', title: 'Overview', spec: spec('overview', [{ selector: '[aria-label="Collections"]', text: COLLECTION }]) },
    { id: 'documents', title: 'Documents', spec: spec('documents', [{ selector: '[aria-label="Collections"]', text: COLLECTION }]) },
    { id: 'subscriptions', title: 'Subscriptions', spec: spec('subscriptions', [{ selector: TABLES, text: COLLECTION }]) },
    { id: 'permissions', title: 'Permissions', spec: spec('permissions', [{ text: head }]) },
    { id: 'transactions', title: 'Transactions', spec: spec('transactions', [{ selector: TABLES, text: COLLECTION }]) },
    { id: 'mesh', title: 'Mesh', spec: spec('mesh', [{ text: head }]) },
    { id: 'logs', title: 'Logs', spec: spec('logs', [{ selector: LOG_CELLS }]) },
  ];
}

const BASELINE_HOME: ReadySpec = { panel: 'home', data: [{ selector: 'table', text: COLLECTION }], timeoutMs: READY_TIMEOUT_MS };
const BASELINE_DATA: ReadySpec = { panel: 'data', data: [{ selector: 'table', text: COLLECTION }], timeoutMs: READY_TIMEOUT_MS };

interface PageSample {
  readonly fcp: number;
  readonly loadPainted: number;
  /** After the first panel, settled, before the click. */
  readonly before: Memory;
  readonly click: PaintTiming;
  readonly after: Memory;
}

/** One fresh page: loaded on `start` (measured), settled, then a click on `target`'s tab (measured). */
async function pageSample(env: Environment, url: string, start: ReadySpec, target: ReadySpec, tab: string): Promise<PageSample> {
  const { page, cdp, errors } = await openPage(env, url, start);
  try {
    const load = await evaluateLoad(page);
    check(
      load.state === 'data',
      () => `${url}: the ${start.panel} panel showed no data within ${start.timeoutMs} ms${load.alert === undefined ? '' : ` (error shown: ${load.alert})`}`,
    );
    // Paint entries are queued once the compositor reports the frame: poll for it briefly.
    let fcp: number | undefined;
    await pollUntil(async () => (fcp = await page.evaluate(() => (window as unknown as ProbeWindow).__bench.firstContentfulPaint())) !== undefined, 5_000);
    check(typeof fcp === 'number', () => `${url}: no first-contentful-paint entry within 5 s`);
    await pause(SETTLE_MS);
    await afterPaint(page);
    const before = await memoryOf(cdp);
    const click = await clickTab(page, tab, target);
    const after = await memoryOf(cdp);
    if (errors.length > 0) env.context.log(`  ${target.panel}: the page reported ${errors.length} error(s), e.g. ${errors[0]}`);
    return { fcp: fcp as number, loadPainted: load.painted - load.start, before, click, after };
  } finally {
    await page.close().catch(() => {});
  }
}

async function panelRows(env: Environment, cases: readonly PanelCase[]): Promise<Row[]> {
  const overview = cases.find((c) => c.id === 'overview') as PanelCase;
  const logs = cases.find((c) => c.id === 'logs') as PanelCase;
  const ours = new Map<string, PageSample[]>(cases.map((c) => [c.id, []]));
  const raw: PageSample[] = [];
  const started = performance.now();
  for (let rep = 0; rep < PANEL_REPEAT; rep++) {
    if (rep > 0 && performance.now() - started > PANEL_BUDGET_MS) break;
    context(env).log(`panels: repetition ${rep + 1} of at most ${PANEL_REPEAT}`);
    raw.push(await pageSample(env, env.baselineUrl, BASELINE_HOME, BASELINE_DATA, 'Data'));
    for (const target of cases) {
      // Each panel is clicked from a page loaded on the Overview (the Overview itself from one loaded on Logs).
      const start = target.id === 'overview' ? logs : overview;
      const sample = await pageSample(env, `${env.url}#/${start.id}`, start.spec, target.spec, target.title);
      (ours.get(target.id) as PageSample[]).push(sample);
    }
  }
  const n = raw.length;
  // Page load: the pages that loaded on the Overview.
  const loads = cases.filter((c) => c.id !== 'overview').flatMap((c) => ours.get(c.id) as PageSample[]);
  const rows: Row[] = [
    {
      name: 'page load → first contentful paint (raw: static page)',
      kind: 'time',
      ours: median(loads.map((s) => s.fcp)),
      raw: median(raw.map((s) => s.fcp)),
      repetitions: n,
    },
    {
      name: `page load → Overview data painted (raw: static page, ${BASELINE_ROWS} rows over its WebSocket)`,
      kind: 'time',
      ours: median(loads.map((s) => s.loadPainted)),
      raw: median(raw.map((s) => s.loadPainted)),
      repetitions: n,
    },
  ];
  context(env).log(`  page load → FCP: ours ${loads.map((s) => ms(s.fcp)).join(', ')}; raw ${raw.map((s) => ms(s.fcp)).join(', ')}`);
  context(env).log(
    `  page load → Overview painted: ours ${loads.map((s) => ms(s.loadPainted)).join(', ')}; raw ${raw.map((s) => ms(s.loadPainted)).join(', ')}`,
  );
  const rawClick = median(raw.map((s) => s.click.painted - s.click.start));
  context(env).log(`  raw click → table painted: ${raw.map((s) => ms(s.click.painted - s.click.start)).join(', ')}`);
  const memoryRows: Row[] = [];
  for (const target of cases) {
    const samples = ours.get(target.id) as PageSample[];
    const missing = samples.find((s) => s.click.state === 'timeout');
    if (missing !== undefined) {
      notes.push(
        `${target.title}: no data within ${READY_TIMEOUT_MS / 1000} s of the click${missing.click.alert === undefined ? '' : ` (error shown: ${missing.click.alert.slice(0, 160)})`}; no row`,
      );
      continue;
    }
    const placeholder = samples.some((s) => s.click.state === 'placeholder');
    const times = samples.map((s) => s.click.painted - s.click.start);
    context(env).log(`  click ${target.title} → painted: ${times.map(ms).join(', ')}${placeholder ? ' (placeholder)' : ''}`);
    const what = placeholder ? 'placeholder painted (panel not built yet)' : 'data painted';
    const from = target.id === 'overview' ? ', from Logs' : '';
    rows.push({
      name: `click ${target.title}${from} → ${what} (raw: static page, click → ${BASELINE_ROWS} rows)`,
      kind: 'time',
      ours: median(times),
      raw: rawClick,
      repetitions: samples.length,
    });
    const before = median(samples.map((s) => s.before.nodes));
    const after = median(samples.map((s) => s.after.nodes));
    memoryRows.push({
      name: `JS heap, ${target.title} shown${placeholder ? ' (placeholder)' : ''} (raw: same page before the click); DOM nodes ${thousands(before)} → ${thousands(after)}`,
      kind: 'memory',
      ours: median(samples.map((s) => s.after.heapMB)),
      raw: median(samples.map((s) => s.before.heapMB)),
      repetitions: samples.length,
    });
  }
  memoryRows.unshift({
    name: `JS heap, Overview after load (raw: static page); DOM nodes ${thousands(median(loads.map((s) => s.before.nodes)))} vs ${thousands(median(raw.map((s) => s.before.nodes)))}`,
    kind: 'memory',
    ours: median(loads.map((s) => s.before.heapMB)),
    raw: median(raw.map((s) => s.before.heapMB)),
    repetitions: n,
  });
  return [...rows, ...memoryRows];
}

/** The suite context of an environment (a function so that progress lines read naturally). */
const context = (env: Environment): SuiteContext => env.context;

// ---- frames ----

interface FrameStats {
  readonly frames: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
  /** Shares of the intervals that missed at least one vsync, and at least two. */
  readonly missedOne: number;
  readonly missedTwo: number;
  /** Frame begin → painted (main thread). */
  readonly workP50: number;
  readonly workP95: number;
  readonly workMax: number;
  /** Long tasks (over 50 ms) and the longest one; null where the browser does not report them. */
  readonly longTasks: number | null;
  readonly longestTask: number | null;
  /** The longest stall: the longest long task or the longest frame begin → painted, whichever is longer. */
  readonly stall: number;
}

function frameStats(records: readonly FrameRecord[]): FrameStats {
  const intervals: number[] = [];
  const work: number[] = [];
  let tasks: number[] | null = [];
  for (const r of records) {
    for (let i = 1; i < r.frameStarts.length; i++) intervals.push((r.frameStarts[i] as number) - (r.frameStarts[i - 1] as number));
    work.push(...r.work);
    tasks = r.longTasks === null || tasks === null ? null : [...tasks, ...r.longTasks];
  }
  check(intervals.length > 0, () => 'no frame was recorded');
  intervals.sort((a, b) => a - b);
  work.sort((a, b) => a - b);
  return {
    frames: intervals.length,
    p50: percentile(intervals, 50),
    p95: percentile(intervals, 95),
    max: intervals.at(-1) as number,
    missedOne: intervals.filter((v) => v > MISSED_ONE_MS).length / intervals.length,
    missedTwo: intervals.filter((v) => v > MISSED_TWO_MS).length / intervals.length,
    workP50: percentile(work, 50),
    workP95: percentile(work, 95),
    workMax: work.at(-1) as number,
    longTasks: tasks === null ? null : tasks.length,
    longestTask: tasks === null ? null : Math.max(0, ...tasks),
    stall: Math.max(work.at(-1) as number, ...(tasks ?? [])),
  };
}

const describeTasks = (s: FrameStats): string =>
  s.longTasks === null ? 'long tasks not reported' : `${s.longTasks} long task(s)${s.longTasks > 0 ? `, longest ${ms(s.longestTask as number)}` : ''}`;

function describeStats(label: string, s: FrameStats): string {
  return `${label}: ${thousands(s.frames)} frames, interval p50 ${ms(s.p50)} p95 ${ms(s.p95)} max ${ms(s.max)}, missed ≥1 vsync ${pct(s.missedOne)}, ≥2 ${pct(s.missedTwo)}; begin → painted p50 ${ms(s.workP50)} p95 ${ms(s.workP95)} max ${ms(s.workMax)}; ${describeTasks(s)}`;
}

function frameRows(label: string, loaded: readonly FrameRecord[], idle: readonly FrameRecord[]): Row[] {
  const o = frameStats(loaded);
  const i = frameStats(idle);
  const n = loaded.length;
  return [
    { name: `${label}: frame interval p50 (raw: idle)`, kind: 'time', ours: o.p50, raw: i.p50, repetitions: n },
    {
      name: `${label}: frame interval p95, goal ≤ 20 ms (${pct(o.missedOne)} > 16.7 ms, ${pct(o.missedTwo)} > 33 ms; idle ${pct(i.missedOne)}, ${pct(i.missedTwo)})`,
      kind: 'time',
      ours: o.p95,
      raw: i.p95,
      target: P95_TARGET,
      repetitions: n,
    },
    { name: `${label}: frame interval max (raw: idle)`, kind: 'time', ours: o.max, raw: i.max, repetitions: n },
    { name: `${label}: frame begin → painted, p95 (raw: idle)`, kind: 'time', ours: o.workP95, raw: i.workP95, repetitions: n },
    {
      name: `${label}: longest main-thread stall, goal ≤ 50 ms (${describeTasks(o)}; idle ${ms(i.stall)}; raw: idle frame interval p50)`,
      kind: 'time',
      ours: o.stall,
      raw: i.p50,
      target: STALL_TARGET,
      repetitions: n,
    },
  ];
}

// ---- 2. the Logs panel under 1,000 and 2,000 entries a second ----

type EntryTemplate = (k: number, random: () => number) => readonly [LogLevel, string, string, Readonly<Record<string, LogFieldValue>>];

const PEERS = ['pk-7f3a9c2e41d8b6f0', 'pk-19be44d0a7c3e852', 'pk-c0ffee12ab34cd56'];
const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)] as T;

/** What a busy peer logs at DEBUG: commits, replication chunks, observers, subscriptions, now and then a warning. */
const ENTRY_TEMPLATES: readonly (readonly [number, EntryTemplate])[] = [
  [30, (k, r) => ['DEBUG', 'txn', LOG_EVENTS.writeTxnCommitted, { txn_id: 100_000 + k, originator: r() < 0.7 ? 'Replication' : 'User' }]],
  [20, (k) => ['DEBUG', 'txn', LOG_EVENTS.databaseChangeNotified, { transaction: 100_000 + k }]],
  [
    20,
    (k, r) => [
      'DEBUG',
      'replication',
      LOG_EVENTS.chunkMerged,
      { remote: pick(PEERS, r), update: Math.floor(k / 8), chunk: k % 8, docs: 500, merged: 480 + Math.floor(r() * 20), refused: 0, txn_id: 100_000 + k },
    ],
  ],
  [
    10,
    (k, r) => [
      'DEBUG',
      'replication',
      LOG_EVENTS.updateCreated,
      { since_index: 90_000 + k, new_update_created: true, num_docs: Math.floor(r() * 500), elapsed: `${(r() * 4).toFixed(2)} ms` },
    ],
  ],
  [
    8,
    (k, r) => [
      'INFO',
      'observers',
      LOG_EVENTS.observerRegistered,
      {
        id: k,
        statement: `SELECT * FROM orders WHERE status = :status AND locationId = '${pick(['loc-001', 'loc-017', 'loc-042'], r)}' ORDER BY createdAt DESC LIMIT 100`,
      },
    ],
  ],
  [5, (k) => ['INFO', 'observers', LOG_EVENTS.observerCancelled, { id: k - 40 }]],
  [
    4,
    (_k, r) => [
      'INFO',
      'sync',
      LOG_EVENTS.connectionEstablished,
      {
        connection_type: 'WsClient',
        connection: `WsClient#${Math.floor(r() * 40)}`,
        remote_address: `ws://127.0.0.1:${40_000 + Math.floor(r() * 1000)}/_sync/ws`,
      },
    ],
  ],
  [
    2,
    (_k, r) => [
      'WARN',
      'sync',
      LOG_EVENTS.reconnectScheduled,
      { seconds: 1 + Math.floor(r() * 30), connect_address: `ws://127.0.0.1:${40_000 + Math.floor(r() * 1000)}/_sync/ws` },
    ],
  ],
  [
    1,
    (_k, r) => [
      'ERROR',
      'replication',
      LOG_EVENTS.replicationFailed,
      { remote: pick(PEERS, r), error: 'SQLITE_BUSY: database is locked (while merging an update chunk)' },
    ],
  ],
];
const TEMPLATE_WEIGHT = ENTRY_TEMPLATES.reduce((sum, [w]) => sum + w, 0);

function emitEntry(hub: LogHub, k: number, random: () => number): void {
  let roll = random() * TEMPLATE_WEIGHT;
  let template = (ENTRY_TEMPLATES[0] as readonly [number, EntryTemplate])[1];
  for (const [weight, t] of ENTRY_TEMPLATES) {
    if (roll < weight) {
      template = t;
      break;
    }
    roll -= weight;
  }
  const [level, component, event, fields] = template(k, random);
  hub.emit(level, component, event, fields);
}

/**
 * A flood of the Logs panel: `rate` entries a second for FRAME_MS. With `filter`, a text filter
 * is typed into the panel (key by key, as a user types) `typeAtMs` into the flood, and the level
 * filter is changed `levelAtMs` into it: each change refilters every entry held, which is where a
 * log view stalls.
 */
interface LogScenario {
  readonly rate: number;
  readonly repeat: number;
  readonly filter: boolean;
}

const LOG_SCENARIOS: readonly LogScenario[] = [
  { rate: 1_000, repeat: FRAME_REPEAT, filter: false },
  { rate: 1_000, repeat: FRAME_REPEAT, filter: true },
  { rate: 2_000, repeat: 1, filter: false },
  { rate: 2_000, repeat: 1, filter: true },
];
/**
 * The text typed: about half of the flood matches it (the `replication` component, commits with
 * `originator=Replication`), so the filtered list still scrolls with the flood.
 */
const FILTER_TEXT = 'replication';
const FILTER_TYPE_AT_MS = 1_000;
const FILTER_KEY_DELAY_MS = 60;
/** The level filter goes from "All levels" to "DEBUG and above": it keeps every entry of the flood, but refilters all held. */
const FILTER_LEVEL_AT_MS = 6_000;
const FILTER_LEVEL = 'DEBUG and above';

const scenarioLabel = (s: LogScenario): string =>
  `Logs, ${thousands(s.rate)} entries/s for ${FRAME_MS / 1000} s, ${s.filter ? `filter "${FILTER_TEXT}" typed + level changed` : 'no filter'}`;

/**
 * `rate` × FRAME_MS entries: every LOG_TICK_MS, the entries due by then in one burst (about 10 or
 * 20). Ends with a marker entry (which matches FILTER_TEXT, so that a filtered list shows it too);
 * answers its text and the achieved rate.
 */
async function flood(hub: LogHub, round: number, rate: number): Promise<{ marker: string; seconds: number; entries: number }> {
  const random = seededRandom(SEED * 1000 + round);
  const started = performance.now();
  const all = (rate * FRAME_MS) / 1000;
  let emitted = 0;
  const total = all - 1;
  for (let tick = 0; emitted < total && tick < LOG_DEADLINE_MS / LOG_TICK_MS + 100; tick++) {
    const elapsed = performance.now() - started;
    check(elapsed < LOG_DEADLINE_MS, () => `the log flood emitted ${emitted} of ${all} entries in ${LOG_DEADLINE_MS} ms`);
    const due = Math.min(total, Math.floor((elapsed * rate) / 1000));
    for (; emitted < due; emitted++) emitEntry(hub, round * 100_000 + emitted, random);
    if (emitted < total) await pause(LOG_TICK_MS);
  }
  check(emitted === total, () => `the log flood emitted ${emitted} of ${total} entries`);
  const marker = `bench-flood-${round}-done`;
  hub.emit('INFO', 'bench', 'bench.flood-done', { marker, of: `a ${FILTER_TEXT} flood` });
  return { marker, seconds: (performance.now() - started) / 1000, entries: all };
}

/** The level filter: the list box that offers "All levels" (the peer's own level is another). */
const levelFilter = (page: Page) => page.getByRole('combobox').filter({ has: page.getByRole('option', { name: 'All levels', exact: true }) });

/** Types the text filter and changes the level filter during a flood, at their times from `started`. */
async function changeFilters(page: Page, started: number): Promise<void> {
  await pause(Math.max(0, FILTER_TYPE_AT_MS - (performance.now() - started)));
  await page.getByLabel('Filter log entries').pressSequentially(FILTER_TEXT, { delay: FILTER_KEY_DELAY_MS, timeout: ACTION_TIMEOUT_MS });
  await pause(Math.max(0, FILTER_LEVEL_AT_MS - (performance.now() - started)));
  await levelFilter(page).selectOption({ label: FILTER_LEVEL }, { timeout: ACTION_TIMEOUT_MS });
}

/** Back to no filter (untimed): the text emptied, every level shown, the list following again. */
async function clearFilters(page: Page): Promise<void> {
  await page.getByLabel('Filter log entries').fill('', { timeout: ACTION_TIMEOUT_MS });
  await levelFilter(page).selectOption({ label: 'All levels' }, { timeout: ACTION_TIMEOUT_MS });
  await pause(1_000);
}

/** Whether the entry holding `text` is inside the list's visible box. */
const entryOnScreen = (page: Page, text: string): Promise<boolean> =>
  page.evaluate((t) => {
    // The list's scrolling row group, or the list itself.
    const scroller = document.querySelector('[aria-label="Log entries, newest last"]') ?? document.querySelector('[aria-label^="Log entries"]');
    if (scroller === null) return false;
    const box = scroller.getBoundingClientRect();
    return Array.from(scroller.querySelectorAll('[role="row"]')).some((row) => {
      const r = row.getBoundingClientRect();
      return (row.textContent ?? '').includes(t) && r.bottom > box.top && r.top < box.bottom;
    });
  }, text);

async function logsRows(env: Environment, logs: PanelCase): Promise<Row[]> {
  const { page, cdp, errors } = await openPage(env, `${env.url}#/logs`, logs.spec);
  try {
    const load = await evaluateLoad(page);
    if (load.state !== 'data') {
      notes.push(`Logs under load: skipped, the Logs panel showed no entries (${load.state})`);
      return [];
    }
    await pause(1_000);
    const rows: Row[] = [];
    let memoryIdle: Memory | undefined;
    let memoryLoaded: Memory | undefined;
    let entries = 0;
    let round = 0;
    for (const scenario of LOG_SCENARIOS) {
      const label = scenarioLabel(scenario);
      const idle: FrameRecord[] = [];
      const loaded: FrameRecord[] = [];
      const started = performance.now();
      for (let rep = 0; rep < scenario.repeat; rep++) {
        if (rep > 0 && performance.now() - started > FRAME_BUDGET_MS) break;
        context(env).log(`${label}: idle ${FRAME_MS / 1000} s, then the flood (repetition ${rep + 1} of ${scenario.repeat})`);
        idle.push(await record(page, FRAME_MS));
        memoryIdle ??= await memoryOf(cdp);
        const {
          marker,
          seconds,
          entries: emitted,
          floodEnded,
        } = await traced(cdp, `${label} ${rep + 1}`, async () => {
          const recording = record(page, FRAME_MS);
          const filtering = scenario.filter ? changeFilters(page, performance.now()) : Promise.resolve();
          const flooded = await flood(env.logHub, round++, scenario.rate);
          const ended = performance.now();
          await filtering;
          loaded.push(await recording);
          return { ...flooded, floodEnded: ended };
        });
        entries += emitted;
        // Following the newest entry: the marker (the last entry) must come into view.
        const shown = await pollUntil(() => entryOnScreen(page, marker), ROWS_TIMEOUT_MS);
        check(shown, () => `the Logs panel did not show its newest entry (${marker}) within ${ROWS_TIMEOUT_MS} ms of the flood's end: not following?`);
        const lag = performance.now() - floodEnded;
        context(env).log(`  flood took ${seconds.toFixed(2)} s; the last entry was on screen ${ms(lag)} after it (polled every 100 ms)`);
        context(env).log(`  ${describeStats('idle', frameStats([idle.at(-1) as FrameRecord]))}`);
        context(env).log(`  ${describeStats('flood', frameStats([loaded.at(-1) as FrameRecord]))}`);
        for (const line of (loaded.at(-1) as FrameRecord).longFrames) context(env).log(`    long frame ${line}`);
        if (scenario.filter) {
          const status = await page.evaluate(() => document.querySelector('[aria-label="Log counts"]')?.textContent ?? '');
          context(env).log(`  filtered status line: ${status}`);
          await clearFilters(page);
        }
        memoryLoaded = await memoryOf(cdp);
      }
      const elements = loaded.map((r) => `${r.elementsStart}→${r.elementsMax}`).join(', ');
      context(env).log(`  elements in the document during the floods (start → max): ${elements}`);
      rows.push(...frameRows(label, loaded, idle));
    }
    const status = await page.evaluate(() => document.querySelector('[aria-label="Log counts"]')?.textContent ?? '');
    context(env).log(`  status line: ${status}`);
    if (errors.length > 0) context(env).log(`  the page reported ${errors.length} error(s), e.g. ${errors[0]}`);
    const m = memoryLoaded as Memory;
    const mi = memoryIdle as Memory;
    rows.push({
      name: `JS heap after ${thousands(entries)} entries (raw: same page idle); DOM nodes ${thousands(mi.nodes)} → ${thousands(m.nodes)}`,
      kind: 'memory',
      ours: m.heapMB,
      raw: mi.heapMB,
      repetitions: 1,
    });
    return rows;
  } finally {
    await page.close().catch(() => {});
  }
}

// ---- 3. the Documents panel scrolling 100,000 rows ----

/** The result table of SELECT * FROM orders: a grid of 100,000 rows and its header row. */
const GRID = `[role="grid"][aria-rowcount="${DOCS + 1}"]`;
const loadedRow = (rowIndex: number): string => `${GRID} [role="row"][aria-rowindex="${rowIndex}"] [role="gridcell"]:not([aria-busy="true"])`;

async function documentsRows(env: Environment, documents: PanelCase): Promise<Row[]> {
  const { page, cdp, errors } = await openPage(env, `${env.url}#/documents`, documents.spec);
  try {
    const load = await evaluateLoad(page);
    if (load.state !== 'data') {
      notes.push(
        `Documents scrolling: skipped, the Documents panel ${load.state === 'placeholder' ? 'is not built yet (placeholder)' : 'showed no collection list'}`,
      );
      return [];
    }
    // The collection list's `orders` runs SELECT * FROM orders (as the console would).
    const button = page.getByRole('navigation', { name: 'Collections' }).getByRole('button', { name: new RegExp(`^${COLLECTION}\\b`) });
    if ((await button.count()) === 0) {
      notes.push(`Documents scrolling: skipped, no button "${COLLECTION}" in the panel's Collections list`);
      return [];
    }
    await page.evaluate((s) => (window as unknown as ProbeWindow).__bench.armClick(s), {
      panel: 'documents',
      data: [{ selector: loadedRow(2) }],
      timeoutMs: QUERY_TIMEOUT_MS,
    } satisfies ReadySpec);
    await button.first().click({ timeout: ACTION_TIMEOUT_MS });
    const query = await within(
      page.evaluate(() => (window as unknown as ProbeWindow).__bench.clicked as Promise<PaintTiming>),
      QUERY_TIMEOUT_MS + 5_000,
      'the result of SELECT * FROM orders',
    );
    if (query.state !== 'data') {
      notes.push(
        `Documents scrolling: skipped, no grid of ${thousands(DOCS)} rows with loaded cells within ${QUERY_TIMEOUT_MS / 1000} s of the click on ${COLLECTION}${query.alert === undefined ? '' : ` (error shown: ${query.alert.slice(0, 160)})`}`,
      );
      return [];
    }
    context(env).log(`Documents: click ${COLLECTION} → first rows of ${thousands(DOCS)} painted in ${ms(query.painted - query.start)}`);
    await pause(1_000);
    const idle: FrameRecord[] = [];
    const scrolled: FrameRecord[] = [];
    let memoryIdle: Memory | undefined;
    let memoryScrolled: Memory | undefined;
    const started = performance.now();
    for (let rep = 0; rep < FRAME_REPEAT; rep++) {
      if (rep > 0 && performance.now() - started > FRAME_BUDGET_MS) break;
      context(env).log(
        `Documents: idle ${FRAME_MS / 1000} s at the top, then scrolling to row ${thousands(DOCS)} in ${FRAME_MS / 1000} s (repetition ${rep + 1} of ${FRAME_REPEAT})`,
      );
      idle.push(await record(page, FRAME_MS));
      memoryIdle ??= await memoryOf(cdp);
      const callsBefore = env.rowsCalls();
      const scroll = await traced(cdp, `documents scroll ${rep + 1}`, () => record(page, FRAME_MS, GRID));
      scrolled.push(scroll);
      check(scroll.scrollRange > 0 && scroll.scrolledTo >= scroll.scrollRange - 1, () => `the scroll reached ${scroll.scrolledTo} of ${scroll.scrollRange} px`);
      const callsDuring = env.rowsCalls() - callsBefore;
      const settled = performance.now();
      const bottom = await pollUntil(() => page.evaluate((selector) => document.querySelector(selector) !== null, loadedRow(DOCS + 1)), ROWS_TIMEOUT_MS);
      check(bottom, () => `the last row's cells did not load within ${ROWS_TIMEOUT_MS} ms of the scroll's end`);
      context(env).log(
        `  scrolled ${thousands(scroll.scrollRange)} px; documents:rows calls during the scroll ${callsDuring}, after it ${env.rowsCalls() - callsBefore - callsDuring}; last row loaded ${ms(performance.now() - settled)} after the scroll ended`,
      );
      context(env).log(
        `  elements in the document: ${scroll.elementsStart} at the top, at most ${scroll.elementsMax} while scrolling, ${scroll.elementsEnd} at the bottom`,
      );
      context(env).log(`  ${describeStats('idle', frameStats([idle.at(-1) as FrameRecord]))}`);
      context(env).log(`  ${describeStats('scroll', frameStats([scroll]))}`);
      for (const line of scroll.longFrames) context(env).log(`    long frame ${line}`);
      memoryScrolled = await memoryOf(cdp);
      // Back to the top for the next repetition (untimed).
      await page.evaluate((selector) => (window as unknown as ProbeWindow).__bench.scrollTo(selector, 0), GRID);
      const top = await pollUntil(() => page.evaluate((selector) => document.querySelector(selector) !== null, loadedRow(2)), ROWS_TIMEOUT_MS);
      check(top, () => `the first row's cells did not load again within ${ROWS_TIMEOUT_MS} ms of scrolling back`);
      await pause(500);
    }
    if (errors.length > 0) context(env).log(`  the page reported ${errors.length} error(s), e.g. ${errors[0]}`);
    const label = `Documents, scroll ${thousands(DOCS)} rows in ${FRAME_MS / 1000} s`;
    const m = memoryScrolled as Memory;
    const mi = memoryIdle as Memory;
    const elementsMax = Math.max(...scrolled.map((r) => r.elementsMax));
    return [
      ...frameRows(label, scrolled, idle),
      {
        name: `JS heap after scrolling to row ${thousands(DOCS)} (raw: same page at the top); DOM nodes ${thousands(mi.nodes)} → ${thousands(m.nodes)}, elements ≤ ${thousands(elementsMax)} while scrolling`,
        kind: 'memory',
        ours: m.heapMB,
        raw: mi.heapMB,
        repetitions: 1,
      },
    ];
  } finally {
    await page.close().catch(() => {});
  }
}

// ---- the suite ----

const PARTS = ['panels', 'logs', 'documents'] as const;

/**
 * The parts of the suite to run: all, or those `SYNCMESH_BENCH_INSPECTOR_PARTS` names
 * (comma-separated: panels, logs, documents), to measure one part again without the others.
 */
function benchParts(): ReadonlySet<string> {
  const named = process.env.SYNCMESH_BENCH_INSPECTOR_PARTS;
  if (named === undefined || named.trim() === '') return new Set(PARTS);
  const parts = named.split(',').map((p) => p.trim());
  const unknown = parts.filter((p) => !(PARTS as readonly string[]).includes(p));
  check(unknown.length === 0, () => `SYNCMESH_BENCH_INSPECTOR_PARTS names ${unknown.join(', ')}; the parts are ${PARTS.join(', ')}`);
  notes.push(`only the parts ${parts.join(', ')} (SYNCMESH_BENCH_INSPECTOR_PARTS)`);
  return new Set(parts);
}

async function run(suiteContext: SuiteContext): Promise<Row[]> {
  notes.length = 0;
  if (!existsSync(CHROMIUM_PATH)) {
    notes.push(
      `skipped: Chromium is missing at ${CHROMIUM_PATH} (install Debian's chromium package, as scripts/ensure-chromium.js does, or set SYNCMESH_CHROMIUM)`,
    );
    return [];
  }
  let playwright: typeof import('playwright-core');
  try {
    playwright = await import('playwright-core');
  } catch (error) {
    notes.push(`skipped: playwright-core cannot be loaded (${(error as Error).message})`);
    return [];
  }
  const renderer = ensureRenderer(suiteContext);
  if ('skip' in renderer) {
    notes.push(`skipped: ${renderer.skip}`);
    return [];
  }

  // Everything opened is closed in reverse order, also when a step fails.
  const cleanups: { what: string; close: () => unknown }[] = [];
  const rows: Row[] = [];
  try {
    const logHub = new LogHub({ minimumLogLevel: 'INFO' });
    const sync = new Sync({ persistenceDirectory: join(suiteContext.tempDir('inspector-peer'), 'store'), logHub });
    cleanups.push({ what: 'the peer', close: () => sync.close() });
    // Created first, as a host creates it when it starts: its timeline records the load's commits.
    const inspector = createInspector(sync);
    cleanups.push({ what: 'the inspector', close: () => inspector.close() });
    await loadPeer(suiteContext, sync);
    sync.store.registerSubscription(`SELECT * FROM ${COLLECTION}`);
    // The flood's entries are mostly DEBUG, as a busy peer's are; the peer has a history of them.
    logHub.minimumLogLevel = 'DEBUG';
    const history = seededRandom(SEED);
    for (let k = 0; k < HISTORY_ENTRIES; k++) emitEntry(logHub, -HISTORY_ENTRIES + k, history);
    const counter = { rows: 0 };
    const server = await startInspectorServer({ inspector: countingSessions(inspector, counter), rendererDir: renderer.dir });
    cleanups.push({ what: 'the inspector server', close: () => server.close() });
    const baseline = await startBaselineServer(COLLECTION, generateDocuments(BASELINE_ROWS, { seed: SEED }));
    cleanups.push({ what: 'the baseline server', close: () => baseline.close() });

    let browser: Browser;
    try {
      browser = await within(
        playwright.chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: LAUNCH_TIMEOUT_MS }),
        LAUNCH_TIMEOUT_MS + 5_000,
        'launching Chromium',
      );
    } catch (error) {
      notes.push(`skipped: Chromium at ${CHROMIUM_PATH} did not start (${(error as Error).message.split('\n')[0]})`);
      return [];
    }
    cleanups.push({ what: 'Chromium', close: () => browser.close() });
    suiteContext.log(`Chromium ${browser.version()}, renderer ${renderer.dir}`);
    const browserContext = await browser.newContext({ viewport: VIEWPORT });
    const env: Environment = { context: suiteContext, sync, logHub, url: server.url, baselineUrl: baseline.url, browserContext, rowsCalls: () => counter.rows };
    const cases = panelCases(sync.peerKey);
    const parts = benchParts();
    if (parts.has('panels')) rows.push(...(await panelRows(env, cases)));
    if (parts.has('logs')) rows.push(...(await logsRows(env, cases.find((c) => c.id === 'logs') as PanelCase)));
    if (parts.has('documents')) rows.push(...(await documentsRows(env, cases.find((c) => c.id === 'documents') as PanelCase)));
    return rows;
  } finally {
    for (const { what, close } of cleanups.reverse()) {
      try {
        await within(Promise.resolve().then(close), CLOSE_TIMEOUT_MS, `closing ${what}`);
      } catch (error) {
        suiteContext.log(`closing ${what} failed: ${(error as Error).message}`);
      }
    }
  }
}
