/**
 * The simulated clock: one `ManualTimers` moved only by the simulator, seen by each peer through
 * its own skew (a device clock a few seconds off), as the hybrid logical clock must tolerate.
 */
import { ManualTimers, type TimerHandle, type Timers } from '../../peer/time.ts';

/** 2026-11-21 12:00 UTC, ManualTimers' default start. */
export const SIM_EPOCH = Date.UTC(2026, 10, 21, 12, 0, 0);

export class SimClock {
  readonly base = new ManualTimers(SIM_EPOCH);

  /** Simulated milliseconds since the start. */
  get elapsed(): number {
    return this.base.now() - SIM_EPOCH;
  }

  now(): number {
    return this.base.now();
  }

  /** Moves time on by `ms`, firing every timer due on the way, in order. */
  advance(ms: number): void {
    this.base.advance(ms);
  }

  /** A peer's view of the clock: the same timers, its wall clock `skewMs` off. */
  skewed(skewMs: number): Timers {
    const base = this.base;
    return {
      now: () => base.now() + skewMs,
      setTimeout: (fn: () => void, ms: number): TimerHandle => base.setTimeout(fn, ms),
      clearTimeout: (handle: TimerHandle) => base.clearTimeout(handle),
    };
  }
}
