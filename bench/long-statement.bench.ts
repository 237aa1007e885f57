/**
 * The long-statement suite (issue 18, part 1.2): how long the Big Peer takes to answer `/_health`
 * while one store/execute statement of about 10 s runs, with the statement in a query thread
 * (ours: the Big Peer's default, `queryThreads: 2`) against the statement on the event loop (raw:
 * `queryThreads: 0`, which is what every statement did before query threads). Both Big Peers run
 * in this thread on a SQLite store on disk with the same documents, `statementTimeoutMs` raised
 * to 60 s so that the statement runs to its end on both sides.
 *
 * The prober is a worker thread apart from the Big Peer's: every 20 ms it opens a connection and
 * sends `GET /_health`, whether or not the earlier ones were answered (a load balancer's health
 * check does not wait either), and records each call's time to its answer. The rows take the
 * calls sent while the statement ran. The heavy statement is built from data: documents each
 * holding an array of 200 objects, and 499 comparisons of that array with an array literal.
 * docs/benchmarks.md explains each row.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BigPeer, bigPeerConfig } from '../src/big-peer/index.ts';
import { LogHub } from '../src/peer/host.ts';
import { check, percentile, within, type Row, type Suite, type SuiteContext } from './harness.ts';

/** Documents of the heavy collection: about 10 s of the statement on the 2-core machine. */
const DOCS = 260;
const ITEMS = 200;
const TERMS = 499;
const PROBE_EVERY_MS = 20;
/** The goal: /_health answers within this at the 99th percentile while a long statement runs. */
const GOAL_P99_MS = 100;
const STATEMENT_TIMEOUT_MS = 60_000;
/** Bound on every wait of the suite (a statement, the prober's last answers). */
const WAIT_MS = 90_000;
const API_KEY = 'smk_bench-key-with-every-permission';

const HEAVY = Array.from({ length: TERMS }, (_, i) => `items = [${i}]`).join(' OR ');
const STATEMENTS = [
  { label: 'SELECT', text: `SELECT _id FROM heavy WHERE ${HEAVY}` },
  // Matches nothing: the UPDATE's time is its search for documents.
  { label: 'UPDATE', text: `UPDATE heavy SET seen = true WHERE ${HEAVY}` },
] as const;

const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, everyMs, maxMs } = workerData;
const calls = [];
let stop = false;
parentPort.on('message', () => { stop = true; });
const get = () => new Promise((resolve) => {
  const sent = performance.timeOrigin + performance.now();
  const req = http.get(url + '/_health', { agent: false }, (res) => {
    res.resume();
    res.on('end', () => resolve({ sent, ms: performance.timeOrigin + performance.now() - sent, status: res.statusCode }));
  });
  req.setTimeout(maxMs, () => req.destroy());
  req.on('error', () => resolve({ sent, ms: performance.timeOrigin + performance.now() - sent, status: 0 }));
});
(async () => {
  const pending = [];
  const deadline = Date.now() + maxMs;
  while (!stop && Date.now() < deadline) {
    pending.push(get().then((c) => calls.push(c)));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  await Promise.all(pending);
  parentPort.postMessage(calls);
})();
`;

interface ProbeCall {
  /** When it was sent: `performance.timeOrigin + performance.now()`, the same clock in every thread. */
  readonly sent: number;
  readonly ms: number;
  readonly status: number;
}

const sharedNow = (): number => performance.timeOrigin + performance.now();

function executeOver(url: string, statement: string): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ statement });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/v4/store/execute`,
      {
        method: 'POST',
        agent: false,
        headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.setTimeout(WAIT_MS, () => req.destroy(new Error('no answer to the statement in time')));
    req.on('error', reject);
    req.end(body);
  });
}

interface Measured {
  /** /_health times to answer of the calls sent while the statement ran, sorted. */
  readonly health: number[];
  /** The statement's time, from send to answer. */
  readonly statementMs: number;
}

/** One side: a Big Peer with `queryThreads`, the statement sent once while the prober runs. */
async function measure(context: SuiteContext, queryThreads: number, statement: string): Promise<Measured> {
  const hub = new LogHub({ minimumLogLevel: 'ERROR' });
  const errors: string[] = [];
  hub.setCustomLogCallback((entry) => errors.push(entry.message));
  const dataDir = join(context.tempDir(`long-statement-${queryThreads}`), 'data');
  const peer = await BigPeer.start(
    bigPeerConfig({ appID: 'bench-app', apiKeys: [API_KEY], dataDir, queryThreads, statementTimeoutMs: STATEMENT_TIMEOUT_MS, logLevel: 'ERROR' }),
    { logHub: hub },
  );
  try {
    const docs = Array.from({ length: DOCS }, (_, i) => ({
      _id: `h${String(i).padStart(4, '0')}`,
      n: i,
      items: Array.from({ length: ITEMS }, (_, j) => ({ k: j, v: `v${i}-${j}` })),
    }));
    await peer.sync.store.execute('INSERT INTO heavy DOCUMENTS (:docs)', { docs });
    const prober = new Worker(PROBER, { eval: true, workerData: { url: peer.url, everyMs: PROBE_EVERY_MS, maxMs: WAIT_MS } });
    const calls = new Promise<ProbeCall[]>((resolve, reject) => {
      prober.once('message', resolve);
      prober.once('error', reject);
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the prober is under way
      const started = sharedNow();
      const answer = await within(executeOver(peer.url, statement), WAIT_MS, 'the long statement');
      const ended = sharedNow();
      check(answer.status === 200, () => `the long statement answered ${answer.status}: ${answer.body.slice(0, 300)}`);
      prober.postMessage('stop');
      const during = (await within(calls, WAIT_MS, 'the prober')).filter((c) => c.sent >= started && c.sent <= ended);
      check(during.length > 0, () => 'no /_health call was sent while the statement ran');
      check(
        during.every((c) => c.status === 200),
        () => `a /_health call answered ${during.find((c) => c.status !== 200)?.status}`,
      );
      return { health: during.map((c) => c.ms).sort((a, b) => a - b), statementMs: ended - started };
    } finally {
      await prober.terminate();
    }
  } finally {
    await peer.close();
    check(errors.length === 0, () => `the Big Peer logged ${errors.length} error(s): ${errors.slice(0, 3).join(' | ')}`);
  }
}

async function runSuite(context: SuiteContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { label, text } of STATEMENTS) {
    context.log(`${label} of about 10 s: in a query thread`);
    const ours = await measure(context, 2, text);
    context.log(`${label} of about 10 s: on the event loop`);
    const raw = await measure(context, 0, text);
    const name = `${label} of ${(raw.statementMs / 1000).toFixed(1)} s, /_health sent every ${PROBE_EVERY_MS} ms (ours ${ours.health.length} calls, raw ${raw.health.length})`;
    rows.push(
      { name: `${name}: p50`, kind: 'time', ours: percentile(ours.health, 50), raw: percentile(raw.health, 50), repetitions: 1 },
      { name: `${name}: p99`, kind: 'time', ours: percentile(ours.health, 99), raw: percentile(raw.health, 99), repetitions: 1 },
      {
        name: `${label}: /_health p99 in a query thread (raw: the goal, ${GOAL_P99_MS} ms)`,
        kind: 'time',
        ours: percentile(ours.health, 99),
        raw: GOAL_P99_MS,
        target: 1,
        repetitions: 1,
      },
      { name: `${label}: the statement itself, send to answer`, kind: 'time', ours: ours.statementMs, raw: raw.statementMs, repetitions: 1 },
    );
  }
  return rows;
}

export const longStatementSuite: Suite = {
  name: 'long-statement',
  title:
    'Long statement · /_health while one store/execute statement of about 10 s runs, SQLite on disk (ours = statement in a query thread, raw = on the event loop, as before)',
  summary: '/_health latency while a 10 s store/execute statement runs: query threads vs the event loop',
  durationSeconds: 57, // measured: one run on the 2-core VM, 2026-11-26
  run: runSuite,
};
