import { describe, expect, it } from 'vitest';
import { HybridClock, formatHlc, parseHlc } from './hlc.ts';

describe('the hybrid logical clock', () => {
  it('follows the wall clock when it moves forward', () => {
    let now = 1000;
    const clock = new HybridClock(() => now);
    expect(clock.tick()).toBe(formatHlc(1000, 0));
    now = 2000;
    expect(clock.tick()).toBe(formatHlc(2000, 0));
  });

  it('counts within one millisecond and never goes backwards when the wall clock does', () => {
    let now = 5000;
    const clock = new HybridClock(() => now);
    const a = clock.tick();
    const b = clock.tick();
    now = 1000;
    const c = clock.tick();
    expect([a, b, c]).toEqual([formatHlc(5000, 0), formatHlc(5000, 1), formatHlc(5000, 2)]);
    expect(a < b && b < c).toBe(true);
  });

  it('moves to the next millisecond when the counter is exhausted', () => {
    const clock = new HybridClock(() => 0, formatHlc(7, 0xffff));
    expect(clock.tick()).toBe(formatHlc(8, 0));
  });

  it('resumes after the last stamp persisted, so restarts never reuse a time', () => {
    const clock = new HybridClock(() => 10, formatHlc(99, 3));
    expect(clock.tick()).toBe(formatHlc(99, 4));
  });

  it('moves past a timestamp observed from another peer', () => {
    const clock = new HybridClock(() => 10);
    clock.observe(formatHlc(500, 7));
    expect(clock.tick()).toBe(formatHlc(500, 8));
    expect(parseHlc(clock.last)).toEqual({ ms: 500, counter: 8 });
  });

  it('refuses a malformed timestamp', () => {
    expect(() => parseHlc('not-a-clock')).toThrow('not a hybrid logical clock timestamp');
  });
});
