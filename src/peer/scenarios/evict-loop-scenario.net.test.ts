/**
 * The evict/re-sync loop scenario over a real WebSocket on 127.0.0.1: a small peer on SQLite in a
 * temporary directory and a Big Peer on SQLite. The wrong way brings the evicted documents back
 * (and the peer warns); the right way (the local strategy's spec 3.2 cycle) brings none back and
 * warns of nothing; the peer is left as found. Refusals: no Big Peer session, a second run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/log.ts';
import { PLAYGROUND_TOKEN, TEST_APP, startTestPeer, type TestPeer } from '../../testing/big-peer/test-helpers.ts';
import { LogHub } from '../log/log-hub.ts';
import { onlinePlayground } from '../auth/identity.ts';
import { Sync } from '../sync/sync.ts';
import { formatCycleLine, runEvictLoopScenario, type EvictLoopCycle } from './evict-loop-scenario.ts';

const WAIT_MS = 10_000;

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let dir: string;
let big: TestPeer;
let sync: Sync;
let logs: LogEntry[];

const connected = (): boolean => sync.sessions.some((s) => s.remote.role === 'big-peer');
const warnings = (event: string): LogEntry[] => logs.filter((e) => e.event === event);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evict-loop-'));
  big = await startTestPeer({ dataDir: join(dir, 'big-peer') });
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  logs = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  sync = new Sync({
    persistenceDirectory: join(dir, 'peer'),
    logHub: hub,
    identity: onlinePlayground({ appID: TEST_APP, token: PLAYGROUND_TOKEN, bigPeerURL: big.url }),
  });
});

afterEach(async () => {
  sync.close();
  await big.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the evict-loop scenario', () => {
  it('reproduces the loop the wrong way, stays clean the right way, and leaves the peer as it found it', async () => {
    await sync.startSync();
    await until('a session with the Big Peer', connected);
    const seen: EvictLoopCycle[] = [];
    let logsBeforeRightWay = 0;
    const onCycle = (row: EvictLoopCycle): void => {
      seen.push(row);
      if (row.way === 'wrong' && row.cycle === 2) logsBeforeRightWay = logs.length;
    };
    const report = await runEvictLoopScenario({ sync, docs: 60, cycles: 2, settleMs: 400, onCycle, memory: () => 42 });

    expect(report.cycles).toEqual(seen);
    expect(report.cycles.map((c) => [c.way, c.cycle])).toEqual([
      ['wrong', 1],
      ['wrong', 2],
      ['right', 1],
      ['right', 2],
    ]);
    // 60 documents over 3 days: the oldest day is 20 of them, the oldest two 40.
    const [w1, w2, r1, r2] = report.cycles as [EvictLoopCycle, EvictLoopCycle, EvictLoopCycle, EvictLoopCycle];
    expect([w1.evicted, w2.evicted]).toEqual([20, 40]);
    expect([w1.resynced, w2.resynced]).toEqual([20, 40]); // Every one came back: the loop.
    expect(w1.bytesReceived).toBeGreaterThan(20 * 200);
    // The right way starts from all 60 (brought back) and evicts one more day each cycle.
    expect([r1.evicted, r2.evicted]).toEqual([20, 20]);
    expect([r1.resynced, r2.resynced]).toEqual([0, 0]);
    for (const row of report.cycles) {
      expect(row.memoryBytes).toBe(42);
      expect(row.storeBytes).toBeGreaterThan(0);
    }
    expect(report).toMatchObject({
      collection: 'evict_loop_demo',
      docs: 60,
      wrong: { evicted: 60, resynced: 60 },
      right: { evicted: 40, resynced: 0 },
      loopDetected: true,
      rightWayClean: true,
    });
    expect(report.verdict).toMatch(
      /^verdict: evict\/re-sync loop reproduced: the wrong way re-synced 60 of 60 evicted documents \([\d.]+ KB received\); the right way re-synced 0 of 40 .*\(spec 3\.2\)$/,
    );
    expect(report.fix).toContain('complementary subscription');

    // The peer said so, the wrong way only: one overlap warning per wrong EVICT, none after.
    const overlaps = warnings('eviction.overlap');
    expect(overlaps.map((e) => e.message)).toEqual([
      expect.stringContaining('subscription = SELECT * FROM evict_loop_demo; come_back = 20 of 20'),
      expect.stringContaining('subscription = SELECT * FROM evict_loop_demo; come_back = 40 of 40'),
    ]);
    expect(warnings('eviction.resynced').length).toBeGreaterThan(0);
    expect(logs.slice(logsBeforeRightWay).filter((e) => e.event === 'eviction.resynced' || e.event === 'eviction.overlap')).toEqual([]);

    // Restored: no subscription of the collection, no strategy; the documents stay on the Big Peer.
    expect(sync.store.subscriptions.filter((s) => s.collection === 'evict_loop_demo' && !s.isCancelled)).toEqual([]);
    expect(sync.eviction.snapshot().collections).toEqual([]);
    const onBig = await big.peer.sync.store.execute('SELECT COUNT(*) AS n FROM evict_loop_demo');
    expect(onBig.items).toEqual([{ n: 60 }]);
    expect(formatCycleLine(w1)).toMatch(/^wrong cycle  1  evicted +20  re-synced +20  store +[\d.]+ [KM]B  memory +42 B  received +[\d.]+ KB  [\d.]+ s$/);
  }, 20_000);

  it('finishes its right-way cycles while another collection replicates in, counts only its own bytes, and leaves the schedule running', async () => {
    // The peer's real eviction configuration: scheduled, a strategy for another collection.
    sync.eviction.configure({ strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], window: '02:00-05:00' });
    const ordersNextRun = sync.eviction.snapshot().collections[0]?.nextRunAt;
    expect(ordersNextRun).toBeGreaterThan(0);
    await sync.startSync();
    await until('a session with the Big Peer', connected);
    // Unrelated replication: a second peer writes to `ticks` every 200 ms (at most 400 writes,
    // stopped at the end), and this peer subscribes to them.
    const writer = new Sync({
      persistenceDirectory: join(dir, 'writer'),
      identity: onlinePlayground({ appID: TEST_APP, token: PLAYGROUND_TOKEN, bigPeerURL: big.url }),
    });
    sync.store.registerSubscription('SELECT * FROM ticks');
    let ticks = 0;
    let writing = true;
    const ticking = (async () => {
      await writer.startSync();
      while (writing && ticks < 400) {
        await writer.store.execute('INSERT INTO ticks DOCUMENTS (:d)', { d: { _id: `tick-${ticks}`, n: ticks, text: 'x'.repeat(500) } });
        ticks++;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    try {
      await until('ticks arriving here', () => sync.receivedFor('ticks').docs > 0);
      const ticksAtRightWay: number[] = [];
      const schedules: { scheduled: boolean; orders: number | undefined; demo: number | undefined; demoScheduled: boolean | undefined }[] = [];
      const maxWaitMs = 15_000;
      const report = await runEvictLoopScenario({
        sync,
        docs: 60,
        cycles: 2,
        settleMs: 600,
        maxWaitMs,
        onCycle: (row) => {
          if (row.way === 'right') ticksAtRightWay.push(sync.receivedFor('ticks').bytes);
          const snapshot = sync.eviction.snapshot();
          const demo = snapshot.collections.find((c) => c.config.collection === 'evict_loop_demo');
          schedules.push({
            scheduled: snapshot.scheduled,
            orders: snapshot.collections.find((c) => c.config.collection === 'orders')?.nextRunAt,
            demo: demo?.nextRunAt,
            demoScheduled: demo?.config.scheduled,
          });
        },
      });
      const right = report.cycles.filter((c) => c.way === 'right');
      // Each right-way cycle ended on its own quiet (600 ms without its collection), not on the limit.
      for (const row of right) expect(row.durationMs).toBeLessThan(maxWaitMs);
      // Unrelated bytes kept arriving meanwhile, and none of them is counted.
      expect(ticksAtRightWay[1]).toBeGreaterThan(ticksAtRightWay[0] as number);
      expect(right.map((r) => r.bytesReceived)).toEqual([0, 0]);
      expect(report.right.bytesReceived).toBe(0);
      expect(report.wrong.bytesReceived).toBeGreaterThan(40 * 200);
      expect(report).toMatchObject({ loopDetected: true, rightWayClean: true, right: { evicted: 40, resynced: 0 } });
      expect(report.verdict).toMatch(/the right way re-synced 0 of 40 \(0 B received\)/);
      // The schedule ran on throughout: orders kept its next run, only the scenario's own strategy was left off it.
      expect(schedules).toHaveLength(4);
      for (const s of schedules.slice(2)) expect(s).toEqual({ scheduled: true, orders: ordersNextRun, demo: undefined, demoScheduled: false });
      expect(sync.eviction.snapshot()).toMatchObject({ scheduled: true, collections: [{ config: { collection: 'orders' }, nextRunAt: ordersNextRun }] });
    } finally {
      writing = false;
      await ticking;
      writer.close();
    }
  }, 60_000);

  it('cancelled during its right way, puts back only what it changed: the other strategies and the schedule stay as they are', async () => {
    sync.eviction.configure({ strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], window: '02:00-05:00', quietAfterBlockedMs: 60_000 });
    const before = sync.eviction.snapshot();
    await sync.startSync();
    await until('a session with the Big Peer', connected);
    const controller = new AbortController();
    const running = runEvictLoopScenario({
      sync,
      docs: 30,
      cycles: 3,
      settleMs: 300,
      signal: controller.signal,
      onCycle: (row) => {
        if (row.way === 'right' && row.cycle === 1) controller.abort(new Error('cancelled'));
      },
    });
    await expect(running).rejects.toThrow('cancelled');
    const after = sync.eviction.snapshot();
    expect(after.collections.map((c) => c.config)).toEqual([{ kind: 'local', collection: 'orders', ttlHours: 72 }]);
    expect({ window: after.window, scheduled: after.scheduled, quiet: after.quietAfterBlockedMs, next: after.collections[0]?.nextRunAt }).toEqual({
      window: before.window,
      scheduled: true,
      quiet: 60_000,
      next: before.collections[0]?.nextRunAt,
    });
    expect(sync.store.subscriptions.filter((s) => s.collection === 'evict_loop_demo' && !s.isCancelled)).toEqual([]);
  }, 20_000);

  it('refuses with scenario/not-connected when the peer has no session with a Big Peer', async () => {
    await expect(runEvictLoopScenario({ sync, docs: 10, cycles: 1 })).rejects.toMatchObject({ code: 'scenario/not-connected' });
    expect(sync.store.subscriptions.filter((s) => !s.isInternal)).toEqual([]);
  });

  it('refuses a second run on the same peer with scenario/busy, and out-of-range sizes with a RangeError', async () => {
    await sync.startSync();
    await until('a session with the Big Peer', connected);
    await expect(runEvictLoopScenario({ sync, docs: 0, cycles: 1 })).rejects.toBeInstanceOf(RangeError);
    await expect(runEvictLoopScenario({ sync, docs: 10, cycles: 21 })).rejects.toBeInstanceOf(RangeError);
    const first = runEvictLoopScenario({ sync, docs: 10, cycles: 1, settleMs: 100 });
    await expect(runEvictLoopScenario({ sync, docs: 10, cycles: 1 })).rejects.toMatchObject({ code: 'scenario/busy' });
    await expect(first).resolves.toMatchObject({ loopDetected: true, rightWayClean: true });
  }, 20_000);

  it('stops when aborted, rejects with the signal reason and cancels what it registered', async () => {
    await sync.startSync();
    await until('a session with the Big Peer', connected);
    const controller = new AbortController();
    const reason = new Error('enough');
    const running = runEvictLoopScenario({
      sync,
      docs: 30,
      cycles: 3,
      settleMs: 200,
      signal: controller.signal,
      onCycle: (row) => {
        if (row.cycle === 1) controller.abort(reason);
      },
    });
    await expect(running).rejects.toBe(reason);
    expect(sync.store.subscriptions.filter((s) => s.collection === 'evict_loop_demo' && !s.isCancelled)).toEqual([]);
    // Another run may start at once.
    await expect(runEvictLoopScenario({ sync, docs: 10, cycles: 1, settleMs: 100 })).resolves.toMatchObject({ loopDetected: true });
  }, 20_000);
});
