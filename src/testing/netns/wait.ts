/** Bounded polling for tests and benchmarks that drive processes: every wait names what it waited for. */

/**
 * Calls `probe` every `intervalMs` until it returns `{ done: true }`; throws after `timeoutMs`
 * with `what` and the last state the probe described, so that a failure says how far it got.
 */
export async function until(what: string, timeoutMs: number, probe: () => Promise<{ done: boolean; state?: unknown }>, intervalMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const { done, state } = await probe();
    if (done) return;
    last = state;
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`);
    await sleep(intervalMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
