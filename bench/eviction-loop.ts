/**
 * The eviction suite's last table: the evict-loop scenario (`runEvictLoopScenario`, issue 8) on
 * a small peer (SQLite) syncing with a Big Peer (SQLite) over a loopback WebSocket, both in this
 * process. N documents over K+1 days; K cycles the wrong way (EVICT with `SELECT * FROM c`
 * still subscribed: the documents come back), then K the right way (the local strategy's spec
 * 3.2 cycle: nothing comes back). Per cycle: replication bytes received (`sync.traffic`),
 * documents re-synced, the store's size on disk, and memory: the rise of the process's RSS
 * from the cycle's EVICT commit to its peak during the cycle (sampled every 10 ms), and the JS
 * heap after a full GC at the end of the cycle against the same at the EVICT commit.
 * ours = the right way, raw = the wrong way: the baseline is the mistake.
 */
import { join } from 'node:path';
import { BigPeer, bigPeerConfig } from '../src/big-peer/index.ts';
import { Sync, formatCycleLine, onlinePlayground, runEvictLoopScenario, type EvictLoopCycle } from '../src/peer/host.ts';
import { check, collectGarbage, within, type Row, type SuiteContext } from './harness.ts';
import { Logs, bytesText, megabytes, thousands } from './eviction-common.ts';
import { SETUP_TIMEOUT_MS } from './peers.ts';

/** N and K. N = 10,000 keeps the suite near a minute in all on 2 cores. */
export const LOOP_DOCS = 10_000;
export const LOOP_CYCLES = 3;
const COLLECTION = 'evict_loop_bench';
const APP_ID = 'bench-eviction';
const PLAYGROUND_TOKEN = 'bench-eviction-playground-token';
/** The whole scenario: writing N, K cycles each way with their waits. */
const SCENARIO_TIMEOUT_MS = 150_000;
const SAMPLE_MS = 10;
/** Right way's bytes received per cycle, at most this share of the wrong way's. */
const RECEIVED_TARGET = 0.05;

interface Memory {
  readonly rssAtEvict: number;
  readonly rssPeak: number;
  readonly heapAtEvict: number;
  readonly heapAfter: number;
}

interface Cycle {
  readonly row: EvictLoopCycle;
  readonly memory: Memory;
}

async function untilConnected(sync: Sync): Promise<void> {
  const deadline = Date.now() + SETUP_TIMEOUT_MS;
  while (!sync.sessions.some((s) => s.remote.role === 'big-peer')) {
    check(Date.now() < deadline, () => `the small peer had no session with the Big Peer after ${SETUP_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Runs the scenario with memory taken around each cycle: at the EVICT's commit (a full GC, then
 * RSS and heap), the RSS peak since, and at the cycle's end (the peak, then a full GC and the heap).
 */
async function measuredScenario(sync: Sync, context: SuiteContext): Promise<{ cycles: Cycle[]; verdict: string }> {
  let atEvict: { rss: number; heap: number } | undefined;
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, SAMPLE_MS);
  const offCommit = sync.store.onCommit((txn) => {
    if (!txn.changes.some((c) => c.kind === 'evict' && c.collection === COLLECTION)) return;
    collectGarbage();
    const m = process.memoryUsage();
    atEvict = { rss: m.rss, heap: m.heapUsed };
    peak = m.rss;
  });
  const memories: Memory[] = [];
  const cycles: Cycle[] = [];
  try {
    const report = await runEvictLoopScenario({
      sync,
      collection: COLLECTION,
      docs: LOOP_DOCS,
      cycles: LOOP_CYCLES,
      signal: AbortSignal.timeout(SCENARIO_TIMEOUT_MS),
      memory: () => {
        const rssPeak = Math.max(peak, process.memoryUsage.rss());
        collectGarbage();
        const m = process.memoryUsage();
        check(atEvict !== undefined, () => 'a cycle ended without an EVICT commit of the collection');
        const start = atEvict as { rss: number; heap: number };
        memories.push({ rssAtEvict: start.rss, rssPeak, heapAtEvict: start.heap, heapAfter: m.heapUsed });
        atEvict = undefined;
        return m.rss;
      },
      onCycle: (row) => {
        const memory = memories.at(-1) as Memory;
        cycles.push({ row, memory });
        context.log(
          `${formatCycleLine(row)}  rss peak +${bytesText(memory.rssPeak - memory.rssAtEvict)}  heap ${memory.heapAfter >= memory.heapAtEvict ? '+' : ''}${bytesText(memory.heapAfter - memory.heapAtEvict)}`,
        );
      },
    });
    check(report.cycles.length === 2 * LOOP_CYCLES, () => `the scenario ran ${report.cycles.length} cycles, expected ${2 * LOOP_CYCLES}`);
    for (const c of report.cycles) check(c.evicted > 0, () => `the ${c.way} way's cycle ${c.cycle} evicted nothing`);
    return { cycles, verdict: report.verdict };
  } finally {
    clearInterval(sampler);
    offCommit();
  }
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

function rowsOf(cycles: readonly Cycle[]): Row[] {
  const way = (w: 'wrong' | 'right'): Cycle[] => cycles.filter((c) => c.row.way === w);
  const wrong = way('wrong');
  const right = way('right');
  const rows: Row[] = [];
  for (let i = 0; i < LOOP_CYCLES; i++) {
    const r = right[i] as Cycle;
    const w = wrong[i] as Cycle;
    rows.push({
      name: `cycle ${i + 1}: received (right: evicted ${thousands(r.row.evicted)}, re-synced ${thousands(r.row.resynced)}; wrong: evicted ${thousands(w.row.evicted)}, re-synced ${thousands(w.row.resynced)})`,
      kind: 'memory',
      ours: megabytes(r.row.bytesReceived),
      raw: megabytes(w.row.bytesReceived),
      repetitions: 1,
    });
  }
  const per = (list: readonly Cycle[], pick: (c: Cycle) => number): number => mean(list.map(pick));
  const pair = (pick: (c: Cycle) => number): { ours: number; raw: number } => ({ ours: megabytes(per(right, pick)), raw: megabytes(per(wrong, pick)) });
  rows.push(
    {
      name: `mean per cycle: received (right ${bytesText(per(right, (c) => c.row.bytesReceived))}, wrong ${bytesText(per(wrong, (c) => c.row.bytesReceived))})`,
      kind: 'memory',
      ...pair((c) => c.row.bytesReceived),
      repetitions: LOOP_CYCLES,
      target: RECEIVED_TARGET,
    },
    { name: 'mean per cycle: RSS peak − RSS at the EVICT', kind: 'memory', ...pair((c) => c.memory.rssPeak - c.memory.rssAtEvict), repetitions: LOOP_CYCLES },
    {
      name: 'mean per cycle: heap after GC at the end − at the EVICT',
      kind: 'memory',
      ...pair((c) => c.memory.heapAfter - c.memory.heapAtEvict),
      repetitions: LOOP_CYCLES,
    },
    { name: 'mean per cycle: store on disk at the end', kind: 'memory', ...pair((c) => c.row.storeBytes), repetitions: LOOP_CYCLES },
  );
  return rows;
}

export async function loopRows(context: SuiteContext): Promise<Row[]> {
  const peerLogs = new Logs();
  const bigLogs = new Logs();
  const dir = context.tempDir('evict-loop');
  const config = bigPeerConfig({
    appID: APP_ID,
    playgroundToken: PLAYGROUND_TOKEN,
    host: '127.0.0.1',
    port: 0,
    dataDir: join(dir, 'big-peer'),
    logLevel: 'WARN',
  });
  const bigPeer = await within(BigPeer.start(config, { logHub: bigLogs.hub }), SETUP_TIMEOUT_MS, 'starting the Big Peer');
  let sync: Sync | undefined;
  try {
    sync = new Sync({
      persistenceDirectory: join(dir, 'peer'),
      logHub: peerLogs.hub,
      identity: onlinePlayground({ appID: APP_ID, token: PLAYGROUND_TOKEN, bigPeerURL: bigPeer.url }),
    });
    await within(sync.startSync(), SETUP_TIMEOUT_MS, 'starting sync');
    await untilConnected(sync);
    context.log(`evict-loop scenario: ${thousands(LOOP_DOCS)} documents, ${LOOP_CYCLES} cycles each way`);
    const started = performance.now();
    const { cycles, verdict } = await measuredScenario(sync, context);
    context.log(`  ${verdict}`);
    context.log(`  ${((performance.now() - started) / 1000).toFixed(1)} s in all`);
    // The wrong way's WARN lines (overlap, re-sync) are what it is meant to show; only ERRORs fail.
    peerLogs.checkpoint(context, 'evict-loop, small peer');
    bigLogs.checkpoint(context, 'evict-loop, Big Peer');
    return rowsOf(cycles);
  } finally {
    if (sync !== undefined) {
      try {
        await within(sync.stopSync(), SETUP_TIMEOUT_MS, 'stopping sync');
      } finally {
        sync.close();
      }
    }
    await bigPeer.close();
  }
}
