/**
 * What the Big Peer has not acknowledged, and the bounded wait until it has, on a manual clock
 * with the replicator's figures played by hand.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { SyncError } from '../errors.ts';
import { ManualTimers } from '../time.ts';
import { MAX_REMEMBERED_COMMITS, UploadWatch, type UploadState } from './upload-watch.ts';

describe('UploadWatch', () => {
  let clock: ManualTimers;
  let lastTxnId: number;
  let holds: number | undefined;
  let session: boolean;
  let watch: UploadWatch;

  beforeEach(() => {
    clock = new ManualTimers(Date.UTC(2026, 10, 21, 12, 0, 0));
    lastTxnId = 0;
    holds = undefined;
    session = false;
    watch = new UploadWatch({ timers: clock, lastTxnId: () => lastTxnId, bigPeerHolds: () => holds, bigPeerSession: () => session });
  });

  /** The store commits the next txn_id now. */
  const commit = (): number => {
    lastTxnId++;
    watch.committed(lastTxnId, clock.now());
    return lastTxnId;
  };
  /** The Big Peer acknowledges up to `txnId`. */
  const acknowledge = (txnId: number): void => {
    holds = txnId;
    watch.holdsChanged();
  };
  const settled = async <T>(promise: Promise<T>): Promise<T | 'pending'> =>
    Promise.race([promise, new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')))]);

  it('reports nothing pending for an empty store the Big Peer never spoke of', () => {
    expect(watch.state()).toEqual({
      upTo: 0,
      acknowledgedUpTo: 0,
      pendingCommits: 0,
      pendingTxnIds: undefined,
      pendingSince: undefined,
      bigPeerSession: false,
    });
  });

  it('counts the commits above what the Big Peer holds, names their txn_ids and when the oldest was committed', () => {
    const start = clock.now();
    commit();
    clock.advance(1_000);
    commit();
    clock.advance(1_000);
    commit();
    acknowledge(1);
    session = true;
    expect(watch.state()).toEqual({
      upTo: 3,
      acknowledgedUpTo: 1,
      pendingCommits: 2,
      pendingTxnIds: { first: 2, last: 3 },
      pendingSince: start + 1_000,
      bigPeerSession: true,
    });
    acknowledge(3);
    expect(watch.state()).toMatchObject({ pendingCommits: 0, pendingTxnIds: undefined, pendingSince: undefined });
  });

  it('does not know when commits made before it watched were made', () => {
    lastTxnId = 4; // committed in an earlier run
    holds = 2;
    commit();
    expect(watch.state()).toMatchObject({ pendingCommits: 3, pendingTxnIds: { first: 3, last: 5 }, pendingSince: undefined });
    acknowledge(4);
    expect(watch.state()).toMatchObject({ pendingCommits: 1, pendingTxnIds: { first: 5, last: 5 }, pendingSince: clock.now() });
  });

  it('resolves a wait at once, with nothing pending, when the Big Peer already holds everything', async () => {
    commit();
    acknowledge(1);
    expect(await watch.wait(10_000)).toMatchObject({ upTo: 1, pendingCommits: 0 });
    expect(clock.pending).toBe(0);
  });

  it('resolves a wait once the Big Peer holds the last txn_id committed when the wait began, not waiting for later commits', async () => {
    commit();
    commit();
    const waiting = watch.wait(10_000);
    commit();
    acknowledge(1);
    expect(await settled(waiting)).toBe('pending');
    acknowledge(2);
    expect(await waiting).toEqual({
      upTo: 2,
      acknowledgedUpTo: 2,
      pendingCommits: 0,
      pendingTxnIds: undefined,
      pendingSince: undefined,
      bigPeerSession: false,
    });
    expect(clock.pending).toBe(0);
    expect(watch.state()).toMatchObject({ pendingCommits: 1, pendingTxnIds: { first: 3, last: 3 } });
  });

  it('resolves a wait at its bound with what is still pending, and not a millisecond before', async () => {
    const committedAt = clock.now();
    commit();
    commit();
    acknowledge(1);
    const waiting = watch.wait(2_000);
    clock.advance(1_999);
    expect(await settled(waiting)).toBe('pending');
    clock.advance(1);
    const state: UploadState = await waiting;
    expect(state).toEqual({
      upTo: 2,
      acknowledgedUpTo: 1,
      pendingCommits: 1,
      pendingTxnIds: { first: 2, last: 2 },
      pendingSince: committedAt,
      bigPeerSession: false,
    });
  });

  it('answers a wait of 0 at once with what is pending', async () => {
    commit();
    expect(await watch.wait(0)).toMatchObject({ pendingCommits: 1 });
    expect(clock.pending).toBe(0);
  });

  it('rejects a wait with sync/closed when it closes first, and refuses waits afterwards', async () => {
    commit();
    const waiting = watch.wait(10_000);
    watch.close();
    await expect(waiting).rejects.toThrow(SyncError);
    await expect(waiting).rejects.toMatchObject({ code: 'sync/closed' });
    expect(clock.pending).toBe(0);
    await expect(watch.wait(1_000)).rejects.toMatchObject({ code: 'sync/closed' });
  });

  it('remembers commit times up to a bound while nothing is acknowledged, keeping the oldest', () => {
    const first = clock.now();
    for (let i = 0; i < MAX_REMEMBERED_COMMITS + 5; i++) {
      commit();
      clock.advance(1);
    }
    expect(watch.state()).toMatchObject({ pendingCommits: MAX_REMEMBERED_COMMITS + 5, pendingSince: first });
    acknowledge(MAX_REMEMBERED_COMMITS + 1);
    expect(watch.state()).toMatchObject({ pendingCommits: 4, pendingSince: undefined });
  });
});
