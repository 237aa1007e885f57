import { describe, expect, it } from 'vitest';
import { throttle, type Timers } from './throttle.ts';

function manualTimers() {
  let now = 0;
  let queue: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 1;
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      const id = nextId++;
      queue.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout: (handle) => {
      queue = queue.filter((entry) => entry.id !== handle);
    },
    now: () => now,
  };
  const advance = (ms: number) => {
    now += ms;
    for (const entry of queue.filter((e) => e.at <= now)) {
      queue = queue.filter((e) => e !== entry);
      entry.fn();
    }
  };
  return { timers, advance };
}

describe('throttle', () => {
  it('runs the first call at once and collapses a burst into one trailing run', () => {
    const { timers, advance } = manualTimers();
    let runs = 0;
    const refresh = throttle(() => runs++, 1000, timers);
    refresh();
    expect(runs).toBe(1);
    refresh();
    refresh();
    refresh();
    expect(runs).toBe(1);
    advance(999);
    expect(runs).toBe(1);
    advance(1);
    expect(runs).toBe(2);
    advance(5000);
    expect(runs).toBe(2);
  });

  it('runs at once again after a quiet interval', () => {
    const { timers, advance } = manualTimers();
    let runs = 0;
    const refresh = throttle(() => runs++, 1000, timers);
    refresh();
    advance(1500);
    refresh();
    expect(runs).toBe(2);
  });

  it('drops a pending run when cancelled', () => {
    const { timers, advance } = manualTimers();
    let runs = 0;
    const refresh = throttle(() => runs++, 1000, timers);
    refresh();
    refresh();
    refresh.cancel();
    advance(2000);
    expect(runs).toBe(1);
  });
});
