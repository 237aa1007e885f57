/**
 * For tests: probes HTTP endpoints of a Big Peer from a worker thread, apart from the thread that
 * runs the Big Peer (a test runs it in its own thread), so that a statement holding the Big
 * Peer's event loop cannot hold the prober too and hide the wait. Loopback only, bounded.
 */
import { Worker } from 'node:worker_threads';
import { expect } from 'vitest';

/**
 * The prober's code: it calls GET on each path every `everyMs` until told to stop (at most
 * 20 s), and answers each call's time to answer and status.
 */
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, paths, everyMs } = workerData;
const seen = Object.fromEntries(paths.map((p) => [p, []]));
let stop = false;
parentPort.on('message', () => { stop = true; });
const get = (path) => new Promise((resolve) => {
  const started = performance.now();
  const req = http.get(url + path, { agent: false }, (res) => {
    res.resume();
    res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode }));
  });
  req.setTimeout(15000, () => req.destroy());
  req.on('error', () => resolve({ ms: performance.now() - started, status: 0 }));
});
(async () => {
  const deadline = Date.now() + 20000;
  while (!stop && Date.now() < deadline) {
    const answers = await Promise.all(paths.map(get));
    paths.forEach((p, i) => seen[p].push(answers[i]));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  parentPort.postMessage(seen);
})();
`;

export type Probes = Record<string, { ms: number; status: number }[]>;

/** Probes `paths` of `url` from another thread until `until` settles. */
export async function probe(url: string, paths: readonly string[], until: Promise<unknown>, everyMs = 100): Promise<Probes> {
  const worker = new Worker(PROBER, { eval: true, workerData: { url, paths, everyMs } });
  const seen = new Promise<Probes>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await until.catch(() => undefined);
  worker.postMessage('stop');
  try {
    return await seen;
  } finally {
    await worker.terminate();
  }
}

/** The longest time any probe of `path` took to answer; every one must have answered 200. */
export function slowest(probes: Probes, path: string): number {
  const seen = probes[path] ?? [];
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.map((s) => s.status).filter((status) => status !== 200)).toEqual([]);
  return Math.max(...seen.map((s) => s.ms));
}
