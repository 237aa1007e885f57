import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EvictionRunInfo, EvictionScenarioResult, EvictionState } from '../../../../shared/inspector/eviction.ts';
import { createShellSlice } from '../../shell/slice.ts';
import type { SliceCreator } from '../../store/types.ts';
import { testStore } from '../../../../testing/renderer/test-bridge.ts';
import { IDLE_SCENARIO, createEvictionSlice, reconcileScenario, wireEvictionEvents, type EvictionSlice, type ScenarioState } from './slice.ts';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const sample = (i: number) => ({ at: T0 + i * 1000, documents: i, storeBytes: 0, databaseBytes: 0, walBytes: 0, rssBytes: 1, heapUsedBytes: 1 });

function state(patch: Partial<EvictionState> = {}): EvictionState {
  return {
    configured: true,
    window: '02:00-05:00',
    scheduled: true,
    quietAfterBlockedMs: 900_000,
    collections: [],
    runs: [],
    samples: [],
    marks: [],
    sampleEveryMs: 1000,
    sampleCapacity: 900,
    scenario: undefined,
    now: T0,
    ...patch,
  };
}

const RUN: EvictionRunInfo = {
  collection: 'orders',
  strategy: 'local',
  trigger: 'manual',
  forced: false,
  at: T0,
  durationMs: 2,
  outcome: 'refused',
  code: 'eviction/too-soon',
  reason: 'ran 3 h ago',
  evictStatement: 'EVICT FROM orders WHERE createdAt <= :ttl',
  cancelled: [],
  registered: [],
  evicted: 0,
  bytesFreed: 0,
  storeBytesBefore: 0,
  storeBytesAfter: 0,
  kept: 0,
};

function setup() {
  const { store, bridge } = testStore<EvictionSlice>(
    createShellSlice as SliceCreator<Partial<EvictionSlice>>,
    createEvictionSlice as SliceCreator<Partial<EvictionSlice>>,
  );
  const stop = wireEvictionEvents(store);
  return { store, bridge, stop };
}

describe('the Eviction slice', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('collects points and marks pushed from the start, merged with eviction:get without duplicates', async () => {
    const { store, bridge, stop } = setup();
    bridge.emit('eviction:sample', sample(3));
    bridge.emit('eviction:mark', { kind: 'resync', at: T0 + 3000, collection: 'orders', count: 1, evictedAt: T0, subscriptions: [] });
    vi.advanceTimersByTime(300);
    bridge.answer('eviction:get', state({ samples: [sample(1), sample(2), sample(3)] }));
    await store.getState().loadEviction();
    expect(store.getState().eviction.samples.map((s) => s.documents)).toEqual([1, 2, 3]);
    expect(store.getState().eviction.marks).toHaveLength(1);
    expect(store.getState().eviction.state.value?.configured).toBe(true);
    stop();
  });

  it('fetches the state when the panel is shown, and again on eviction:changed while it is (at most once a second)', async () => {
    const { store, bridge, stop } = setup();
    bridge.answer('eviction:get', state());
    bridge.emit('eviction:changed', {});
    expect(bridge.callsTo('eviction:get')).toHaveLength(0);
    store.getState().showPanel('eviction');
    expect(bridge.callsTo('eviction:get')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1100);
    bridge.emit('eviction:changed', {});
    bridge.emit('eviction:changed', {});
    await vi.advanceTimersByTimeAsync(1100);
    expect(bridge.callsTo('eviction:get')).toHaveLength(3);
    stop();
  });

  it('keeps a refused run as a value, and refreshes the state after any run', async () => {
    const { store, bridge, stop } = setup();
    bridge.answer('eviction:get', state()).answer('eviction:run', RUN);
    await store.getState().runEviction('orders', false);
    expect(bridge.callsTo('eviction:run')).toEqual([{ collection: 'orders', force: false }]);
    expect(store.getState().eviction.run).toMatchObject({
      collection: 'orders',
      force: false,
      result: { status: 'ready', value: { outcome: 'refused', code: 'eviction/too-soon' } },
    });
    expect(bridge.callsTo('eviction:get')).toHaveLength(1);
    bridge.answer('eviction:run', { code: 'eviction/not-configured', message: 'no strategy for carts' });
    await store.getState().runEviction('carts', true);
    expect(store.getState().eviction.run).toMatchObject({
      collection: 'carts',
      force: true,
      result: { status: 'error', error: { code: 'eviction/not-configured' } },
    });
    stop();
  });

  it('applies the fix of a local strategy, keeps what the peer answered, and refreshes the state', async () => {
    const { store, bridge, stop } = setup();
    bridge
      .answer('eviction:get', state())
      .answer('eviction:fix-strategy', { collection: 'orders', before: 'createdAt >= :ttl', after: 'NOT (createdAt <= :ttl)' });
    await store.getState().fixOverlappingStrategy('orders');
    expect(bridge.callsTo('eviction:fix-strategy')).toEqual([{ collection: 'orders' }]);
    expect(store.getState().eviction.fixStrategy).toMatchObject({
      collection: 'orders',
      result: { status: 'ready', value: { after: 'NOT (createdAt <= :ttl)' } },
    });
    expect(bridge.callsTo('eviction:get')).toHaveLength(1);
    bridge.answer('eviction:fix-strategy', { code: 'inspector/not-found', message: 'the local strategy of orders does not overlap' });
    await store.getState().fixOverlappingStrategy('orders');
    expect(store.getState().eviction.fixStrategy).toMatchObject({ result: { status: 'error', error: { code: 'inspector/not-found' } } });
    stop();
  });

  it('keeps the dry run of the collection last asked for only', async () => {
    const { store, bridge, stop } = setup();
    bridge.answer('eviction:dry-run', ({ collection }) => ({
      collection,
      strategy: 'local',
      evictStatement: 'EVICT',
      subscribeStatement: 'SELECT',
      evict: { count: 1, ids: ['a'] },
      kept: { count: 0, ids: [] },
      cancel: [],
      comeBack: [],
      overlapping: [],
    }));
    const first = store.getState().dryRunEviction('orders');
    const second = store.getState().dryRunEviction('carts');
    await Promise.all([first, second]);
    expect(store.getState().eviction.dryRun).toMatchObject({ collection: 'carts', result: { status: 'ready', value: { collection: 'carts' } } });
    stop();
  });

  it('shows the scenario’s rows as they come, then its report', async () => {
    const { store, bridge, stop } = setup();
    const report: EvictionScenarioResult = {
      id: 4,
      collection: 'evict_loop_demo',
      docs: 10,
      cycles: [],
      wrong: { evicted: 0, resynced: 0, bytesReceived: 0 },
      right: { evicted: 0, resynced: 0, bytesReceived: 0 },
      loopDetected: true,
      rightWayClean: true,
      verdict: 'verdict: reproduced',
      fix: 'cancel first',
    };
    bridge.answer('eviction:scenario', () => report);
    const row = { way: 'wrong' as const, cycle: 1, evicted: 10, resynced: 10, storeBytes: 0, memoryBytes: 0, bytesReceived: 0, durationMs: 1 };
    const running = store.getState().runEvictionScenario(10, 1);
    expect(store.getState().eviction.scenario).toMatchObject({ status: 'running', docs: 10, cycles: 1, rows: [] });
    bridge.emit('eviction:scenario-cycle', { id: 4, row });
    bridge.emit('eviction:scenario-cycle', { id: 4, row });
    await running;
    expect(store.getState().eviction.scenario).toMatchObject({ status: 'done', id: 4, report: { verdict: 'verdict: reproduced' } });
    stop();
  });
});

describe('cancelling the scenario', () => {
  it('asks the peer to cancel it, and shows this window’s scenario as cancelled (not failed) once its call says so', async () => {
    const { store, bridge, stop } = setup();
    let finish: ((value: unknown) => void) | undefined;
    const ended = new Promise((resolve) => (finish = resolve));
    const cancelAsked: unknown[] = [];
    bridge.answer('eviction:scenario-cancel', (input) => {
      cancelAsked.push(input);
      finish?.(undefined);
      return { cancelled: true };
    });
    bridge.answer('eviction:scenario', () => ({ code: 'scenario/cancelled', message: 'cancelled after 1 of 2 cycles' }));
    bridge.answer('eviction:get', () => state());
    // The scenario's answer comes only after the cancel was asked.
    const running = store.getState().runEvictionScenario(10, 1);
    expect(store.getState().eviction.scenario).toMatchObject({ status: 'running', cancelling: false });
    const cancel = store.getState().cancelEvictionScenario();
    expect(store.getState().eviction.scenario).toMatchObject({ status: 'running', cancelling: true });
    await Promise.all([ended, cancel, running]);
    expect(cancelAsked).toEqual([{}]);
    expect(store.getState().eviction.scenario).toMatchObject({ status: 'cancelled', cancelling: false, error: { code: 'scenario/cancelled' } });
    stop();
  });

  it('ends a scenario started in another window as cancelled, and asks nothing when none runs', async () => {
    const { store, bridge, stop } = setup();
    let asked = 0;
    bridge.answer('eviction:scenario-cancel', () => {
      asked++;
      return { cancelled: true };
    });
    bridge.answer('eviction:get', () => state());
    await store.getState().cancelEvictionScenario();
    expect(asked).toBe(0);
    const row = { way: 'wrong' as const, cycle: 1, evicted: 1, resynced: 1, storeBytes: 0, memoryBytes: 0, bytesReceived: 0, durationMs: 1 };
    store.setState((s) => ({
      eviction: { ...s.eviction, scenario: reconcileScenario(s.eviction.scenario, { id: 3, docs: 5, cycles: 1, startedAt: T0, rows: [row] }) },
    }));
    await store.getState().cancelEvictionScenario();
    expect(asked).toBe(1);
    expect(store.getState().eviction.scenario).toMatchObject({ status: 'cancelled', origin: 'elsewhere', rows: [row] });
    stop();
  });
});

describe('reconcileScenario', () => {
  const IDLE = IDLE_SCENARIO;
  const row = { way: 'wrong' as const, cycle: 1, evicted: 1, resynced: 1, storeBytes: 0, memoryBytes: 0, bytesReceived: 0, durationMs: 1 };
  const running = { id: 2, docs: 5, cycles: 1, startedAt: T0, rows: [row] };

  it('shows a scenario started elsewhere with its rows, and keeps them once it is over', () => {
    const seen = reconcileScenario(IDLE, running);
    expect(seen).toMatchObject({ status: 'running', origin: 'elsewhere', id: 2, rows: [row] });
    expect(reconcileScenario(seen, undefined)).toMatchObject({ status: 'done', origin: 'elsewhere', rows: [row], report: undefined });
  });

  it('learns the id and rows of this window’s own scenario, and leaves its ending to its answer', () => {
    const mine: ScenarioState = { ...IDLE, status: 'running', docs: 5, cycles: 1 };
    expect(reconcileScenario(mine, running)).toMatchObject({ status: 'running', origin: 'here', id: 2, rows: [row] });
    expect(reconcileScenario(mine, undefined)).toBe(mine);
  });
});
