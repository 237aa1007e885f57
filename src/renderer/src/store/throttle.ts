/**
 * Runs a function at most once per interval, on the leading and trailing edge: the first call
 * runs at once, calls during the interval collapse into one run at its end. For refreshes driven
 * by bursts of `store:changed` events. Timers are injectable for tests.
 */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

export interface Throttled {
  (): void;
  /** Drops a pending trailing run. */
  cancel(): void;
}

export function throttle(fn: () => void, intervalMs: number, timers: Timers = realTimers): Throttled {
  let last = Number.NEGATIVE_INFINITY;
  let pending: unknown;
  const run = () => {
    pending = undefined;
    last = timers.now();
    fn();
  };
  const throttled = (() => {
    if (pending !== undefined) return;
    const wait = last + intervalMs - timers.now();
    if (wait <= 0) run();
    else pending = timers.setTimeout(run, wait);
  }) as Throttled;
  throttled.cancel = () => {
    if (pending !== undefined) timers.clearTimeout(pending);
    pending = undefined;
  };
  return throttled;
}
