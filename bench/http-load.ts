/**
 * A bounded HTTP load generator for loopback benchmarks: `concurrency` keep-alive clients send
 * `requests` requests in all, each waiting for its answer before sending the next; every answer
 * must have the expected status. Returns the wall time and every request's latency.
 */
import { Agent, request } from 'node:http';

export interface LoadOptions {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  /** The body of the i-th request. */
  readonly body?: (i: number) => string;
  readonly concurrency: number;
  readonly requests: number;
  readonly expectStatus?: number;
  /** Any single request slower than this fails the run. */
  readonly requestTimeoutMs?: number;
}

export interface LoadResult {
  readonly ms: number;
  readonly latencies: number[];
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  let next = 0;
  const one = (i: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const body = options.body?.(i);
      const started = performance.now();
      const req = request(options.url, { method: options.method, agent, headers: { 'Content-Type': 'application/json', ...options.headers } }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - started);
          if (res.statusCode !== (options.expectStatus ?? 200)) reject(new Error(`request ${i} answered ${res.statusCode}`));
          else resolve();
        });
      });
      req.setTimeout(options.requestTimeoutMs ?? 10_000, () => req.destroy(new Error(`request ${i} timed out`)));
      req.on('error', reject);
      req.end(body);
    });
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < options.requests) await one(next++);
      }),
    );
  } finally {
    agent.destroy();
  }
  return { ms: performance.now() - started, latencies };
}
