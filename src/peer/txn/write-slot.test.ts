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
      ...[10, 20, 30].map((s) => `DEBUG Write txn blocked; hint = save order; originator = User; blocked_by = Replication; blocking_txn_id = 1; blocked_for = ${s} s`),
      ...[40, 50, 60, 70, 80, 90, 100, 110, 120].map(
        (s) => `WARN Write txn blocked; hint = save order; originator = User; blocked_by = Replication; blocking_txn_id = 1; blocked_for = ${s} s`,
      ),
      ...[130, 140].map((s) => `ERROR Write txn blocked; hint = save order; originator = User; blocked_by = Replication; blocking_txn_id = 1; blocked_for = ${s} s`),
    ]);
    holder.release();
    await blocked;
    expect(waits).toEqual([{ originator: 'User', hint: 'save order', waitedMs: 140_000, blockedBy: 'Replication', blockingTxnId: 1 }]);
    timers.advance(60_000);
    expect(hub.recentEntries()).toHaveLength(14); // no more lines once it has the slot
    expect(timers.pending).toBe(0);
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
