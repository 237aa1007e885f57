import { describe, expect, it } from 'vitest';
import { LogHub } from '../log/log-hub.ts';
import { ManualTimers } from '../time.ts';
import { BLOCKED_LOG_INTERVAL_MS, WriteSlot, blockedLevel, type BlockedWait } from './write-slot.ts';

function setUp() {
  const timers = new ManualTimers();
  const hub = new LogHub({ now: () => timers.now(), minimumLogLevel: 'VERBOSE' });
  let next = 1;
  const waits: BlockedWait[] = [];
  const slot = new WriteSlot({ timers, logger: hub.logger('txn'), nextTxnId: () => next, onWaited: (w) => waits.push(w) });
  return { timers, hub, slot, waits, commit: () => next++ };
}

describe('the write slot', () => {
  it('grants the slot at once when it is free', async () => {
    const { slot } = setUp();
    const lease = await slot.acquire({ originator: 'User', hint: undefined });
    expect(lease.txnId).toBe(1);
    expect(slot.holder).toMatchObject({ originator: 'User', txnId: 1 });
  });

  it('runs writers one at a time in the order they asked', async () => {
    const { slot, commit } = setUp();
    const order: string[] = [];
    const first = await slot.acquire({ originator: 'User', hint: 'a' });
    const waiting = ['b', 'c', 'd'].map((hint) =>
      slot.acquire({ originator: 'Replication', hint }).then((lease) => {
        order.push(`${hint}:${lease.txnId}`);
        commit();
        lease.release();
      }),
    );
    expect(slot.waiting.map((w) => w.hint)).toEqual(['b', 'c', 'd']);
    commit();
    first.release();
    await Promise.all(waiting);
    expect(order).toEqual(['b:2', 'c:3', 'd:4']);
    expect(slot.holder).toBeUndefined();
  });

  it('gives the slot back once however often release is called', async () => {
    const { slot } = setUp();
    const a = await slot.acquire({ originator: 'User', hint: 'a' });
    const b = slot.acquire({ originator: 'User', hint: 'b' });
    a.release();
    const leaseB = await b;
    a.release();
    expect(slot.holder?.hint).toBe('b');
    leaseB.release();
    expect(slot.holder).toBeUndefined();
  });

  it('logs a blocked writer every 10 s: DEBUG up to 30 s, WARN up to 120 s, ERROR beyond', async () => {
    const { slot, timers, hub, waits } = setUp();
    const holder = await slot.acquire({ originator: 'Replication', hint: 'sync batch' });
    const blocked = slot.acquire({ originator: 'User', hint: 'save order' });
    for (let i = 0; i < 14; i++) timers.advance(BLOCKED_LOG_INTERVAL_MS);
    const lines = hub.recentEntries().map((e) => `${e.level} ${e.message}`);
    expect(lines).toEqual([
      ...[10, 20, 30].map(
        (s) => `DEBUG Write txn blocked; hint = save order; originator = User; blocked_by = Replication; blocking_txn_id = 1; blocked_for = ${s} s`,
      ),
      ...[40, 50, 60, 70, 80, 90, 100, 110, 120].map(
        (s) => `WARN Write txn blocked; hint = save order; originator = User; blocked_by = Replication; blocking_txn_id = 1; blocked_for = ${s} s`,
      ),
      ...[130, 140].map(
        (s) => `ERROR Write txn blocked; hint = save order; originator = User; blocked_by = Replication; blocking_txn_id = 1; blocked_for = ${s} s`,
      ),
    ]);
    holder.release();
    await blocked;
    expect(waits).toEqual([
      {
        originator: 'User',
        hint: 'save order',
        waitedMs: 140_000,
        blockedBy: 'Replication',
        blockingTxnId: 1,
        blockingHint: 'sync batch',
        lastLogLevel: 'ERROR',
      },
    ]);
    timers.advance(60_000);
    expect(hub.recentEntries()).toHaveLength(14); // no more lines once it has the slot
    expect(timers.pending).toBe(0);
  });

  it('takes each blocked line’s level from its number, not the measured wait: timers firing late keep the 30 s line DEBUG and the 120 s line WARN, as predicted', async () => {
    const manual = new ManualTimers();
    // A real clock's timers fire a few ms late; these fire 7 ms late, every time.
    const late = {
      now: () => manual.now(),
      setTimeout: (fn: () => void, ms: number) => manual.setTimeout(fn, ms + 7),
      clearTimeout: (h: object) => manual.clearTimeout(h),
    };
    const hub = new LogHub({ now: () => manual.now(), minimumLogLevel: 'VERBOSE' });
    const waits: BlockedWait[] = [];
    const slot = new WriteSlot({ timers: late, logger: hub.logger('txn'), nextTxnId: () => 1, onWaited: (w) => waits.push(w) });
    const holder = await slot.acquire({ originator: 'Replication', hint: 'sync batch' });
    const blocked = slot.acquire({ originator: 'User', hint: 'save order' });
    const predicted: string[] = [];
    for (let i = 0; i < 13; i++) {
      predicted.push(slot.waiters[0]?.nextLogLevel ?? '');
      manual.advance(BLOCKED_LOG_INTERVAL_MS + 50);
    }
    const logged = hub.recentEntries().map((e) => e.level);
    expect(logged).toEqual([...Array(3).fill('DEBUG'), ...Array(9).fill('WARN'), 'ERROR']);
    expect(logged).toEqual(predicted);
    // Deadlines are absolute: 13 lines at 13 × 10 s (+7 ms), not 13 × 10.007 s.
    expect(hub.recentEntries().at(-1)?.message).toMatch(/blocked_for = 130 s$/);
    holder.release();
    await blocked;
    expect(waits[0]?.lastLogLevel).toBe('ERROR');
    expect(manual.pending).toBe(0);
  });

  it('reports a wait released just after the 30 s line on a late clock at DEBUG', async () => {
    const manual = new ManualTimers();
    const late = {
      now: () => manual.now(),
      setTimeout: (fn: () => void, ms: number) => manual.setTimeout(fn, ms + 3),
      clearTimeout: (h: object) => manual.clearTimeout(h),
    };
    const hub = new LogHub({ now: () => manual.now(), minimumLogLevel: 'VERBOSE' });
    const waits: BlockedWait[] = [];
    const slot = new WriteSlot({ timers: late, logger: hub.logger('txn'), nextTxnId: () => 1, onWaited: (w) => waits.push(w) });
    const holder = await slot.acquire({ originator: 'Replication', hint: undefined });
    const blocked = slot.acquire({ originator: 'User', hint: undefined });
    manual.advance(32_500);
    holder.release();
    await blocked;
    expect(waits).toEqual([expect.objectContaining({ waitedMs: 32_500, lastLogLevel: 'DEBUG' })]);
  });

  it('tells each waiting writer when it asked and the levels of its last and next blocked lines', async () => {
    const { slot, timers, waits } = setUp();
    const start = timers.now();
    const holder = await slot.acquire({ originator: 'Internal', hint: 'long' });
    const first = slot.acquire({ originator: 'User', hint: 'a' });
    expect(slot.waiters).toEqual([{ originator: 'User', hint: 'a', since: start, lastLogLevel: null, nextLogLevel: 'DEBUG' }]);
    timers.advance(25_000);
    void slot.acquire({ originator: 'Replication', hint: 'b' });
    expect(slot.waiters.map((w) => [w.hint, w.since - start, w.lastLogLevel, w.nextLogLevel])).toEqual([
      ['a', 0, 'DEBUG', 'DEBUG'],
      ['b', 25_000, null, 'DEBUG'],
    ]);
    timers.advance(5_000);
    expect(slot.waiters[0]).toMatchObject({ lastLogLevel: 'DEBUG', nextLogLevel: 'WARN' });
    timers.advance(90_000);
    expect(slot.waiters[0]).toMatchObject({ lastLogLevel: 'WARN', nextLogLevel: 'ERROR' });
    holder.release();
    (await first).release();
    expect(waits.map((w) => [w.hint, w.waitedMs, w.lastLogLevel])).toEqual([
      ['a', 120_000, 'WARN'],
      ['b', 95_000, 'WARN'],
    ]);
  });

  it('tells a writer that waited less than 10 s that it was never logged', async () => {
    const { slot, timers, waits } = setUp();
    const holder = await slot.acquire({ originator: 'User', hint: 'h' });
    const waiting = slot.acquire({ originator: 'User', hint: 'w' });
    timers.advance(9_999);
    holder.release();
    (await waiting).release();
    expect(waits).toEqual([expect.objectContaining({ waitedMs: 9_999, lastLogLevel: null })]);
  });

  it('puts the level boundaries at exactly 30 s and 120 s', () => {
    expect([29_999, 30_000, 30_001, 119_999, 120_000, 120_001].map(blockedLevel)).toEqual(['DEBUG', 'DEBUG', 'WARN', 'WARN', 'WARN', 'ERROR']);
  });

  it('names a writer without a hint by its place in the queue', async () => {
    const { slot, timers, hub } = setUp();
    await slot.acquire({ originator: 'Internal', hint: undefined });
    void slot.acquire({ originator: 'User', hint: undefined });
    void slot.acquire({ originator: 'User', hint: undefined });
    timers.advance(BLOCKED_LOG_INTERVAL_MS);
    expect(hub.recentEntries().map((e) => e.message)).toEqual([
      'Write txn blocked; position = 1; originator = User; blocked_by = Internal; blocking_txn_id = 1; blocked_for = 10 s',
      'Write txn blocked; position = 2; originator = User; blocked_by = Internal; blocking_txn_id = 1; blocked_for = 10 s',
    ]);
  });

  it('shows writers blocked over 2 minutes at the INFO minimum level', async () => {
    const { slot, timers, hub } = setUp();
    hub.minimumLogLevel = 'INFO';
    await slot.acquire({ originator: 'User', hint: 'long' });
    void slot.acquire({ originator: 'User', hint: 'waiting' });
    timers.advance(130_000);
    expect(hub.recentEntries().map((e) => e.level)).toEqual(['WARN', 'WARN', 'WARN', 'WARN', 'WARN', 'WARN', 'WARN', 'WARN', 'WARN', 'ERROR']);
  });
});

describe('blame for a wait behind several holders', () => {
  it('names the holder a writer waited behind longest, as its blocked lines did, not the one that released last', async () => {
    const { slot, timers, hub, waits, commit } = setUp();
    const a = await slot.acquire({ originator: 'User', hint: 'long import' });
    const replication = slot.acquire({ originator: 'Replication', hint: 'replication from peerB' });
    const user = slot.acquire({ originator: 'User', hint: 'save order' });
    timers.advance(45_000);
    commit();
    a.release();
    const r = await replication;
    timers.advance(1_000);
    commit();
    r.release();
    (await user).release();
    expect(waits.map((w) => [w.hint, w.waitedMs, w.blockedBy, w.blockingTxnId, w.blockingHint])).toEqual([
      ['replication from peerB', 45_000, 'User', 1, 'long import'],
      ['save order', 46_000, 'User', 1, 'long import'],
    ]);
    const named = hub
      .recentEntries()
      .filter((e) => e.fields?.hint === 'save order')
      .map((e) => e.fields?.blocking_txn_id);
    expect(new Set(named)).toEqual(new Set([1]));
  });
});
