import { describe, expect, it } from 'vitest';
import {
  clockTime,
  commitKey,
  durationText,
  commitOrder,
  describeWait,
  describeWaiting,
  mergeBounded,
  summarize,
  waitKey,
  waitOrder,
} from './transactions-model.ts';
import { commit, wait } from '../../../../testing/renderer/transaction-entries.ts';

const empty = { items: [], dropped: 0 };

describe('mergeBounded', () => {
  it('appends commits that arrive in order', () => {
    const merged = mergeBounded(mergeBounded(empty, [commit(1), commit(2)], commitKey, commitOrder), [commit(3)], commitKey, commitOrder);
    expect(merged.items.map((c) => c.txnId)).toEqual([1, 2, 3]);
  });

  it('drops a commit it already has, whether from the snapshot or an event', () => {
    const fromEvents = mergeBounded(empty, [commit(5), commit(6)], commitKey, commitOrder);
    const merged = mergeBounded(fromEvents, [commit(3), commit(4), commit(5)], commitKey, commitOrder);
    expect(merged.items.map((c) => c.txnId)).toEqual([3, 4, 5, 6]);
  });

  it('keeps the last 1,000 and counts the ones it let go', () => {
    let merged = mergeBounded(
      empty,
      Array.from({ length: 900 }, (_, i) => commit(i + 1)),
      commitKey,
      commitOrder,
    );
    merged = mergeBounded(
      merged,
      Array.from({ length: 250 }, (_, i) => commit(i + 901)),
      commitKey,
      commitOrder,
    );
    expect(merged.items).toHaveLength(1_000);
    expect(merged.items[0]?.txnId).toBe(151);
    expect(merged.dropped).toBe(150);
  });

  it('orders waits by when they ended and tells two waits of the same writer apart', () => {
    const a = wait(2_000);
    const b = wait(1_000, { waitedMs: 500 });
    const merged = mergeBounded(mergeBounded(empty, [a], waitKey, waitOrder), [b, a], waitKey, waitOrder);
    expect(merged.items).toEqual([b, a]);
  });

  it('returns the same value when nothing is new (no re-render)', () => {
    const merged = mergeBounded(empty, [commit(1)], commitKey, commitOrder);
    expect(mergeBounded(merged, [commit(1)], commitKey, commitOrder)).toBe(merged);
  });
});

describe('the words for waits', () => {
  it('says who waited, how long, and behind which transaction of whom', () => {
    expect(describeWait(wait(0, { originator: 'User', hint: 'save order', waitedMs: 12_340, blockingTxnId: 45, blockedBy: 'Replication' }))).toBe(
      'User "save order" waited 12 s behind txn #45 (Replication)',
    );
  });

  it('says who waits now and behind whom', () => {
    expect(describeWaiting({ originator: 'Replication', hint: undefined, waitingMs: 45_000 }, { txnId: 7, originator: 'User' })).toBe(
      'Replication waiting 45 s behind txn #7 (User)',
    );
    expect(describeWaiting({ originator: 'User', hint: undefined, waitingMs: 900 }, undefined)).toBe('User waiting 900 ms for the slot');
  });
});

describe('summarize', () => {
  it('counts commits by originator and loud waits within the window', () => {
    const commits = [commit(1, { startedAt: 0 }), commit(2, { originator: 'Replication', startedAt: 5_000, durationMs: 40 }), commit(3, { startedAt: 6_000 })];
    const waits = [wait(500, { logLevel: 'WARN' }), wait(5_500, { logLevel: 'ERROR', waitedMs: 130_000 }), wait(6_000, { logLevel: null })];
    const summary = summarize(commits, waits, 1_000);
    expect(summary.commits).toBe(2);
    expect(summary.byOriginator).toEqual({ User: 1, Internal: 0, Replication: 1 });
    expect(summary.longest?.txnId).toBe(2);
    expect(summary.waits).toBe(2);
    expect(summary.loudWaits).toBe(1);
    expect(summary.longestWait?.waitedMs).toBe(130_000);
  });
});

describe('clockTime', () => {
  it('writes the UTC time of day, as log lines do', () => {
    expect(clockTime(Date.UTC(2026, 10, 21, 22, 19, 12, 365))).toBe('22:19:12.365');
    expect(clockTime(Date.UTC(2026, 10, 21, 22, 19, 12, 365), false)).toBe('22:19:12');
  });
});

describe('durationText', () => {
  it('does not pretend to more precision than the peer measured', () => {
    expect(durationText(0)).toBe('<1 ms');
    expect(durationText(3)).toBe('3 ms');
    expect(durationText(2.5)).toBe('2.5 ms');
    expect(durationText(36_000)).toBe('36.0 s');
  });
});
