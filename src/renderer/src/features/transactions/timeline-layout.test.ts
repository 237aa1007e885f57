import { describe, expect, it } from 'vitest';
import { MAX_WAIT_ROWS, blockedLogLevel, layoutTimeline, nextBlockedLogLevel, span, tickStep, ticks } from './timeline-layout.ts';
import { commit, wait } from '../../../../testing/renderer/transaction-entries.ts';

const NOW = 1_000_000;

describe('span', () => {
  it('places an interval as fractions of the window', () => {
    expect(span(NOW - 30_000, NOW - 15_000, NOW - 60_000, NOW)).toEqual({ left: 0.5, width: 0.25, clippedStart: false });
  });

  it('clips what began before the window and marks it', () => {
    expect(span(NOW - 90_000, NOW - 30_000, NOW - 60_000, NOW)).toEqual({ left: 0, width: 0.5, clippedStart: true });
  });

  it('leaves out what ended before the window', () => {
    expect(span(NOW - 90_000, NOW - 61_000, NOW - 60_000, NOW)).toBeUndefined();
  });

  it('gives an instant a width of zero (CSS gives it its minimum width)', () => {
    expect(span(NOW - 10_000, NOW - 10_000, NOW - 60_000, NOW)?.width).toBe(0);
  });
});

describe('ticks', () => {
  it('picks a round step giving at most eight ticks', () => {
    expect(tickStep(10_000)).toBe(2_000);
    expect(tickStep(60_000)).toBe(10_000);
    expect(tickStep(300_000)).toBe(60_000);
    expect(tickStep(900_000)).toBe(120_000);
  });

  it('puts ticks on multiples of the step so that they slide with time', () => {
    const found = ticks(1_003_000, 1_063_000);
    expect(found.map((t) => t.at)).toEqual([1_010_000, 1_020_000, 1_030_000, 1_040_000, 1_050_000, 1_060_000]);
    expect(found[0]?.position).toBeCloseTo(7 / 60);
  });
});

describe('layoutTimeline', () => {
  it('draws each commit in its originator’s lane', () => {
    const layout = layoutTimeline({
      commits: [
        commit(1, { startedAt: NOW - 30_000 }),
        commit(2, { originator: 'Replication', startedAt: NOW - 20_000 }),
        commit(3, { startedAt: NOW - 120_000 }),
      ],
      waits: [],
      slot: undefined,
      slotAt: undefined,
      now: NOW,
      windowMs: 60_000,
    });
    expect(layout.commits.User.map((b) => b.kind === 'commit' && b.entry.txnId)).toEqual([1]);
    expect(layout.commits.Replication).toHaveLength(1);
    expect(layout.commits.Internal).toHaveLength(0);
  });

  it('leaves out hidden originators', () => {
    const layout = layoutTimeline({
      commits: [commit(1, { startedAt: NOW - 1_000 })],
      waits: [wait(NOW - 1_000)],
      slot: undefined,
      slotAt: undefined,
      now: NOW,
      windowMs: 60_000,
      hidden: ['User'],
    });
    expect(layout.commits.User).toHaveLength(0);
    expect(layout.waits).toHaveLength(0);
  });

  it('draws the holder and the writers waiting now up to now, grown by the time since the poll', () => {
    const layout = layoutTimeline({
      commits: [],
      waits: [],
      slot: {
        holder: { txnId: 9, originator: 'User', hint: 'inspector hold', heldMs: 20_000 },
        waiting: [{ originator: 'Replication', hint: undefined, waitingMs: 25_000, logLevel: 'DEBUG' }],
        openReadTransactions: 0,
      },
      slotAt: NOW - 6_000,
      now: NOW,
      windowMs: 60_000,
    });
    const holder = layout.commits.User[0];
    expect(holder?.kind).toBe('holder');
    expect(holder?.left).toBeCloseTo(34 / 60);
    const waiting = layout.waits[0];
    expect(waiting?.kind === 'waiting' && [waiting.waitingMs, waiting.logLevel, waiting.behindTxnId]).toEqual([31_000, 'WARN', 9]);
  });

  it('stacks overlapping waits in rows, up to its maximum', () => {
    const waits = Array.from({ length: 6 }, (_, i) => wait(NOW - 1_000, { waitedMs: 10_000 + i }));
    waits.push(wait(NOW - 30_000, { waitedMs: 1_000 }));
    const layout = layoutTimeline({ commits: [], waits, slot: undefined, slotAt: undefined, now: NOW, windowMs: 60_000 });
    expect(layout.waitRows).toBe(MAX_WAIT_ROWS);
    expect(Math.max(...layout.waits.map((w) => w.row))).toBe(MAX_WAIT_ROWS - 1);
    // The early, short wait ends before the others start: it shares the first row.
    const early = layout.waits.find((w) => w.kind === 'wait' && w.entry.waitedMs === 1_000);
    expect(early?.row).toBe(0);
  });
});

describe('blocked-line levels', () => {
  it('follows the spec: DEBUG up to 30 s, WARN up to 120 s, ERROR beyond', () => {
    expect(blockedLogLevel(30_000)).toBe('DEBUG');
    expect(blockedLogLevel(30_001)).toBe('WARN');
    expect(blockedLogLevel(120_000)).toBe('WARN');
    expect(blockedLogLevel(120_001)).toBe('ERROR');
  });

  it('tells the level of the next line, logged every 10 s', () => {
    expect(nextBlockedLogLevel(0)).toBe('DEBUG');
    expect(nextBlockedLogLevel(29_999)).toBe('DEBUG');
    expect(nextBlockedLogLevel(30_000)).toBe('WARN');
    expect(nextBlockedLogLevel(119_999)).toBe('WARN');
    expect(nextBlockedLogLevel(120_000)).toBe('ERROR');
  });
});
