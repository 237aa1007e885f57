/**
 * Time and timers, injected into everything that waits or stamps, so that tests cover seconds
 * and minutes in milliseconds. `systemTimers` is the real clock; `ManualTimers` is the test twin.
 */
export type TimerHandle = { readonly __timer: true } | object;

export interface Timers {
  /** Wall-clock milliseconds. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock. Its timers do not keep the process alive on their own. */
export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Scheduled {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** A clock that moves only when told to; timers fire in time order as it passes them. */
export class ManualTimers implements Timers {
  #now: number;
  #seq = 0;
  readonly #pending = new Map<object, Scheduled>();

  constructor(start = Date.UTC(2026, 10, 21, 12, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = {};
    this.#pending.set(handle, { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#pending.delete(handle);
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Moves the clock forward by `ms`, firing every timer due on the way, in order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let next: [object, Scheduled] | undefined;
      for (const entry of this.#pending) {
        if (entry[1].at > end) continue;
        if (next === undefined || entry[1].at < next[1].at || (entry[1].at === next[1].at && entry[1].seq < next[1].seq)) next = entry;
      }
      if (next === undefined) break;
      this.#pending.delete(next[0]);
      this.#now = Math.max(this.#now, next[1].at);
      next[1].fn();
    }
    this.#now = end;
  }
}
