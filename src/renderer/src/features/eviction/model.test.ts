import { describe, expect, it } from 'vitest';
import type { EvictionMark, EvictionRunInfo, EvictionSample } from '../../../../shared/inspector/eviction.ts';
import {
  describeMark,
  fixedStrategySetting,
  forceOverrides,
  formatHours,
  predictsRefusal,
  mergeMarks,
  mergeSamples,
  runSummary,
  scenarioTotals,
  strategyRule,
  verdictText,
} from './model.ts';

const sample = (at: number, documents = 1): EvictionSample => ({
  at,
  documents,
  storeBytes: 10,
  databaseBytes: 8,
  walBytes: 2,
  rssBytes: 20,
  heapUsedBytes: 5,
});
const evictMark = (at: number, txnId: number, patch: Partial<EvictionMark> = {}): EvictionMark =>
  ({ kind: 'eviction', at, collection: 'orders', evicted: 2, source: 'statement', outcome: 'evicted', forced: false, txnId, ...patch }) as EvictionMark;

describe('points and marks as they arrive', () => {
  it('appends newer points, keeps one per time in order, and the newest up to the capacity', () => {
    const a = mergeSamples([], [sample(1), sample(2)]);
    expect(mergeSamples(a, [])).toBe(a);
    expect(mergeSamples(a, [sample(3)]).map((s) => s.at)).toEqual([1, 2, 3]);
    expect(mergeSamples(a, [sample(2, 9), sample(0)]).map((s) => [s.at, s.documents])).toEqual([
      [0, 1],
      [1, 1],
      [2, 9],
    ]);
    expect(mergeSamples(a, [sample(3), sample(4), sample(5)], 3).map((s) => s.at)).toEqual([3, 4, 5]);
  });

  it('replaces an EVICT’s mark with its strategy run’s (same txn), keeps re-syncs apart, in time order', () => {
    const first = mergeMarks([], [evictMark(10, 7)]);
    const resync: EvictionMark = { kind: 'resync', at: 12, collection: 'orders', count: 2, evictedAt: 10, subscriptions: [] };
    const merged = mergeMarks(first, [resync, evictMark(10, 7, { source: 'strategy', forced: true })]);
    expect(merged).toEqual([evictMark(10, 7, { source: 'strategy', forced: true }), resync]);
    expect(mergeMarks(merged, [evictMark(5, 3)], 2).map((m) => m.at)).toEqual([10, 12]);
  });
});

describe('the words of the panel', () => {
  it('says what each strategy evicts', () => {
    expect(strategyRule({ kind: 'big-peer', collection: 'orders' })).toBe('flagged by the Big Peer’s TTL job (evictionFlag = true)');
    expect(strategyRule({ kind: 'local', collection: 'orders', ttlHours: 72, field: 'createdAt' })).toBe('createdAt older than 3 d (72 h)');
    expect(strategyRule({ kind: 'local', collection: 'orders', ttlHours: 0.5 })).toBe('createdAt older than 30 min');
    expect(strategyRule({ kind: 'local', collection: 'orders', ttlHours: 1, evictWhere: 'day <= :ttl' })).toBe('WHERE day <= :ttl');
    expect(formatHours(36)).toBe('36 h');
    expect(formatHours(1.5)).toBe('1.5 h');
  });

  it('sums up a run, or says why it did not evict', () => {
    const run: EvictionRunInfo = {
      collection: 'orders',
      strategy: 'local',
      trigger: 'manual',
      forced: false,
      at: 0,
      durationMs: 4,
      outcome: 'evicted',
      evictStatement: 'EVICT FROM orders WHERE createdAt <= :ttl',
      cancelled: ['SELECT * FROM orders'],
      registered: ['SELECT * FROM orders WHERE createdAt > :ttl'],
      evicted: 1200,
      bytesFreed: 46_080,
      storeBytesBefore: 0,
      storeBytesAfter: 0,
      kept: 0,
    };
    expect(runSummary(run)).toBe('evicted 1,200 · 45 KB freed · cancelled 1 · re-registered 1');
    expect(runSummary({ ...run, strategy: 'big-peer', kept: 3 })).toContain('3 kept (not yet at the Big Peer)');
    expect(runSummary({ ...run, outcome: 'refused', code: 'eviction/too-soon', reason: 'ran 2 h ago' })).toBe('ran 2 h ago');
    expect(forceOverrides('eviction/too-soon')).toBe(true);
    expect(forceOverrides('eviction/write-blocked')).toBe(true);
    expect(forceOverrides('eviction/overlap')).toBe(false);
  });

  it('describes marks for their tooltips', () => {
    const at = Date.UTC(2026, 10, 21, 12, 4, 31);
    expect(describeMark(evictMark(at, 7, { source: 'strategy', forced: true }))).toBe('12:04:31 · forced strategy run: 2 documents of orders evicted (txn #7)');
    expect(describeMark(evictMark(at, 7, { outcome: 'refused', code: 'eviction/too-soon', source: 'strategy', txnId: undefined }))).toBe(
      '12:04:31 · strategy run of orders refused (eviction/too-soon)',
    );
    expect(describeMark({ kind: 'resync', at, collection: 'orders', count: 6, evictedAt: at - 400, subscriptions: ['SELECT * FROM orders'] })).toBe(
      '12:04:31 · re-sync: 6 evicted documents of orders came back 0.4 s after the eviction through SELECT * FROM orders',
    );
  });

  it('totals the scenario’s rows per way, and reads its verdict', () => {
    const row = (way: 'wrong' | 'right', resynced: number) => ({
      way,
      cycle: 1,
      evicted: 10,
      resynced,
      storeBytes: 0,
      memoryBytes: 0,
      bytesReceived: 100,
      durationMs: 1,
    });
    expect(scenarioTotals([row('wrong', 10), row('wrong', 9), row('right', 0)], 'wrong')).toEqual({ evicted: 20, resynced: 19, bytesReceived: 200 });
    expect(verdictText('verdict: evict/re-sync loop reproduced: …')).toBe('Evict/re-sync loop reproduced: …');
  });
});

describe('the run dialog’s prediction', () => {
  const refusal = (code: 'eviction/too-soon' | 'eviction/write-blocked' | 'eviction/overlap') => ({ refusal: { code, message: 'why' } });

  it('predicts a refusal of Run now whenever the dry run does, and of Force only for what Force does not override', () => {
    expect(predictsRefusal(undefined, false)).toBe(false);
    expect(predictsRefusal({}, false)).toBe(false);
    expect(predictsRefusal(refusal('eviction/too-soon'), false)).toBe(true);
    expect(predictsRefusal(refusal('eviction/too-soon'), true)).toBe(false);
    expect(predictsRefusal(refusal('eviction/write-blocked'), true)).toBe(false);
    expect(predictsRefusal(refusal('eviction/overlap'), false)).toBe(true);
    expect(predictsRefusal(refusal('eviction/overlap'), true)).toBe(true);
  });
});

describe('the fixed setting of a local strategy whose conditions overlap', () => {
  it('is its settings.json entry with the suggested subscribeWhere, the rest kept', () => {
    const strategy = {
      kind: 'local' as const,
      collection: 'orders',
      field: 'createdAt',
      ttlHours: 72,
      evictWhere: 'createdAt <= :ttl',
      subscribeWhere: 'createdAt >= :ttl',
    };
    expect(JSON.parse(fixedStrategySetting(strategy, 'NOT (createdAt <= :ttl)'))).toEqual({
      kind: 'local',
      collection: 'orders',
      field: 'createdAt',
      ttlHours: 72,
      evictWhere: 'createdAt <= :ttl',
      subscribeWhere: 'NOT (createdAt <= :ttl)',
    });
  });
});
