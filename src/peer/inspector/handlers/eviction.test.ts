import { afterEach, describe, expect, it } from 'vitest';
import type { EvictionScenarioCycle, EvictionScenarioReport } from '../../../shared/inspector/eviction.ts';
import { serveCall } from '../serve-call.ts';
import { CallFailed, inspectorKit, turns, type InspectorKit } from '../../../testing/inspector/test-kit.ts';
import { SAMPLE_CAPACITY } from './eviction-sampler.ts';
import type { ScenarioRunner } from './eviction-scenario.ts';

const HOUR = 3_600_000;
const MEMORY = { memory: () => ({ rss: 200_000_000, heapUsed: 50_000_000 }) };
const LOCAL_ORDERS = { strategies: [{ kind: 'local' as const, collection: 'orders', ttlHours: 72 }], scheduled: false };

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

/** Orders 4 and 1 days old, and the find-all subscription that overlaps the eviction. */
async function ordersOldAndNew(k: InspectorKit): Promise<void> {
  const now = k.clock.now();
  await k.sync.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b), (:c)', {
    a: { _id: 'old-1', createdAt: new Date(now - 96 * HOUR).toISOString() },
    b: { _id: 'old-2', createdAt: new Date(now - 100 * HOUR).toISOString() },
    c: { _id: 'new-1', createdAt: new Date(now - 24 * HOUR).toISOString() },
  });
  k.sync.store.registerSubscription('SELECT * FROM orders');
}

describe('eviction:get and the chart', () => {
  it('shows no strategy, and starts sampling when first asked: a point at once, then one a second', async () => {
    kit = inspectorKit({ inspector: { evictionSampler: MEMORY } });
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a' }, b: { _id: 'b' } });
    kit.clock.advance(5_000);
    expect(kit.eventsOf('eviction:sample')).toEqual([]);
    const first = await kit.call('eviction:get');
    expect(first).toMatchObject({
      configured: false,
      collections: [],
      runs: [],
      marks: [],
      sampleEveryMs: 1000,
      sampleCapacity: SAMPLE_CAPACITY,
      scenario: undefined,
      window: '02:00-05:00',
    });
    expect(first.samples).toEqual([
      { at: kit.clock.now(), documents: 2, storeBytes: 0, databaseBytes: 0, walBytes: 0, rssBytes: 200_000_000, heapUsedBytes: 50_000_000 },
    ]);
    kit.clock.advance(3_000);
    expect(kit.eventsOf('eviction:sample')).toHaveLength(4);
    expect((await kit.call('eviction:get')).samples).toHaveLength(4);
  });

  it('samples from the start when a strategy is configured, and counts live documents of application collections only', async () => {
    kit = inspectorKit({ sync: { eviction: LOCAL_ORDERS }, inspector: { evictionSampler: MEMORY } });
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a' }, b: { _id: 'b' } });
    await kit.sync.store.execute("DELETE FROM orders WHERE _id = 'b'");
    kit.clock.advance(1_000);
    // The first point was taken as the inspector started, before this session listened.
    expect((await kit.call('eviction:get')).samples.map((s) => s.documents)).toEqual([0, 1]);
    expect(kit.eventsOf('eviction:sample').map((s) => s.documents)).toEqual([1]);
  });

  it(`keeps the last ${SAMPLE_CAPACITY} points`, async () => {
    kit = inspectorKit({ inspector: { evictionSampler: { ...MEMORY, capacity: 5 } } });
    await kit.call('eviction:get');
    kit.clock.advance(10_000);
    const { samples } = await kit.call('eviction:get');
    expect(samples).toHaveLength(5);
    expect(samples.at(-1)?.at).toBe(kit.clock.now());
  });

  it('marks an EVICT statement at once, starting the sampler', async () => {
    kit = inspectorKit({ inspector: { evictionSampler: MEMORY } });
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a' }, b: { _id: 'b' } });
    const { commitId } = await kit.sync.store.execute('EVICT FROM orders WHERE _id = :id', { id: 'a' });
    expect(kit.eventsOf('eviction:sample')).toHaveLength(1); // the EVICT started the sampler
    expect(kit.eventsOf('eviction:mark')).toEqual([
      { kind: 'eviction', at: kit.clock.now(), collection: 'orders', evicted: 1, source: 'statement', outcome: 'evicted', forced: false, txnId: commitId },
    ]);
    expect((await kit.call('eviction:get')).marks).toEqual(kit.eventsOf('eviction:mark'));
  });
});

describe('eviction:dry-run and eviction:run', () => {
  it('shows the strategy, what a run would evict and the overlapping subscription it cancels first', async () => {
    kit = inspectorKit({ sync: { eviction: LOCAL_ORDERS }, inspector: { evictionSampler: MEMORY } });
    await ordersOldAndNew(kit);
    const state = await kit.call('eviction:get');
    expect(state.configured).toBe(true);
    expect(state.collections).toEqual([
      {
        strategy: { kind: 'local', collection: 'orders', field: 'createdAt', ttlHours: 72 },
        subscription: undefined,
        lastRunAt: undefined,
        lastRun: undefined,
        nextRunAt: undefined,
      },
    ]);
    const dry = await kit.call('eviction:dry-run', { collection: 'orders' });
    expect(dry).toMatchObject({
      collection: 'orders',
      strategy: 'local',
      evict: { count: 2 },
      kept: { count: 0, ids: [] },
      cancel: ['SELECT * FROM orders'],
      comeBack: [],
    });
    expect([...dry.evict.ids].sort()).toEqual(['old-1', 'old-2']);
    expect(dry.evictStatement).toMatch(/^EVICT FROM `orders` WHERE `createdAt` <= :ttl$/);
    expect(dry.refusal).toBeUndefined();
  });

  it('runs the strategy: the run with its counts, a mark for it, eviction:changed; then refuses a second within a day, which Force overrides', async () => {
    kit = inspectorKit({ sync: { eviction: LOCAL_ORDERS }, inspector: { evictionSampler: MEMORY } });
    await ordersOldAndNew(kit);
    const run = await kit.call('eviction:run', { collection: 'orders' });
    expect(run).toMatchObject({
      collection: 'orders',
      strategy: 'local',
      trigger: 'manual',
      forced: false,
      outcome: 'evicted',
      evicted: 2,
      cancelled: ['SELECT * FROM orders'],
    });
    expect(run.registered).toHaveLength(1);
    expect(kit.eventsOf('eviction:changed').length).toBeGreaterThan(0);
    const marks = kit.eventsOf('eviction:mark');
    // The EVICT's commit marked it, then the run made the mark its own.
    expect(marks.at(-1)).toEqual({
      kind: 'eviction',
      at: expect.any(Number),
      collection: 'orders',
      evicted: 2,
      source: 'strategy',
      outcome: 'evicted',
      forced: false,
      txnId: run.txnId,
    });
    const state = await kit.call('eviction:get');
    expect(state.marks).toEqual([marks.at(-1)]);
    expect(state.runs).toEqual([run]);
    expect(state.collections[0]?.lastRun).toEqual(run);

    const again = await kit.call('eviction:run', { collection: 'orders' });
    expect(again).toMatchObject({ outcome: 'refused', code: 'eviction/too-soon', evicted: 0 });
    expect((await kit.call('eviction:get')).marks.at(-1)).toMatchObject({ source: 'strategy', outcome: 'refused', code: 'eviction/too-soon' });
    const forced = await kit.call('eviction:run', { collection: 'orders', force: true });
    expect(forced).toMatchObject({ outcome: 'evicted', forced: true });
  });

  it('answers eviction/not-configured for a collection without a strategy, and refuses bad input before anything runs', async () => {
    kit = inspectorKit({ sync: { eviction: LOCAL_ORDERS } });
    expect(await kit.fail('eviction:dry-run', { collection: 'carts' })).toMatchObject({
      code: 'eviction/not-configured',
      message: expect.stringContaining('orders'),
    });
    expect(await kit.fail('eviction:run', { collection: 'carts' })).toMatchObject({ code: 'eviction/not-configured' });
    expect(await kit.fail('eviction:run', { collection: 'orders', force: 'yes' })).toMatchObject({
      code: 'inspector/bad-request',
      message: 'force: expected true or false, got a string',
    });
    expect(await kit.fail('eviction:run', {})).toMatchObject({ code: 'inspector/bad-request', message: expect.stringMatching(/^collection: missing/) });
    expect(await kit.fail('eviction:dry-run', { collection: 'orders', ttl: 1 })).toMatchObject({
      code: 'inspector/bad-request',
      message: expect.stringMatching(/^ttl: this call takes no such field/),
    });
    expect(await kit.fail('eviction:get', { all: true })).toMatchObject({ code: 'inspector/bad-request' });
    expect((await kit.call('eviction:get')).runs).toEqual([]);
  });
});

describe('a strategy whose subscription overlaps what it evicts', () => {
  it('is flagged on its collection and on the subscription, with the fix, which eviction:narrow-subscription applies', async () => {
    kit = inspectorKit({ sync: { eviction: { strategies: [{ kind: 'big-peer', collection: 'orders' }], scheduled: false } } });
    const findAll = kit.sync.store.registerSubscription('SELECT * FROM orders');
    const state = await kit.call('eviction:get');
    const overlap = state.collections[0]?.overlap;
    expect(overlap).toMatchObject({
      collection: 'orders',
      strategy: 'big-peer',
      message: expect.stringContaining('add AND evictionFlag == false'),
      subscriptions: [
        { subscriptionId: findAll.id, statement: 'SELECT * FROM orders', comeBack: 0, narrowed: 'SELECT * FROM `orders` WHERE evictionFlag == false' },
      ],
    });
    const listed = await kit.call('subscriptions:list');
    expect(listed.local.find((s) => s.id === findAll.id)?.evictionOverlap).toMatchObject({
      collection: 'orders',
      strategy: 'big-peer',
      narrowed: 'SELECT * FROM `orders` WHERE evictionFlag == false',
    });
    // The strategy's own subscription is not flagged.
    expect(listed.local.filter((s) => s.evictionOverlap !== undefined)).toHaveLength(1);

    // One click: the narrowed one registered, the overlapping one cancelled; nothing flagged after.
    const fixed = await kit.call('eviction:narrow-subscription', { collection: 'orders', subscriptionId: findAll.id });
    expect(fixed).toMatchObject({
      cancelled: { id: findAll.id, statement: 'SELECT * FROM orders' },
      registered: { statement: 'SELECT * FROM `orders` WHERE evictionFlag == false' },
    });
    expect(findAll.isCancelled).toBe(true);
    expect((await kit.call('eviction:get')).collections[0]?.overlap).toBeUndefined();
    expect((await kit.call('subscriptions:list')).local.filter((s) => s.evictionOverlap !== undefined)).toEqual([]);
    expect(kit.sync.eviction.dryRun('orders').refusal).toBeUndefined();
    // Asked again, or for a subscription that does not overlap: not found, nothing changed.
    expect(await kit.fail('eviction:narrow-subscription', { collection: 'orders', subscriptionId: findAll.id })).toMatchObject({ code: 'inspector/not-found' });
    expect(await kit.fail('eviction:narrow-subscription', { collection: 'orders', subscriptionId: 'x' })).toMatchObject({ code: 'inspector/bad-request' });
  });

  it('flags a local strategy whose own conditions overlap, with the subscription condition that would not', async () => {
    kit = inspectorKit({
      sync: {
        eviction: {
          strategies: [{ kind: 'local', collection: 'orders', ttlHours: 72, evictWhere: 'createdAt <= :ttl', subscribeWhere: 'createdAt >= :ttl' }],
          scheduled: false,
        },
      },
    });
    const overlap = (await kit.call('eviction:get')).collections[0]?.overlap;
    expect(overlap).toMatchObject({ strategy: 'local', subscriptions: [], suggestedSubscribeWhere: 'NOT (createdAt <= :ttl)' });
    // The suggestion is a condition the strategy accepts, and it no longer overlaps.
    kit.sync.eviction.configure({
      strategies: [
        { kind: 'local', collection: 'orders', ttlHours: 72, evictWhere: 'createdAt <= :ttl', subscribeWhere: overlap?.suggestedSubscribeWhere as string },
      ],
      scheduled: false,
    });
    expect((await kit.call('eviction:get')).collections[0]?.overlap).toBeUndefined();
  });

  it('fixes a local strategy whose own conditions overlap in one call, keeping the rest of its configuration', async () => {
    kit = inspectorKit({
      sync: {
        eviction: {
          strategies: [
            { kind: 'local', collection: 'orders', ttlHours: 72, evictWhere: 'createdAt <= :ttl', subscribeWhere: 'createdAt >= :ttl' },
            { kind: 'local', collection: 'carts', ttlHours: 24 },
          ],
          window: '01:00-04:00',
          scheduled: false,
        },
      },
    });
    const fixed = await kit.call('eviction:fix-strategy', { collection: 'orders' });
    expect(fixed).toEqual({ collection: 'orders', before: 'createdAt >= :ttl', after: 'NOT (createdAt <= :ttl)' });
    const snapshot = kit.sync.eviction.snapshot();
    expect(snapshot.collections.map((c) => c.config)).toEqual([
      { kind: 'local', collection: 'orders', ttlHours: 72, evictWhere: 'createdAt <= :ttl', subscribeWhere: 'NOT (createdAt <= :ttl)' },
      { kind: 'local', collection: 'carts', ttlHours: 24 },
    ]);
    expect([snapshot.window, snapshot.scheduled]).toEqual(['01:00-04:00', false]);
    expect(kit.sync.eviction.dryRun('orders').refusal).toBeUndefined();
    // Asked again: nothing overlaps, nothing changes.
    expect(await kit.fail('eviction:fix-strategy', { collection: 'orders' })).toMatchObject({ code: 'inspector/not-found' });
    expect(await kit.fail('eviction:fix-strategy', { collection: 'carts' })).toMatchObject({ code: 'inspector/not-found' });
    expect(await kit.fail('eviction:fix-strategy', { collection: 7 })).toMatchObject({ code: 'inspector/bad-request' });
  });
});

/** A scenario that runs when told: each `step()` ends one cycle; `finish()` answers. */
function steppedScenario(): { runner: ScenarioRunner; step(row: Partial<EvictionScenarioCycle>): void; finish(): void; aborted(): boolean } {
  let onCycle: ((row: EvictionScenarioCycle) => void) | undefined;
  let resolve: ((report: EvictionScenarioReport) => void) | undefined;
  let signal: AbortSignal | undefined;
  const rows: EvictionScenarioCycle[] = [];
  return {
    runner: (options) =>
      new Promise((res, reject) => {
        onCycle = options.onCycle;
        signal = options.signal;
        resolve = res;
        options.signal?.addEventListener('abort', () => reject(new Error('aborted')));
      }),
    step(partial) {
      const row = {
        way: 'wrong',
        cycle: rows.length + 1,
        evicted: 10,
        resynced: 10,
        storeBytes: 1,
        memoryBytes: 2,
        bytesReceived: 3,
        durationMs: 4,
        ...partial,
      } as EvictionScenarioCycle;
      rows.push(row);
      onCycle?.(row);
    },
    finish() {
      const zero = { evicted: 0, resynced: 0, bytesReceived: 0 };
      resolve?.({
        collection: 'evict_loop_demo',
        docs: 10,
        cycles: rows,
        wrong: zero,
        right: zero,
        loopDetected: true,
        rightWayClean: true,
        verdict: 'verdict: evict/re-sync loop reproduced',
        fix: 'cancel first',
      });
    },
    aborted: () => signal?.aborted === true,
  };
}

describe('eviction:scenario', () => {
  it('pushes each cycle as it ends, shows the one under way, answers the report; one at a time per peer', async () => {
    const scenario = steppedScenario();
    kit = inspectorKit({ inspector: { evictionScenario: scenario.runner } });
    const answer = kit.call('eviction:scenario', { docs: 10, cycles: 1 });
    await turns();
    scenario.step({ way: 'wrong', cycle: 1 });
    expect(kit.eventsOf('eviction:scenario-cycle')).toEqual([{ id: 1, row: expect.objectContaining({ way: 'wrong', cycle: 1 }) }]);
    expect((await kit.call('eviction:get')).scenario).toMatchObject({ id: 1, docs: 10, cycles: 1, rows: [{ way: 'wrong', cycle: 1 }] });
    const other = kit.inspector.openSession();
    expect(await serveCall(other.handlers, 'eviction:scenario', { docs: 5, cycles: 1 })).toMatchObject({ ok: false, error: { code: 'scenario/busy' } });
    scenario.step({ way: 'right', cycle: 1, resynced: 0 });
    scenario.finish();
    const report = await answer;
    expect(report).toMatchObject({ id: 1, verdict: 'verdict: evict/re-sync loop reproduced', fix: 'cancel first', loopDetected: true });
    expect(report.cycles).toHaveLength(2);
    expect((await kit.call('eviction:get')).scenario).toBeUndefined();
    expect(kit.eventsOf('eviction:changed')).toHaveLength(2); // started, ended
  });

  it('is cancelled with inspector/cancelled when its session closes, and another session may then run one', async () => {
    const scenario = steppedScenario();
    kit = inspectorKit({ inspector: { evictionScenario: scenario.runner } });
    const tab = kit.inspector.openSession();
    const answer = serveCall(tab.handlers, 'eviction:scenario', { docs: 10, cycles: 2 });
    await turns();
    scenario.step({});
    tab.close();
    expect(scenario.aborted()).toBe(true);
    expect(await answer).toMatchObject({ ok: false, error: { code: 'inspector/cancelled', message: expect.stringContaining('stopped after 1 of 4 cycles') } });
    expect((await kit.call('eviction:get')).scenario).toBeUndefined();
  });

  it('is cancelled from any window with eviction:scenario-cancel: it answers once stopped, the run answers scenario/cancelled', async () => {
    const scenario = steppedScenario();
    kit = inspectorKit({ inspector: { evictionScenario: scenario.runner } });
    const tab = kit.inspector.openSession();
    const answer = serveCall(tab.handlers, 'eviction:scenario', { docs: 10, cycles: 2 });
    await turns();
    scenario.step({});
    // Another window cancels it.
    expect(await kit.call('eviction:scenario-cancel')).toEqual({ cancelled: true });
    expect(scenario.aborted()).toBe(true);
    // By the time the cancel answered, the scenario had ended: none under way.
    expect((await kit.call('eviction:get')).scenario).toBeUndefined();
    expect(await answer).toMatchObject({ ok: false, error: { code: 'scenario/cancelled', message: expect.stringContaining('cancelled after 1 of 4 cycles') } });
    expect(await kit.call('eviction:scenario-cancel')).toEqual({ cancelled: false });
    expect(await kit.fail('eviction:scenario-cancel', { now: true })).toMatchObject({ code: 'inspector/bad-request' });
  });

  it('refuses docs and cycles out of range before anything runs', async () => {
    let ran = 0;
    kit = inspectorKit({
      inspector: {
        evictionScenario: async () => {
          ran++;
          throw new Error('no');
        },
      },
    });
    for (const input of [
      { docs: 0, cycles: 1 },
      { docs: 100_001, cycles: 1 },
      { docs: 10, cycles: 21 },
      { docs: 1.5, cycles: 1 },
      { docs: 10 },
      { docs: 10, cycles: 1, collection: 'x' },
    ]) {
      expect(await kit.fail('eviction:scenario', input)).toMatchObject({ code: 'inspector/bad-request' });
    }
    expect(ran).toBe(0);
  });

  it('answers the runner’s own error as a value (no Big Peer: scenario/not-connected)', async () => {
    kit = inspectorKit({ inspector: { evictionSampler: MEMORY } });
    expect(await kit.fail('eviction:scenario', { docs: 10, cycles: 1 })).toMatchObject({ code: 'scenario/not-connected' });
  });
});

describe('closing', () => {
  it('frees every timer and listener: no sample, mark or event afterwards', async () => {
    const scenario = steppedScenario();
    kit = inspectorKit({ sync: { eviction: LOCAL_ORDERS }, inspector: { evictionSampler: MEMORY, evictionScenario: scenario.runner } });
    await ordersOldAndNew(kit);
    const answer = kit.call('eviction:scenario', { docs: 10, cycles: 1 }).catch((e: CallFailed) => e.error);
    await turns();
    expect(kit.clock.pending).toBeGreaterThan(0);
    kit.inspector.close();
    expect(scenario.aborted()).toBe(true);
    expect(await answer).toMatchObject({ code: expect.stringMatching(/^inspector\/(cancelled|closed)$/) });
    expect(kit.clock.pending).toBe(0);
    kit.events.length = 0;
    await kit.sync.eviction.runNow('orders', { force: true });
    await kit.sync.store.execute("EVICT FROM orders WHERE _id = 'new-1'");
    kit.clock.advance(10_000);
    await turns();
    expect(kit.events).toEqual([]);
    expect(kit.clock.pending).toBe(0);
  });
});
