/**
 * The Big Peer's tombstone reaper: configured from its settings (30 days by default, longer than
 * a small peer's 7), it reaps in the Big Peer's store and keeps the reap horizon it tells
 * returning small peers (docs/replication.md, "Tombstone reaping and the resurrection guard").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualTimers } from '../peer/host.ts';
import { startTestPeer, type TestPeer } from '../testing/big-peer/test-helpers.ts';

const DAY = 24 * 3_600_000;

let running: TestPeer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('the Big Peer tombstone reaper', () => {
  it('keeps tombstones 30 days by default and reaps them after, saving the horizon', async () => {
    const timers = new ManualTimers(Date.now());
    // The presence expiry, another daily job, would take the write slot in the days jumped over.
    running = await startTestPeer({ presenceExpiryDays: 0 }, timers);
    const { sync } = running.peer;
    expect(sync.tombstones.snapshot()).toMatchObject({ ttlDays: 30, window: '02:00-05:00', scheduled: true });
    expect(running.logs.map((e) => e.message)).toContain(
      'Tombstone reaping configured; ttl_days = 30; window = 02:00-05:00; scheduled = true; only_uploaded = false',
    );
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'a' } });
    const deleted = await sync.store.execute("DELETE FROM orders WHERE _id = 'a'");
    timers.advance(29 * DAY);
    expect(await sync.tombstones.runNow()).toMatchObject({ reaped: 0 });
    timers.advance(2 * DAY);
    const run = await sync.tombstones.runNow();
    expect(run).toMatchObject({ outcome: 'reaped', reaped: 1, horizon: { upto: deleted.commitId } });
    expect(sync.store.readNow((r) => r.get('orders', 'a'))).toBeUndefined();
    expect(sync.tombstones.snapshot().horizon).toEqual(run.horizon);
  });

  it('keeps them as many days as tombstoneTtlDays says', async () => {
    running = await startTestPeer({ tombstoneTtlDays: 90, tombstoneWindow: '03:00-04:00' });
    expect(running.peer.sync.tombstones.snapshot()).toMatchObject({ ttlDays: 90, window: '03:00-04:00' });
  });
});
