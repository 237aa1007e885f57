/** The --drain-timeout option and the message that says what the Big Peer has not acknowledged. */
import { describe, expect, it } from 'vitest';
import type { UploadState } from '../peer/host.ts';
import { DEFAULT_DRAIN_TIMEOUT_MS, drainTimeoutError, drainTimeoutOption } from './drain.ts';
import { formatDuration, parseDuration } from './duration.ts';
import { UsageError } from './peer-options.ts';

describe('durations on the command line', () => {
  it('read a number with ms, s, m or h, and a bare 0', () => {
    expect(['500ms', '10s', '1.5s', '2m', '1h', '0', '0s', '0.25s'].map(parseDuration)).toEqual([500, 10_000, 1_500, 120_000, 3_600_000, 0, 0, 250]);
  });

  it('refuse a bare number other than 0, a negative one, another unit, spaces or nothing', () => {
    for (const bad of ['10', '-1s', '1d', '10 s', ' 10s', 's', '', '1e3ms', '.5s', 'ten']) expect(parseDuration(bad), bad).toBeUndefined();
  });

  it('are written back in the largest whole unit', () => {
    expect([0, 500, 1_500, 10_000, 120_000, 7_200_000].map(formatDuration)).toEqual(['0', '500ms', '1500ms', '10s', '2m', '2h']);
  });
});

describe('--drain-timeout', () => {
  it('is 10 s when absent, 0 to not wait, and a usage error when malformed', () => {
    expect(drainTimeoutOption(undefined)).toBe(DEFAULT_DRAIN_TIMEOUT_MS);
    expect(DEFAULT_DRAIN_TIMEOUT_MS).toBe(10_000);
    expect(drainTimeoutOption('0')).toBe(0);
    expect(drainTimeoutOption('2m')).toBe(120_000);
    expect(() => drainTimeoutOption('soon')).toThrow(new UsageError('--drain-timeout takes a duration such as 10s, 500ms or 2m (0: do not wait), not "soon"'));
  });
});

describe('the cli/drain-timeout error', () => {
  const now = Date.UTC(2026, 10, 21, 12, 0, 10);
  const state = (over: Partial<UploadState>): UploadState => ({
    upTo: 7,
    acknowledgedUpTo: 4,
    pendingCommits: 3,
    pendingTxnIds: { first: 5, last: 7 },
    pendingSince: Date.UTC(2026, 10, 21, 12, 0, 0),
    bigPeerSession: false,
    ...over,
  });

  it('says how many commits, which txn_ids, since when, what the Big Peer holds and whether a session is open', () => {
    expect(drainTimeoutError(state({}), 10_000, now)).toEqual({
      code: 'cli/drain-timeout',
      message:
        'the Big Peer did not acknowledge 3 commits of this store within 10s (--drain-timeout): txn_ids 5 to 7, the oldest pending since 2026-11-21T12:00:00.000Z (10.0 s); ' +
        'it holds every change up to txn_id 4; no session with the Big Peer is open. They stay in the store and are uploaded by its next session with the Big Peer',
      details: {
        pendingCommits: 3,
        pendingTxnIds: { first: 5, last: 7 },
        pendingSince: '2026-11-21T12:00:00.000Z',
        acknowledgedUpTo: 4,
        upTo: 7,
        bigPeerSession: false,
        drainTimeoutMs: 10_000,
      },
    });
  });

  it('names one commit in the singular, and one committed before this run without a time', () => {
    const error = drainTimeoutError(
      state({ upTo: 5, pendingCommits: 1, pendingTxnIds: { first: 5, last: 5 }, pendingSince: undefined, bigPeerSession: true }),
      500,
      now,
    );
    expect(error.message).toBe(
      'the Big Peer did not acknowledge 1 commit of this store within 500ms (--drain-timeout): txn_id 5, committed before this run; ' +
        'it holds every change up to txn_id 4; a session with the Big Peer is open. They stay in the store and are uploaded by its next session with the Big Peer',
    );
    expect(error.details).toMatchObject({ pendingSince: null, bigPeerSession: true });
  });
});
