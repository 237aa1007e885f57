/**
 * The eviction chart's sampler on a stand-in store: its points, its marks (an EVICT's, the run
 * that made it, a re-sync), and that closing leaves no timer or listener behind.
 */
import { describe, expect, it } from 'vitest';
import type { EventName } from '../../../shared/inspector/contract.ts';
import type { EvictionRunInfo } from '../../../shared/inspector/eviction.ts';
import type { ResyncEvent } from '../../store/eviction-watch.ts';
import type { CommittedTransaction } from '../../store/store.ts';
import type { Sync } from '../../sync/sync.ts';
import { ManualTimers } from '../../time.ts';
import type { InspectorContext } from '../context.ts';
import { EvictionSampler, type EvictionRunSource } from './eviction-sampler.ts';

function standIn() {
  const clock = new ManualTimers();
  const commits = new Set<(txn: CommittedTransaction) => void>();
  const resyncs = new Set<(event: ResyncEvent) => void>();
  const runs = new Set<(run: EvictionRunInfo) => void>();
  let documents = 3;
  let disk = { databaseBytes: 3072, walBytes: 1024 };
  let collectionReads = 0;
  const store = {
    onCommit: (l: (txn: CommittedTransaction) => void) => (commits.add(l), () => commits.delete(l)),
    onResync: (l: (event: ResyncEvent) => void) => (resyncs.add(l), () => resyncs.delete(l)),
    collections: () => {
      collectionReads++;
      return [
        { name: 'orders', documents, tombstones: 1 },
        { name: '__presence', documents: 7, tombstones: 0 },
      ];
    },
    diskUsage: () => disk,
  };
  const events: { event: EventName; payload: unknown }[] = [];
  const ctx: InspectorContext = {
    sync: { store } as unknown as Sync,
    now: () => clock.now(),
    timers: clock,
    emit: (event, payload) => events.push({ event, payload }),
  };
  const source: EvictionRunSource = { onRun: (l) => (runs.add(l), () => runs.delete(l)), configured: () => false };
  const sampler = new EvictionSampler(ctx, source, { memory: () => ({ rss: 100, heapUsed: 40 }) });
  const commit = (txnId: number, evicted: number): void => {
    const changes = Array.from({ length: evicted }, (_, i) => ({ collection: 'orders', id: `d${i}`, kind: 'evict' as const, after: null }));
    for (const l of commits) l({ txnId, originator: 'User', hint: undefined, startedAt: clock.now(), durationMs: 0, collections: ['orders'], changes });
  };
  return {
    clock,
    sampler,
    events,
    commit,
    resync: (event: ResyncEvent) => resyncs.forEach((l) => l(event)),
    run: (run: EvictionRunInfo) => runs.forEach((l) => l(run)),
    setDocuments: (n: number) => (documents = n),
    setDisk: (databaseBytes: number, walBytes: number) => (disk = { databaseBytes, walBytes }),
    collectionReads: () => collectionReads,
    listeners: () => commits.size + resyncs.size + runs.size,
  };
}

const RUN: EvictionRunInfo = {
  collection: 'orders',
  strategy: 'local',
  trigger: 'manual',
  forced: true,
  at: 0,
  durationMs: 3,
  outcome: 'evicted',
  evictStatement: 'EVICT FROM orders WHERE createdAt <= :ttl',
  cancelled: [],
  registered: [],
  evicted: 2,
  bytesFreed: 10,
  storeBytesBefore: 20,
  storeBytesAfter: 10,
  kept: 0,
  txnId: 7,
};

describe('the eviction sampler', () => {
  it('takes nothing until started, then a point at once and one a second, documents of application collections only', () => {
    const s = standIn();
    s.clock.advance(5_000);
    expect(s.sampler.samples()).toEqual([]);
    s.sampler.start();
    s.sampler.start();
    s.clock.advance(2_000);
    expect(s.sampler.samples()).toEqual(
      [0, 1, 2].map((i) => ({
        at: s.clock.now() - 2_000 + i * 1_000,
        documents: 3,
        storeBytes: 4096,
        databaseBytes: 3072,
        walBytes: 1024,
        rssBytes: 100,
        heapUsedBytes: 40,
      })),
    );
    expect(s.events.filter((e) => e.event === 'eviction:sample')).toHaveLength(3);
  });

  it('takes the database file and the WAL apart, so that a checkpoint shows as the WAL emptying, not as space freed', () => {
    const s = standIn();
    s.setDisk(832 * 1024, 3_900 * 1024); // 4.7 MB in all, most of it in the WAL
    s.sampler.start();
    s.setDisk(858 * 1024, 32 * 1024); // a TRUNCATE checkpoint: the WAL written back into the file
    s.clock.advance(1_000);
    const [before, after] = s.sampler.samples();
    expect([before?.databaseBytes, before?.walBytes, before?.storeBytes]).toEqual([832 * 1024, 3_900 * 1024, 4_732 * 1024]);
    expect([after?.databaseBytes, after?.walBytes, after?.storeBytes]).toEqual([858 * 1024, 32 * 1024, 890 * 1024]);
  });

  it('counts documents again only after a commit', () => {
    const s = standIn();
    s.sampler.start();
    s.clock.advance(3_000);
    expect(s.collectionReads()).toBe(1);
    s.setDocuments(1);
    s.commit(5, 0);
    s.clock.advance(1_000);
    expect(s.collectionReads()).toBe(2);
    expect(s.sampler.samples().at(-1)?.documents).toBe(1);
  });

  it('marks an EVICT, replaces that mark with the strategy run that made it, and marks a re-sync', () => {
    const s = standIn();
    s.commit(7, 2);
    expect(s.sampler.started).toBe(true);
    s.run({ ...RUN, at: s.clock.now() - 3 });
    s.clock.advance(400);
    s.resync({ collection: 'orders', count: 2, evictedAt: s.clock.now() - 400, at: s.clock.now(), subscriptions: ['SELECT * FROM orders'] });
    expect(s.sampler.marks()).toEqual([
      { kind: 'eviction', at: s.clock.now() - 400, collection: 'orders', evicted: 2, source: 'strategy', outcome: 'evicted', forced: true, txnId: 7 },
      { kind: 'resync', at: s.clock.now(), collection: 'orders', count: 2, evictedAt: s.clock.now() - 400, subscriptions: ['SELECT * FROM orders'] },
    ]);
    // Pushed as each happened: the commit's mark, then the run's in its place, then the re-sync.
    expect(s.events.filter((e) => e.event === 'eviction:mark').map((e) => (e.payload as { source?: string; kind: string }).source ?? e.payload)).toEqual([
      'statement',
      'strategy',
      expect.objectContaining({ kind: 'resync' }),
    ]);
  });

  it('marks a refused run, which has no txn, on its own', () => {
    const s = standIn();
    s.run({ ...RUN, at: s.clock.now(), outcome: 'refused', code: 'eviction/too-soon', evicted: 0, txnId: undefined, forced: false });
    expect(s.sampler.marks()).toEqual([
      {
        kind: 'eviction',
        at: s.clock.now(),
        collection: 'orders',
        evicted: 0,
        source: 'strategy',
        outcome: 'refused',
        forced: false,
        code: 'eviction/too-soon',
      },
    ]);
  });

  it('closes leaving no timer and no listener, and takes nothing more', () => {
    const s = standIn();
    s.sampler.start();
    expect(s.clock.pending).toBe(1);
    expect(s.listeners()).toBe(3);
    s.sampler.close();
    s.sampler.close();
    expect(s.clock.pending).toBe(0);
    expect(s.listeners()).toBe(0);
    s.sampler.start();
    s.clock.advance(5_000);
    expect(s.sampler.samples()).toHaveLength(1);
  });
});
