/**
 * The eviction strategies as one operation each: the local cycle of spec 3.2 (cancel, EVICT,
 * register narrowed to the new TTL) and its refusal of an overlapping pair; the Big Peer
 * strategy, which evicts only what the Big Peer has acknowledged; the once-a-day rule, the
 * low-activity window and the quiet store, on an injected clock. Peers replicate over the
 * in-memory transport (test-mesh.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/log.ts';
import { LogHub } from '../log/log-hub.ts';
import { createMesh, ids, type Mesh, type MeshPeer } from '../../testing/test-mesh.ts';
import { MemoryStorage } from '../storage/memory-storage.ts';
import { Store } from '../store/store.ts';
import { ManualTimers } from '../time.ts';
import { ReplicationProgress, progressSetting } from '../replication/progress.ts';
import { EvictionManager, type ProgressPort } from './eviction-manager.ts';
import type { ResyncEvent } from '../store/eviction-watch.ts';
import type { EvictionOptions, EvictionRun } from './types.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

const HOUR = 3_600_000;
/** 2026-11-21 12:00 UTC: ManualTimers' start. */
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString();

/** Ten orders: o0–o5 four days old, o6–o9 an hour old. */
async function seed(peer: MeshPeer): Promise<void> {
  const docs: Record<string, unknown> = {};
  const names: string[] = [];
  for (let i = 0; i < 10; i++) {
    docs[`d${i}`] = { _id: `o${i}`, createdAt: iso(i < 6 ? NOW - 96 * HOUR : NOW - HOUR), evictionFlag: false };
    names.push(`(:d${i})`);
  }
  await peer.store.execute(`INSERT INTO orders DOCUMENTS ${names.join(', ')}`, docs);
}

function manager(peer: MeshPeer, timers: ManualTimers, options?: EvictionOptions, keepProgress = true): EvictionManager {
  const saved = new ReplicationProgress(peer.store.internalSettings);
  const progress: ProgressPort = {
    remotes: () => peer.replicator.sessions().map((s) => s.remote.peerKey),
    load: (r) => saved.load(r),
    setting: progressSetting,
  };
  return new EvictionManager(
    {
      store: peer.store,
      timers,
      logger: peer.hub.logger('eviction'),
      bigPeerHolds: () => peer.replicator.bigPeerHolds(),
      ...(keepProgress ? { progress } : {}),
    },
    options,
  );
}

const messages = (peer: MeshPeer, event: string): string[] => peer.logs.filter((e: LogEntry) => e.event === event).map((e) => e.message);
const appSubscriptions = (peer: MeshPeer): string[] => peer.store.subscriptions.filter((s) => !s.isInternal).map((s) => s.statement);

/** A Big Peer holding the seed, a small peer subscribed to all of it, both settled. */
async function syncedPair(subscription = 'SELECT * FROM orders'): Promise<{ big: MeshPeer; small: MeshPeer }> {
  const big = mesh.peer('big', { bigPeer: true });
  const small = mesh.peer('small');
  await seed(big);
  small.store.registerSubscription(subscription);
  await mesh.connect(small, big);
  await mesh.settle();
  return { big, small };
}

describe('the local strategy, the cycle of spec 3.2 as one operation', () => {
  it('cancels the overlapping subscription, evicts at or before the TTL, registers it narrowed to the new TTL, and nothing comes back', async () => {
    const { small } = await syncedPair();
    const resyncs: ResyncEvent[] = [];
    small.store.onResync((e) => resyncs.push(e));
    const eviction = manager(small, new ManualTimers(NOW), { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], scheduled: false });
    const run = await eviction.runNow('orders');
    await mesh.settle();
    expect(run).toMatchObject({
      outcome: 'evicted',
      ttl: iso(NOW - 72 * HOUR),
      evictStatement: 'EVICT FROM `orders` WHERE `createdAt` <= :ttl',
      cancelled: ['SELECT * FROM orders'],
      registered: ['SELECT * FROM `orders` WHERE `createdAt` > :ttl'],
      evicted: 6,
      kept: 0,
    });
    expect(run.bytesFreed).toBeGreaterThan(6 * 50);
    expect(await ids(small, 'orders')).toEqual(['o6', 'o7', 'o8', 'o9']);
    expect(appSubscriptions(small)).toEqual(['SELECT * FROM `orders` WHERE `createdAt` > :ttl']);
    expect(resyncs).toEqual([]);
    expect(messages(small, 'eviction.overlap')).toEqual([]);
    expect(messages(small, 'eviction.ran')).toEqual([
      `Eviction ran; collection = orders; strategy = local; trigger = manual; cancelled = SELECT * FROM orders; evicted = 6; bytes_freed = ${run.bytesFreed}; store_bytes = 0 -> 0; registered = SELECT * FROM \`orders\` WHERE \`createdAt\` > :ttl; kept_not_at_big_peer = 0; txn_id = ${run.txnId}`,
    ]);
  });

  it('keeps what the peer holds of the Big Peer across the cycle: the Big Peer sends nothing again', async () => {
    for (const keepProgress of [true, false]) {
      const { small } = await syncedPair();
      const eviction = manager(
        small,
        new ManualTimers(NOW),
        { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], scheduled: false },
        keepProgress,
      );
      const before = small.logs.length;
      await eviction.runNow('orders');
      await mesh.settle();
      const merged = small.logs.slice(before).filter((e) => e.event === 'replication.chunk-merged');
      // Without keeping it, the Big Peer sends the four orders still held again.
      expect(merged.length === 0).toBe(keepProgress);
      mesh.dispose();
      mesh = createMesh();
    }
  });

  it('keeps the rest of an application subscription when it narrows it, and replaces its own narrowed one on the next run', async () => {
    const { small } = await syncedPair("SELECT * FROM orders WHERE _id != 'o9'");
    const timers = new ManualTimers(NOW);
    const eviction = manager(small, timers, { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], scheduled: false });
    await eviction.runNow('orders');
    expect(appSubscriptions(small)).toEqual(["SELECT * FROM `orders` WHERE (_id != 'o9') AND (`createdAt` > :ttl)"]);
    timers.advance(25 * HOUR);
    const second = await eviction.runNow('orders');
    expect(second.cancelled).toEqual(["SELECT * FROM `orders` WHERE (_id != 'o9') AND (`createdAt` > :ttl)"]);
    expect(appSubscriptions(small)).toEqual(["SELECT * FROM `orders` WHERE (_id != 'o9') AND (`createdAt` > :ttl)"]);
    expect(small.store.subscriptions.find((s) => !s.isInternal)?.args).toEqual({ ttl: iso(NOW + 25 * HOUR - 72 * HOUR) });
  });

  it('keeps its narrowed subscription when configured again, and leaves it to the application when the strategy is removed', async () => {
    const { small } = await syncedPair();
    const options: EvictionOptions = { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], scheduled: false };
    const eviction = manager(small, new ManualTimers(NOW), options);
    await eviction.runNow('orders');
    const narrowed = ['SELECT * FROM `orders` WHERE `createdAt` > :ttl'];
    eviction.configure(options);
    expect(appSubscriptions(small)).toEqual(narrowed);
    expect(eviction.snapshot().collections[0]?.subscription).toBe(narrowed[0]);
    eviction.configure({ strategies: [] });
    expect(appSubscriptions(small)).toEqual(narrowed);
  });

  it('refuses, with an explanation, an EVICT and a subscription that overlap, and changes nothing', async () => {
    const { small } = await syncedPair();
    const eviction = manager(small, new ManualTimers(NOW), {
      strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72, subscribeWhere: "createdAt > '2026-11-01T00:00:00.000Z'" }],
      scheduled: false,
    });
    const run = await eviction.runNow('orders', { force: true });
    expect(run.outcome).toBe('refused');
    expect(run.code).toBe('eviction/overlap');
    expect(run.reason).toContain('both select documents with createdAt > "2026-11-01T00:00:00.000Z" and createdAt <= "2026-11-18T12:00:00.000Z"');
    expect(await ids(small, 'orders')).toHaveLength(10);
    expect(appSubscriptions(small)).toEqual(['SELECT * FROM orders']);
    expect(messages(small, 'eviction.refused')[0]).toMatch(
      /^Eviction refused; collection = orders; strategy = local; trigger = manual; code = eviction\/overlap; reason = the EVICT/,
    );
    // Touching at one point is an overlap too: the documents at exactly the TTL.
    const touching = manager(small, new ManualTimers(NOW), {
      strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72, subscribeWhere: 'createdAt >= :ttl' }],
      scheduled: false,
    });
    expect((await touching.runNow('orders')).code).toBe('eviction/overlap');
  });

  it('refuses a pair it cannot decide from the conditions when stored documents match both', async () => {
    const { small } = await syncedPair();
    const eviction = manager(small, new ManualTimers(NOW), {
      strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72, subscribeWhere: "createdAt LIKE '2026-11%'" }],
      scheduled: false,
    });
    const dry = eviction.dryRun('orders');
    expect(dry.refusal?.code).toBe('eviction/overlap');
    expect(dry.refusal?.message).toContain('both select 6 stored document(s)');
    expect((await eviction.runNow('orders')).outcome).toBe('refused');
  });

  it('dry-runs without changing anything: what it would evict, cancel and register', async () => {
    const { small } = await syncedPair();
    const eviction = manager(small, new ManualTimers(NOW), { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], scheduled: false });
    expect(eviction.dryRun('orders')).toEqual({
      collection: 'orders',
      strategy: 'local',
      ttl: iso(NOW - 72 * HOUR),
      evictStatement: 'EVICT FROM `orders` WHERE `createdAt` <= :ttl',
      subscribeStatement: 'SELECT * FROM `orders` WHERE `createdAt` > :ttl',
      evict: { count: 6, ids: ['o0', 'o1', 'o2', 'o3', 'o4', 'o5'] },
      kept: { count: 0, ids: [] },
      cancel: ['SELECT * FROM orders'],
      comeBack: [],
      overlapping: [],
    });
    expect(await ids(small, 'orders')).toHaveLength(10);
  });

  it('names, in a dry run, a subscription it leaves in place through which documents would come back', async () => {
    const { small } = await syncedPair();
    small.store.registerSubscription("SELECT * FROM orders WHERE _id IN ['o1', 'o2']");
    const eviction = manager(small, new ManualTimers(NOW), { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], scheduled: false });
    // The IN condition cannot be decided from the conditions; it matches evicted documents, so it is cancelled too.
    expect(eviction.dryRun('orders').cancel).toEqual(['SELECT * FROM orders', "SELECT * FROM orders WHERE _id IN ['o1', 'o2']"]);
  });
});

describe('the Big Peer strategy', () => {
  it('registers its subscription to unflagged documents when configured, once however often configured, and cancels it when removed', async () => {
    const small = mesh.peer('small');
    const options: EvictionOptions = { strategies: [{ kind: 'big-peer', collection: 'orders' }], scheduled: false };
    const eviction = manager(small, new ManualTimers(NOW), options);
    expect(appSubscriptions(small)).toEqual(['SELECT * FROM `orders` WHERE evictionFlag == false']);
    eviction.configure(options);
    expect(appSubscriptions(small)).toEqual(['SELECT * FROM `orders` WHERE evictionFlag == false']);
    eviction.configure({ strategies: [] });
    expect(appSubscriptions(small)).toEqual([]);
  });

  it('evicts flagged documents the Big Peer holds and keeps those changed here since, until they have reached it', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    const eviction = manager(small, new ManualTimers(NOW), { strategies: [{ kind: 'big-peer', collection: 'orders' }], scheduled: false });
    await seed(small); // Written on the device…
    const { dialer } = await mesh.connect(small, big);
    await mesh.settle(); // …and synced to the Big Peer.
    expect(await ids(big, 'orders')).toHaveLength(10);
    // The Big Peer's TTL job flags the old ones; the flag replicates.
    await big.store.internalWrites.execute('Internal', 'ttl', 'UPDATE orders SET evictionFlag = true WHERE createdAt <= :ttl AND evictionFlag = false', {
      ttl: iso(NOW - 72 * HOUR),
    });
    await mesh.settle();
    expect((await small.store.execute('SELECT _id FROM orders WHERE evictionFlag = true')).items).toHaveLength(6);
    // Offline, the device changes a flagged order: that change has not reached the Big Peer.
    dialer.close(1000, 'offline');
    await mesh.settle();
    await small.store.execute("UPDATE orders SET note = 'changed offline' WHERE _id = 'o0'");
    const dry = eviction.dryRun('orders');
    expect(dry).toMatchObject({ evict: { count: 5 }, kept: { count: 1, ids: ['o0'] }, comeBack: [] });
    const run = await eviction.runNow('orders');
    expect(run).toMatchObject({ outcome: 'evicted', evicted: 5, kept: 1, cancelled: [], registered: [] });
    expect(await ids(small, 'orders')).toEqual(['o0', 'o6', 'o7', 'o8', 'o9']);
    expect(await ids(big, 'orders')).toHaveLength(10); // Evicted here only.
    // Back online: the change reaches the Big Peer, and the next run evicts o0 too.
    await mesh.connect(small, big);
    await mesh.settle();
    expect((await big.store.execute("SELECT note FROM orders WHERE _id = 'o0'")).items).toEqual([{ note: 'changed offline' }]);
    const next = await eviction.runNow('orders', { force: true });
    expect(next).toMatchObject({ outcome: 'evicted', evicted: 1, kept: 0 });
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['o6', 'o7', 'o8', 'o9']); // Nothing came back.
  });

  it('evicts nothing while it does not know what the Big Peer holds', async () => {
    const small = mesh.peer('small');
    await seed(small);
    await small.store.execute('UPDATE orders SET evictionFlag = true');
    const eviction = manager(small, new ManualTimers(NOW), { strategies: [{ kind: 'big-peer', collection: 'orders' }], scheduled: false });
    const run = await eviction.runNow('orders');
    expect(run).toMatchObject({ outcome: 'evicted', evicted: 0, kept: 10 });
    expect(await ids(small, 'orders')).toHaveLength(10);
  });

  it('refuses while another subscription of the collection would bring the flagged documents back', async () => {
    const { small } = await syncedPair();
    const eviction = manager(small, new ManualTimers(NOW), { strategies: [{ kind: 'big-peer', collection: 'orders' }], scheduled: false });
    const run = await eviction.runNow('orders');
    expect(run.code).toBe('eviction/overlap');
    expect(run.reason).toContain(
      'SELECT * FROM orders of orders selects flagged documents, which would come back after the EVICT; add AND evictionFlag == false',
    );
    // The dry run names it, with that fix as a statement; narrowed so, it no longer overlaps.
    const findAll = small.store.subscriptions.find((s) => s.statement === 'SELECT * FROM orders');
    const { overlapping } = eviction.dryRun('orders');
    expect(overlapping).toEqual([
      { subscriptionId: findAll?.id, statement: 'SELECT * FROM orders', comeBack: 0, narrowed: 'SELECT * FROM `orders` WHERE evictionFlag == false' },
    ]);
    const narrowed = small.store.registerSubscription(overlapping[0]?.narrowed as string);
    findAll?.cancel();
    expect(eviction.dryRun('orders')).toMatchObject({ overlapping: [] });
    expect(eviction.dryRun('orders').refusal).toBeUndefined();
    narrowed.cancel();
  });

  it('tells an overlap as the dry run does, from the conditions alone when they decide it', async () => {
    const { small } = await syncedPair();
    const overlapOf = (options: EvictionOptions): unknown => {
      const eviction = manager(small, new ManualTimers(NOW), { ...options, scheduled: false });
      try {
        const check = eviction.overlap('orders');
        const dry = eviction.dryRun('orders');
        // Whatever the dry run says of an overlap, the check says too.
        expect(check === undefined).toBe(dry.refusal?.code !== 'eviction/overlap');
        if (check !== undefined) expect(check.message).toBe(dry.refusal?.message);
        return check;
      } finally {
        eviction.close();
      }
    };
    // The Big Peer strategy next to the find-all subscription: decided by the conditions (no document counted).
    expect(overlapOf({ strategies: [{ kind: 'big-peer', collection: 'orders' }] })).toMatchObject({
      strategy: 'big-peer',
      overlapping: [{ statement: 'SELECT * FROM orders', comeBack: 0, narrowed: 'SELECT * FROM `orders` WHERE evictionFlag == false' }],
    });
    // The local strategy's usual pair never overlaps; a pair that does is told with the fix.
    expect(overlapOf({ strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }] })).toBeUndefined();
    expect(
      overlapOf({ strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72, evictWhere: 'createdAt <= :ttl', subscribeWhere: 'createdAt >= :ttl' }] }),
    ).toMatchObject({ strategy: 'local', overlapping: [], suggestedSubscribeWhere: 'NOT (createdAt <= :ttl)' });
    // A pair the conditions cannot decide: the stored documents decide, as in the dry run.
    expect(
      overlapOf({
        strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72, evictWhere: 'createdAt <= :ttl', subscribeWhere: 'evictionFlag == false' }],
      }),
    ).toMatchObject({ strategy: 'local' });
  });

  it('narrows an overlapping subscription with a condition of its own, keeping that condition', async () => {
    const { small } = await syncedPair("SELECT * FROM orders WHERE createdAt > '2026-01-01'");
    const eviction = manager(small, new ManualTimers(NOW), { strategies: [{ kind: 'big-peer', collection: 'orders' }], scheduled: false });
    const [overlap] = eviction.dryRun('orders').overlapping;
    expect(overlap?.narrowed).toMatch(/^SELECT \* FROM `orders` WHERE \(.*createdAt.*2026-01-01.*\) AND \(evictionFlag == false\)$/);
    small.store.registerSubscription(overlap?.narrowed as string);
    small.store.subscriptions.find((s) => s.id === overlap?.subscriptionId)?.cancel();
    expect(eviction.dryRun('orders').refusal).toBeUndefined();
  });
});

describe('the schedule, on an injected clock', () => {
  it('refuses a second run within a day unless forced, logging the refusal and the override', async () => {
    const { small } = await syncedPair();
    const timers = new ManualTimers(NOW);
    const eviction = manager(small, timers, { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], scheduled: false });
    expect((await eviction.runNow('orders')).outcome).toBe('evicted');
    timers.advance(23 * HOUR);
    const again = await eviction.runNow('orders');
    expect(again).toMatchObject({ outcome: 'refused', code: 'eviction/too-soon' });
    expect(messages(small, 'eviction.refused')).toEqual([
      `Eviction refused; collection = orders; strategy = local; trigger = manual; code = eviction/too-soon; reason = it ran 23 hours ago, at ${iso(NOW)}; eviction runs at most once per day (spec 8); the next run may start at ${iso(NOW + 24 * HOUR)}`,
    ]);
    const forced = await eviction.runNow('orders', { force: true });
    expect(forced).toMatchObject({ outcome: 'evicted', forced: true });
    expect(messages(small, 'eviction.forced')[0]).toMatch(
      /^Eviction forced, overriding a rule; collection = orders; overriding = eviction\/too-soon: it ran 23 hours ago/,
    );
    timers.advance(24 * HOUR);
    expect((await eviction.runNow('orders')).outcome).toBe('evicted');
  });

  it('remembers the last run across restarts of the peer', async () => {
    const { small } = await syncedPair();
    const timers = new ManualTimers(NOW);
    const options: EvictionOptions = { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], scheduled: false };
    const first = manager(small, timers, options);
    await first.runNow('orders');
    first.close();
    const reopened = manager(small, timers, options);
    expect(reopened.snapshot().collections[0]?.lastRunAt).toBe(NOW);
    expect((await reopened.runNow('orders')).code).toBe('eviction/too-soon');
  });

  it('runs in the low-activity window, once per day', async () => {
    const { small } = await syncedPair();
    const timers = new ManualTimers(NOW); // 12:00 UTC
    const runs: EvictionRun[] = [];
    const eviction = manager(small, timers, { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], window: '02:00-05:00' });
    eviction.onRun((r) => runs.push(r));
    expect(eviction.snapshot().collections[0]?.nextRunAt).toBe(Date.UTC(2026, 10, 22, 2, 0));
    timers.advance(13 * HOUR); // 01:00: not yet
    expect(runs).toEqual([]);
    timers.advance(1 * HOUR); // 02:00
    await waitFor(() => runs.length === 1);
    expect(runs[0]).toMatchObject({ trigger: 'schedule', outcome: 'evicted', at: Date.UTC(2026, 10, 22, 2, 0) });
    await waitFor(() => eviction.snapshot().collections[0]?.nextRunAt === Date.UTC(2026, 10, 23, 2, 0));
    timers.advance(23 * HOUR);
    expect(runs).toHaveLength(1);
    timers.advance(1 * HOUR);
    await waitFor(() => runs.length === 2);
    eviction.close();
    expect(timers.pending).toBe(0);
  });

  it('leaves a strategy with scheduled: false off the schedule while the others keep theirs', async () => {
    const { small } = await syncedPair();
    const timers = new ManualTimers(NOW); // 12:00 UTC
    const runs: EvictionRun[] = [];
    const eviction = manager(small, timers, {
      strategies: [
        { kind: 'local', collection: 'orders', ttlHours: 72, scheduled: false },
        { kind: 'local', collection: 'invoices', ttlHours: 72 },
      ],
      window: '02:00-05:00',
    });
    eviction.onRun((r) => runs.push(r));
    const snapshot = eviction.snapshot();
    expect(snapshot.scheduled).toBe(true);
    expect(snapshot.collections.map((c) => [c.config.collection, c.nextRunAt])).toEqual([
      ['orders', undefined],
      ['invoices', Date.UTC(2026, 10, 22, 2, 0)],
    ]);
    timers.advance(15 * HOUR); // 03:00, inside the window
    await waitFor(() => runs.length === 1);
    expect(runs.map((r) => r.collection)).toEqual(['invoices']);
    // Asked, it runs.
    expect(await eviction.runNow('orders')).toMatchObject({ trigger: 'manual', outcome: 'evicted', evicted: 6 });
    expect(() => eviction.configure({ strategies: [{ kind: 'big-peer', collection: 'orders', scheduled: 'no' as unknown as boolean }] })).toThrow(
      expect.objectContaining({ code: 'eviction/invalid' }),
    );
    eviction.close();
  });

  it('wraps a window past midnight', async () => {
    const small = mesh.peer('small');
    const timers = new ManualTimers(NOW);
    const eviction = manager(small, timers, { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], window: '23:00-01:00' });
    expect(eviction.snapshot().collections[0]?.nextRunAt).toBe(Date.UTC(2026, 10, 21, 23, 0));
    eviction.close();
  });

  it('refuses bad configurations with typed errors and keeps the previous one', async () => {
    const small = mesh.peer('small');
    const eviction = manager(small, new ManualTimers(NOW), { strategies: [{ kind: 'big-peer', collection: 'orders' }], scheduled: false });
    const bad: unknown[] = [
      { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 0 }] },
      { strategies: [{ kind: 'sometimes', collection: 'orders' }] },
      { strategies: [{ kind: 'big-peer', collection: '' }] },
      { strategies: [{ kind: 'big-peer', collection: '__presence' }] },
      {
        strategies: [
          { kind: 'big-peer', collection: 'a' },
          { kind: 'local', collection: 'a', ttlHours: 1 },
        ],
      },
      { strategies: [], window: '2am-5am' },
      { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 1, evictWhere: 'createdAt <=' }] },
    ];
    for (const options of bad) expect(() => eviction.configure(options as EvictionOptions)).toThrow(expect.objectContaining({ code: 'eviction/invalid' }));
    expect(appSubscriptions(small)).toEqual(['SELECT * FROM `orders` WHERE evictionFlag == false']);
    await expect(eviction.runNow('customers')).rejects.toMatchObject({ code: 'eviction/not-configured' });
  });

  it('configures a strategy for an application collection named with a leading __, as for any other', async () => {
    const small = mesh.peer('small');
    const eviction = manager(small, new ManualTimers(NOW), { strategies: [{ kind: 'big-peer', collection: '__private' }], scheduled: false });
    expect(appSubscriptions(small)).toEqual(['SELECT * FROM `__private` WHERE evictionFlag == false']);
    await expect(eviction.runNow('__private')).resolves.toMatchObject({ outcome: 'evicted' });
  });

  it('moves the schedule after a run by hand, and tries a refused pair again the next day, not at once', async () => {
    const { small } = await syncedPair();
    const timers = new ManualTimers(Date.UTC(2026, 10, 22, 1, 0)); // 01:00
    const runs: EvictionRun[] = [];
    const eviction = manager(small, timers, { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }], window: '02:00-05:00' });
    eviction.onRun((r) => runs.push(r));
    await eviction.runNow('orders'); // 01:00, by hand
    expect(eviction.snapshot().collections[0]?.nextRunAt).toBe(Date.UTC(2026, 10, 23, 2, 0));
    timers.advance(5 * HOUR); // through today's window: nothing is due
    expect(runs).toHaveLength(1);
    // A pair that overlaps, scheduled: refused once, then tried the next day.
    eviction.configure({ strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72, subscribeWhere: 'createdAt >= :ttl' }], window: '02:00-05:00' });
    timers.advance(20 * HOUR); // 02:00 the next day
    await waitFor(() => runs.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs.map((r) => r.outcome)).toEqual(['evicted', 'refused']);
    expect(eviction.snapshot().collections[0]?.nextRunAt).toBe(Date.UTC(2026, 10, 24, 2, 0));
    eviction.close();
  });
});

describe('a quiet store', () => {
  it('postpones the scheduled run while a write was blocked in the last quiet minutes', async () => {
    const timers = new ManualTimers(Date.UTC(2026, 10, 22, 1, 50, 0));
    const hub = new LogHub({ minimumLogLevel: 'DEBUG', now: () => timers.now() });
    const logs: LogEntry[] = [];
    hub.setCustomLogCallback((entry) => logs.push(entry));
    const store = new Store({ storage: new MemoryStorage(), peerKey: 'peer', timers, logger: hub.logger('store') });
    await store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'a', createdAt: '2026-01-01T00:00:00.000Z' })");
    const runs: EvictionRun[] = [];
    const eviction = new EvictionManager(
      { store, timers, logger: hub.logger('eviction'), bigPeerHolds: () => undefined },
      { strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72 }] },
    );
    eviction.onRun((r) => runs.push(r));
    // A write blocked for 2 s at 01:55.
    timers.advance(5 * 60_000);
    let release = (): void => {};
    const held = store.transaction(() => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'b', createdAt: '2026-11-21T00:00:00.000Z' })");
    await new Promise((resolve) => setImmediate(resolve));
    timers.advance(2_000);
    release();
    await held;
    await waiting;
    // 02:00: due, but a write was blocked 5 minutes ago: postponed to 15 quiet minutes after it.
    timers.advance(5 * 60_000);
    await waitFor(() => runs.length === 1);
    expect(runs[0]).toMatchObject({ trigger: 'schedule', outcome: 'postponed', code: 'eviction/write-blocked' });
    const blockedAt = Date.UTC(2026, 10, 22, 1, 55, 2);
    expect(eviction.snapshot().collections[0]?.nextRunAt).toBe(blockedAt + 15 * 60_000);
    expect(logs.filter((e) => e.event === 'eviction.postponed').map((e) => e.message)[0]).toContain(`next_run = ${iso(blockedAt + 15 * 60_000)}`);
    // A manual run is refused meanwhile; a forced one runs.
    expect((await eviction.runNow('orders')).code).toBe('eviction/write-blocked');
    timers.advance(10 * 60_000 + 2_000);
    await waitFor(() => runs.some((r) => r.outcome === 'evicted'));
    expect(runs.find((r) => r.outcome === 'evicted')).toMatchObject({ trigger: 'schedule', evicted: 1 });
    eviction.close();
    store.close();
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error('condition not met within 2 s');
}
