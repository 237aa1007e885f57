/**
 * The tombstone reaper on an injected clock: a tombstone stays until it is older than the TTL
 * (from its deletion stamp), then goes in one logged run; runs happen at most once per day and,
 * on the schedule, only inside the window; a peer that uploads reaps only what the Big Peer
 * acknowledged; the reap horizon is saved with the reap.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/log.ts';
import { LogHub } from '../log/log-hub.ts';
import { MemoryStorage } from '../storage/memory-storage.ts';
import { Store } from '../store/store.ts';
import { ManualTimers } from '../time.ts';
import { TombstoneReaper, type ReaperHost, type TombstoneOptions } from './tombstone-reaper.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2026-11-21 12:00 UTC: ManualTimers' start. */
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

const opened: { store: Store; reapers: TombstoneReaper[] }[] = [];
afterEach(() => {
  for (const { store, reapers } of opened.splice(0)) {
    for (const r of reapers) r.close();
    store.close();
  }
});

function setup(options: { reapUpTo?: () => number | undefined; storage?: MemoryStorage } = {}) {
  const timers = new ManualTimers(NOW);
  const hub = new LogHub({ minimumLogLevel: 'VERBOSE', now: () => timers.now() });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((e) => logs.push(e));
  const store = new Store({ storage: options.storage ?? new MemoryStorage(), peerKey: 'peer-a', timers, logger: hub.logger('store') });
  const entry = { store, reapers: [] as TombstoneReaper[] };
  opened.push(entry);
  const host: ReaperHost = { store, timers, logger: hub.logger('tombstones'), reapUpTo: options.reapUpTo ?? (() => undefined) };
  const reaper = (config: TombstoneOptions = { scheduled: false }): TombstoneReaper => {
    const r = new TombstoneReaper(host, config);
    entry.reapers.push(r);
    return r;
  };
  const lines = (event: string): string[] => logs.filter((e) => e.event === event).map((e) => `[${e.level}] ${e.message}`);
  return { timers, store, reaper, lines };
}

async function insertAndDelete(store: Store, ids: string[]): Promise<void> {
  for (const id of ids) await store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: id, n: 1 } });
  for (const id of ids) await store.execute('DELETE FROM orders WHERE _id = :id', { id });
}

const tombstone = (store: Store, id: string): boolean => store.readNow((r) => r.get('orders', id)?.value === null);

/** Lets a scheduled run's write transaction finish. */
const flush = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the tombstone reaper', () => {
  it('keeps a tombstone younger than the TTL and reaps it once it is older, in one logged run', async () => {
    const { timers, store, reaper, lines } = setup();
    await insertAndDelete(store, ['a']);
    const reap = reaper({ ttlDays: 7, scheduled: false });
    timers.advance(6 * DAY);
    const lastTxnId = store.lastTxnId;
    const early = await reap.runNow();
    expect(early).toMatchObject({ outcome: 'reaped', reaped: 0 });
    expect(tombstone(store, 'a')).toBe(true);
    // Nothing old enough: nothing written, no txn_id spent; logged at DEBUG only.
    expect(store.lastTxnId).toBe(lastTxnId);
    expect(lines('tombstones.reaped')[0]).toMatch(/^\[DEBUG\] Tombstones reaped; trigger = manual; .*; reaped = 0; collections = none; .*; txn_id = none$/);

    timers.advance(DAY + 1);
    const run = await reap.runNow();
    expect(run).toMatchObject({ outcome: 'reaped', reaped: 1, collections: { orders: 1 }, trigger: 'manual' });
    expect(store.readNow((r) => r.get('orders', 'a'))).toBeUndefined();
    expect(store.collections().find((c) => c.name === 'orders')).toBeUndefined();
    expect(lines('tombstones.reaped')[1]).toBe(
      `[INFO] Tombstones reaped; trigger = manual; ttl_days = 7; deleted_before = ${new Date(NOW + 1).toISOString()}; reaped = 1; ` +
        `collections = orders: 1; only_uploaded_up_to = all; horizon = ${new Date(NOW + 1).toISOString()} (txn_id 2); txn_id = ${run.txnId}`,
    );
  });

  it('never touches a live document, however old', async () => {
    const { timers, store, reaper } = setup();
    await store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'kept', n: 1 } });
    timers.advance(400 * DAY);
    expect(await reaper().runNow()).toMatchObject({ reaped: 0 });
    expect(store.readNow((r) => r.get('orders', 'kept'))?.value).toEqual({ _id: 'kept', n: 1 });
  });

  it('runs at most once per day: a second run within the day is refused with tombstones/too-soon, unless forced', async () => {
    const { timers, store, reaper, lines } = setup();
    const reap = reaper();
    expect(await reap.runNow()).toMatchObject({ outcome: 'reaped' });
    await insertAndDelete(store, ['a']);
    timers.advance(8 * DAY);
    // A reaper made now (a restart) reads the last run from the store.
    const again = reaper();
    expect(await again.runNow()).toMatchObject({ outcome: 'reaped', reaped: 1 });
    const refused = await again.runNow();
    expect(refused).toMatchObject({ outcome: 'refused', code: 'tombstones/too-soon', reaped: 0 });
    expect(lines('tombstones.refused')[0]).toMatch(
      /^\[WARN\] Tombstone reaping refused; trigger = manual; code = tombstones\/too-soon; reason = it ran 0 minutes ago/,
    );
    const restarted = reaper();
    expect(await restarted.runNow()).toMatchObject({ outcome: 'refused', code: 'tombstones/too-soon' });
    expect(await restarted.runNow({ force: true })).toMatchObject({ outcome: 'reaped', forced: true });
  });

  it('runs on its schedule only inside the window, once per day', async () => {
    const { timers, store, reaper, lines } = setup();
    await insertAndDelete(store, ['a']);
    reaper({ ttlDays: 7, window: '02:00-05:00' });
    expect(lines('tombstones.scheduled')).toEqual([
      `[VERBOSE] Tombstone reaping scheduled; next_run = 2026-11-22T02:00:00.000Z; window = 02:00-05:00; ttl_days = 7`,
    ]);
    timers.advance(13 * HOUR); // 01:00: not yet
    await flush();
    expect(lines('tombstones.reaped')).toEqual([]);
    timers.advance(HOUR); // 02:00
    await flush();
    expect(lines('tombstones.reaped')).toHaveLength(1);
    expect(tombstone(store, 'a')).toBe(true); // a day old: kept
    timers.advance(23 * HOUR); // 01:00 the next day: not again
    await flush();
    expect(lines('tombstones.reaped')).toHaveLength(1);
    for (let day = 0; day < 6; day++) {
      timers.advance(DAY);
      await flush();
    }
    // Day 7 at 02:00: deleted 6 days 14 hours ago, still kept.
    expect(lines('tombstones.reaped')).toHaveLength(7);
    expect(tombstone(store, 'a')).toBe(true);
    timers.advance(DAY);
    await flush();
    expect(lines('tombstones.reaped')).toHaveLength(8);
    expect(tombstone(store, 'a')).toBe(false);
    expect(lines('tombstones.reaped').at(-1)).toContain('trigger = schedule; ttl_days = 7');
    expect(lines('tombstones.reaped').at(-1)).toContain('reaped = 1');
    expect(
      lines('tombstones.reaped').every((l) => {
        const at = /deleted_before = (\S+);/.exec(l)?.[1] as string;
        return new Date(Date.parse(at) + 7 * DAY).getUTCHours() === 2;
      }),
    ).toBe(true);
  });

  it('keeps no timer on a store that holds no tombstone, and starts its schedule at the first one', async () => {
    const { timers, store, reaper } = setup();
    const reap = reaper({ ttlDays: 7 });
    expect(timers.pending).toBe(0);
    expect(reap.snapshot().nextRunAt).toBeUndefined();
    await store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'a' } });
    expect(timers.pending).toBe(0);
    await store.execute("DELETE FROM orders WHERE _id = 'a'");
    expect(timers.pending).toBe(1);
    expect(reap.snapshot().nextRunAt).toBe(Date.UTC(2026, 10, 22, 2, 0, 0));
    reap.close();
    expect(timers.pending).toBe(0);
  });

  it('reaps only tombstones the Big Peer acknowledged on a peer that uploads to one', async () => {
    let holds = 0;
    const { timers, store, reaper } = setup({ reapUpTo: () => holds });
    await insertAndDelete(store, ['a', 'b']); // txn 1, 2 inserts; 3, 4 deletes
    timers.advance(8 * DAY);
    expect(await reaper().runNow()).toMatchObject({ reaped: 0, onlyUploadedUpTo: 0 });
    holds = 3;
    timers.advance(DAY);
    expect(await reaper().runNow()).toMatchObject({ reaped: 1, onlyUploadedUpTo: 3 });
    expect([tombstone(store, 'a'), tombstone(store, 'b')]).toEqual([false, true]);
  });

  it('saves the reap horizon with the reap and never moves it back', async () => {
    const { timers, store, reaper } = setup();
    const reap = reaper();
    expect(reap.snapshot().horizon).toBeUndefined();
    await insertAndDelete(store, ['a']);
    timers.advance(8 * DAY);
    const first = await reap.runNow();
    expect(first.horizon).toEqual({ before: expect.stringMatching(/^[0-9a-f]{16}$/), upto: 2, at: NOW + 8 * DAY });
    timers.advance(DAY);
    const second = await reap.runNow(); // nothing to reap: the horizon stays
    expect(second).toMatchObject({ reaped: 0 });
    expect(reap.snapshot().horizon).toEqual(first.horizon);
  });

  it('refuses a TTL that is not a number of days above 0, or a bad window, with tombstones/invalid', () => {
    const { reaper } = setup();
    const reap = reaper();
    for (const bad of [0, -1, Number.NaN, '7' as unknown as number]) {
      expect(() => reap.configure({ ttlDays: bad })).toThrow(expect.objectContaining({ code: 'tombstones/invalid' }));
    }
    expect(() => reap.configure({ window: '25:00-01:00' })).toThrow(expect.objectContaining({ code: 'tombstones/invalid' }));
    expect(reap.snapshot().ttlDays).toBe(7);
  });
});
