/**
 * The Big Peer strategy end to end (spec 1.6, 3.1, 4.1): a real Big Peer on 127.0.0.1 and a
 * small peer on a real SQLite store. Orders written on the device reach the Big Peer; the TTL
 * job is sent as `POST /api/v4/store/write` and flags the old ones; the flag replicates; the
 * device evicts them, but not one it changed offline until that change has reached the Big
 * Peer. Nothing is lost: the Big Peer keeps every order and every change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestPeer, post, PLAYGROUND_TOKEN, TEST_APP, TEST_KEY, type TestPeer } from '../../testing/big-peer/test-helpers.ts';
import type { LogEntry } from '../../shared/log.ts';
import { LogHub } from '../log/log-hub.ts';
import { onlinePlayground } from '../auth/identity.ts';
import { Sync } from './sync.ts';

const WAIT_MS = 10_000;
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const HOUR = 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString();

let big: TestPeer;
let dir: string;
let sync: Sync | undefined;
beforeEach(async () => {
  big = await startTestPeer();
  dir = mkdtempSync(join(tmpdir(), 'evict-big-peer-'));
});
afterEach(async () => {
  sync?.close();
  sync = undefined;
  await big.close();
  rmSync(dir, { recursive: true, force: true });
});

function device(): { sync: Sync; logs: LogEntry[] } {
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  sync = new Sync({
    persistenceDirectory: dir,
    logHub: hub,
    identity: onlinePlayground({ appID: TEST_APP, token: PLAYGROUND_TOKEN, bigPeerURL: big.url }),
    sync: { reconnect: { minDelayMs: 20, maxDelayMs: 200 } },
    eviction: { strategies: [{ kind: 'big-peer', collection: 'orders' }], scheduled: false },
  });
  return { sync, logs };
}

const idsOn = async (s: Sync): Promise<string[]> => (await s.store.execute('SELECT _id FROM orders ORDER BY _id')).items.map((r) => String(r._id));
const bigIds = (): Promise<string[]> => idsOn(big.peer.sync);

describe('the Big Peer strategy over WebSocket and HTTP', () => {
  it('flags on the Big Peer, syncs the flag, evicts on the device, and loses nothing that had not reached the Big Peer', async () => {
    const { sync: small, logs } = device();
    expect(small.store.subscriptions.filter((s) => !s.isInternal).map((s) => s.statement)).toEqual(['SELECT * FROM `orders` WHERE evictionFlag == false']);
    await small.startSync();
    const now = Date.now();
    const orders = Array.from({ length: 20 }, (_, i) => ({
      _id: `o${String(i).padStart(2, '0')}`,
      createdAt: iso(i < 12 ? now - 100 * HOUR : now - HOUR),
      evictionFlag: false,
      total: i,
    }));
    await small.store.execute('INSERT INTO orders DOCUMENTS (:orders)', { orders });
    await until('the Big Peer holds the orders', async () => (await bigIds()).length === 20);
    await until('the Big Peer acknowledged them', () => (small.eviction.bigPeerHolds() ?? 0) >= small.store.lastTxnId);

    // The TTL job, as an external scheduler sends it (spec 4.1): flag what is older than 72 h.
    const res = await post(
      `${big.url}/api/v4/store/write`,
      {
        args: { TTL: iso(now - 72 * HOUR) },
        commands: [
          {
            method: 'update',
            collection: 'orders',
            query: 'createdAt <= $args.TTL && evictionFlag == false',
            commands: [{ method: 'set', path: 'evictionFlag', value: true }],
          },
        ],
      },
      { authorization: `Bearer ${TEST_KEY}` },
    );
    expect(res.status).toBe(200);
    await until(
      'the flags reach the device',
      async () => (await small.store.execute('SELECT COUNT(*) AS n FROM orders WHERE evictionFlag = true')).items[0]?.n === 12,
    );
    // The flagged orders came from the Big Peer: it holds them, and the device knows it.
    await until('the device knows the Big Peer holds the flags', () => (small.eviction.bigPeerHolds() ?? 0) >= small.store.lastTxnId);

    // Offline, a cashier corrects a flagged order: the correction has not reached the Big Peer.
    await small.stopSync();
    await small.store.execute("UPDATE orders SET total = 999 WHERE _id = 'o00'");
    const run = await small.eviction.runNow('orders');
    expect(run).toMatchObject({ outcome: 'evicted', evicted: 11, kept: 1, cancelled: [], registered: [] });
    expect(await idsOn(small)).toEqual(['o00', 'o12', 'o13', 'o14', 'o15', 'o16', 'o17', 'o18', 'o19']);
    expect(await bigIds()).toHaveLength(20); // Evicted on the device only.
    expect(logs.find((e) => e.event === 'eviction.ran')?.message).toMatch(
      /evicted = 11; bytes_freed = \d+; store_bytes = \d+ -> \d+; registered = none; kept_not_at_big_peer = 1;/,
    );

    // Back online, the correction reaches the Big Peer; the next run evicts that order too.
    await small.startSync();
    await until(
      'the correction reaches the Big Peer',
      async () => (await big.peer.sync.store.execute("SELECT total FROM orders WHERE _id = 'o00'")).items[0]?.total === 999,
    );
    await until('the Big Peer acknowledged the correction', () => (small.eviction.bigPeerHolds() ?? 0) >= small.store.lastTxnId);
    const next = await small.eviction.runNow('orders', { force: true });
    expect(next).toMatchObject({ outcome: 'evicted', evicted: 1, kept: 0, forced: true });
    // Nothing comes back: the subscription selects only unflagged orders.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await idsOn(small)).toEqual(['o12', 'o13', 'o14', 'o15', 'o16', 'o17', 'o18', 'o19']);
    expect(logs.filter((e) => e.event === 'eviction.resynced' || e.event === 'eviction.overlap')).toEqual([]);
    expect(await bigIds()).toHaveLength(20);
  });

  it('remembers, across a restart offline, how far the Big Peer held this store', async () => {
    const first = device();
    await first.sync.startSync();
    await first.sync.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'a', createdAt: '2026-01-01T00:00:00.000Z', evictionFlag: true })");
    await until('the Big Peer acknowledged it', () => (first.sync.eviction.bigPeerHolds() ?? 0) >= first.sync.store.lastTxnId);
    const held = first.sync.eviction.bigPeerHolds();
    await first.sync.stopSync();
    await until('the watermark is saved', () => first.sync.store.internalSettings.get('replication/big-peer-holds') === String(held));
    first.sync.close();
    const second = device(); // Offline: sync not started.
    expect(second.sync.eviction.bigPeerHolds()).toBe(held);
    expect(await second.sync.eviction.runNow('orders')).toMatchObject({ outcome: 'evicted', evicted: 1, kept: 0 });
  });
});
