import { describe, expect, it } from 'vitest';
import { expiringSoonAt, retryDelayMs, secondsUntil } from './refresh-policy.ts';

const MIN = 60_000;

describe('the refresh policy', () => {
  it('calls a long certificate expiring soon when 10 % of its lifetime remains', () => {
    expect(expiringSoonAt(0, 480 * MIN)).toBe(432 * MIN);
  });

  it('uses 5 minutes instead when that comes first', () => {
    expect(expiringSoonAt(0, 30 * MIN)).toBe(25 * MIN);
  });

  it('never before half the lifetime of a short certificate', () => {
    expect(expiringSoonAt(1000, 1000 + 2 * MIN)).toBe(1000 + MIN);
  });

  it('backs off from 5 seconds, doubling, up to 5 minutes', () => {
    expect([0, 1, 2, 3, 6, 50].map(retryDelayMs)).toEqual([5_000, 10_000, 20_000, 40_000, 300_000, 300_000]);
  });

  it('prints whole seconds, never negative', () => {
    expect(secondsUntil(10_400, 0)).toBe(10);
    expect(secondsUntil(0, 5_000)).toBe(0);
  });
});
