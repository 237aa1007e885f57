/**
 * A one-shot timer set for a wall-clock moment on the injected timers, however far away:
 * Node's timers take at most about 24.8 days, so a longer wait is made of several.
 */
import type { TimerHandle, Timers } from '../time.ts';

const MAX_TIMER_MS = 2 ** 31 - 1;

export class Alarm {
  readonly #timers: Timers;
  #timer: TimerHandle | undefined;

  constructor(timers: Timers) {
    this.#timers = timers;
  }

  get armed(): boolean {
    return this.#timer !== undefined;
  }

  /** Runs `fn` at `at` (at once if that has passed), replacing what was armed before. */
  arm(at: number, fn: () => void): void {
    this.cancel();
    const step = (): void => {
      const delay = at - this.#timers.now();
      if (delay > MAX_TIMER_MS) {
        this.#timer = this.#timers.setTimeout(step, MAX_TIMER_MS);
        return;
      }
      this.#timer = this.#timers.setTimeout(
        () => {
          this.#timer = undefined;
          fn();
        },
        Math.max(0, delay),
      );
    };
    step();
  }

  cancel(): void {
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
