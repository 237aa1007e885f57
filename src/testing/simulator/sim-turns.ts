/** Lets the event loop run `n` turns (every setImmediate queued so far, and the promises they settle). */
export async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
