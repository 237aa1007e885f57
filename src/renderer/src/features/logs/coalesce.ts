/**
 * Runs `flush` at most once per `delayMs`, however often `schedule` is called: the store is told
 * about a flood of events ten times a second, not once per event.
 */
export interface Coalescer {
  schedule(): void;
  /** Runs a scheduled flush now (tests, and a panel that must not wait). */
  flushNow(): void;
  cancel(): void;
}

export function coalesce(delayMs: number, flush: () => void): Coalescer {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = (): void => {
    timer = undefined;
    flush();
  };
  return {
    schedule() {
      if (timer === undefined) timer = setTimeout(run, delayMs);
    },
    flushNow() {
      if (timer === undefined) return;
      clearTimeout(timer);
      run();
    },
    cancel() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
