import { afterEach, describe, expect, it } from 'vitest';
import { LogHub, ManualTimers, Sync } from '../peer/host.ts';
import { TtlJob, ttlSlot, ttlStatement, untilTimeOfDay } from './ttl-job.ts';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString();
const HOUR = 3_600_000;

describe('the TTL job', () => {
  const open: Sync[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });

  async function setUp() {
    const timers = new ManualTimers(NOW);
    const hub = new LogHub({ now: () => timers.now(), minimumLogLevel: 'DEBUG' });
    const sync = new Sync({ inMemory: true, logHub: hub, timers });
    open.push(sync);
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:docs)', {
      docs: [
        { _id: 'old', createdAt: iso(NOW - 100 * HOUR), evictionFlag: false },
        { _id: 'exactly', createdAt: iso(NOW - 72 * HOUR), evictionFlag: false },
        { _id: 'young', createdAt: iso(NOW - 71 * HOUR), evictionFlag: false },
        { _id: 'flagged', createdAt: iso(NOW - 200 * HOUR), evictionFlag: true },
        { _id: 'noflag', createdAt: iso(NOW - 200 * HOUR) },
      ],
    });
    await sync.store.execute("INSERT INTO other DOCUMENTS ({_id: 'x', createdAt: :t, evictionFlag: false})", { t: iso(NOW - 500 * HOUR) });
    return { timers, hub, sync };
  }

  it('flags exactly the documents at or before now minus the TTL that are not yet flagged', async () => {
    const { sync, timers, hub } = await setUp();
    const job = new TtlJob({ store: sync.store, jobs: [{ collection: 'orders', ttlHours: 72 }], timers, logger: hub.logger('ttl') });
    const [run] = await job.runNow();
    expect(run).toEqual({ collection: 'orders', field: 'createdAt', ttl: iso(NOW - 72 * HOUR), flagged: 2, txnId: 3 });
    expect((await sync.store.execute('SELECT _id FROM orders WHERE evictionFlag = true')).items).toEqual([
      { _id: 'exactly' },
      { _id: 'flagged' },
      { _id: 'old' },
    ]);
    expect((await sync.store.execute('SELECT evictionFlag FROM other')).items).toEqual([{ evictionFlag: false }]);
    const lines = hub.recentEntries().map((e) => [e.level, e.message]);
    expect(lines).toContainEqual(['INFO', `TTL job flagged 2 documents; collection = orders; field = createdAt; ttl = ${iso(NOW - 72 * HOUR)}; txn_id = 3`]);
    expect(lines).toContainEqual(['DEBUG', 'Write txn committed; txn_id = 3; originator = Internal']);
  });

  it('flags no document whose createdAt is not a string: a number, a boolean, null, an array or an object', async () => {
    const { sync, timers, hub } = await setUp();
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:docs)', {
      docs: [
        { _id: 'number', createdAt: NOW - 100 * HOUR, evictionFlag: false },
        { _id: 'true', createdAt: true, evictionFlag: false },
        { _id: 'null', createdAt: null, evictionFlag: false },
        { _id: 'array', createdAt: [iso(NOW - 100 * HOUR)], evictionFlag: false },
        { _id: 'object', createdAt: { at: iso(NOW - 100 * HOUR) }, evictionFlag: false },
      ],
    });
    const job = new TtlJob({ store: sync.store, jobs: [{ collection: 'orders', ttlHours: 72 }], timers, logger: hub.logger('ttl') });
    const [run] = await job.runNow();
    expect(run?.flagged).toBe(2);
    expect((await sync.store.execute('SELECT _id FROM orders WHERE evictionFlag = true')).items).toEqual([
      { _id: 'exactly' },
      { _id: 'flagged' },
      { _id: 'old' },
    ]);
  });

  it('runs daily at the configured low-activity time, on the injected clock', async () => {
    const { sync, timers, hub } = await setUp();
    const job = new TtlJob({ store: sync.store, jobs: [{ collection: 'orders', ttlHours: 72, at: '03:00' }], timers, logger: hub.logger('ttl') });
    job.start();
    const ran = () => hub.recentEntries().filter((e) => e.event === 'ttl.ran').length;
    timers.advance(14 * HOUR); // 02:00 next day
    await Promise.resolve();
    expect(ran()).toBe(0);
    timers.advance(HOUR); // 03:00
    await new Promise((r) => setImmediate(r));
    expect(ran()).toBe(1);
    timers.advance(24 * HOUR);
    await new Promise((r) => setImmediate(r));
    expect(ran()).toBe(2);
    job.stop();
    timers.advance(48 * HOUR);
    expect(timers.pending).toBe(0);
  });

  it('runs a scheduled slot once when two nodes share the store: the later node skips it', async () => {
    const { sync, timers, hub } = await setUp();
    const config = { collection: 'orders', ttlHours: 72, at: '03:00' };
    const nodes = [0, 1].map(() => new TtlJob({ store: sync.store, jobs: [config], timers, logger: hub.logger('ttl') }));
    for (const node of nodes) node.start();
    const count = (event: string) => hub.recentEntries().filter((e) => e.event === event).length;
    timers.advance(15 * HOUR); // 03:00 next day: both nodes' timers fire
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect([count('ttl.ran'), count('ttl.skipped')]).toEqual([1, 1]);
    expect(ttlSlot(config, timers.now())).toBe(ttlSlot(config, timers.now() + HOUR));
    timers.advance(24 * HOUR); // the next day's slot: again once
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect([count('ttl.ran'), count('ttl.skipped')]).toEqual([2, 2]);
    // By hand it runs whatever the schedule did.
    expect(await nodes[1]?.runNow()).toHaveLength(1);
    for (const node of nodes) node.stop();
  });

  it('counts schedule slots from the time of day, so that nodes started at different times share them', () => {
    const config = { collection: 'orders', ttlHours: 1, at: '03:00' };
    const day = Date.UTC(2026, 10, 22);
    expect(ttlSlot(config, day + 3 * HOUR)).toBe(ttlSlot(config, day + 26 * HOUR));
    expect(ttlSlot(config, day + 3 * HOUR + 24 * HOUR)).toBe(ttlSlot(config, day + 3 * HOUR) + 1);
    expect(ttlSlot({ ...config, everyHours: 6 }, day + 9 * HOUR)).toBe(ttlSlot({ ...config, everyHours: 6 }, day + 3 * HOUR) + 1);
  });

  it('stops every timer, also of two jobs on the same collection', async () => {
    const { sync, timers, hub } = await setUp();
    const jobs = [
      { collection: 'orders', field: 'createdAt', ttlHours: 72, everyHours: 1 },
      { collection: 'orders', field: 'updatedAt', ttlHours: 72, everyHours: 1 },
    ];
    const job = new TtlJob({ store: sync.store, jobs, timers, logger: hub.logger('ttl') });
    job.start();
    job.stop();
    timers.advance(5 * HOUR);
    await new Promise((r) => setImmediate(r));
    expect(hub.recentEntries().filter((e) => e.event === 'ttl.ran')).toEqual([]);
    expect((await sync.store.execute('SELECT _id FROM orders WHERE evictionFlag = true')).items).toEqual([{ _id: 'flagged' }]);
  });

  it('logs a failed run and keeps its schedule', async () => {
    const { sync, timers, hub } = await setUp();
    const job = new TtlJob({ store: sync.store, jobs: [{ collection: 'orders', ttlHours: 1, everyHours: 1 }], timers, logger: hub.logger('ttl') });
    job.start();
    sync.close();
    timers.advance(HOUR);
    await new Promise((r) => setImmediate(r));
    expect(hub.recentEntries().some((e) => e.event === 'ttl.failed' && e.level === 'ERROR')).toBe(true);
    expect(timers.pending).toBe(1);
    job.stop();
  });

  it('refuses a configuration without a positive TTL or with a malformed time of day', () => {
    const { timers } = { timers: new ManualTimers(NOW) };
    const logger = new LogHub().logger('ttl');
    const store = undefined as never;
    expect(() => new TtlJob({ store, jobs: [{ collection: 'orders', ttlHours: 0 }], timers, logger })).toThrow('ttlHours > 0');
    expect(() => new TtlJob({ store, jobs: [{ collection: 'orders', ttlHours: 1, at: '25:00' }], timers, logger })).toThrow('HH:MM');
  });

  it('writes the update the HTTP form of the job would send', () => {
    expect(ttlStatement('orders', 'createdAt')).toBe('UPDATE `orders` SET evictionFlag = true WHERE `createdAt` <= :ttl AND evictionFlag = false');
    expect(untilTimeOfDay(NOW, '12:30')).toBe(30 * 60_000);
    expect(untilTimeOfDay(NOW, '12:00')).toBe(24 * HOUR);
  });
});
