/**
 * Where the time of one fan-out write goes (docs/benchmarks.md, "Where the fan-out time goes"):
 * the `nodes` suite's 200-peer set-up (two Big Peer nodes on a throwaway PostgreSQL cluster, a
 * TCP balancer, the small peers in a process of their own: bench/fan-out-trace-child.ts), then
 * timed writes on node 1, each followed by a pause, with every process stamping the path. It
 * prints, per event, its count and its first, median and last time after the write's request,
 * each the median over the writes, and each process's CPU time per write.
 *
 *   node bench/fan-out-trace.ts [peers=200] [writes=20] [profile directory]
 *
 * With a directory, each process also writes a V8 CPU profile of the timed writes there
 * (node-1, node-2, small-peers .cpuprofile). Not a suite: nothing here is a target.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
// @ts-expect-error -- plain JavaScript without declarations
import { startThrowawayCluster } from '../scripts/postgres-cluster.js';
import { TcpBalancer } from '../src/testing/big-peer/tcp-balancer.ts';
import { generateDocuments } from './documents.ts';
import { median } from './harness.ts';
import { Child, wallNow } from './nodes-ipc.ts';
import type { Recording, TraceSetup } from './fan-out-trace-child.ts';

const CHILD = new URL('./fan-out-trace-child.ts', import.meta.url);
const PEERS = Number(process.argv[2] ?? 200);
const WRITES = Number(process.argv[3] ?? 20);
const PROFILE_DIR = process.argv[4];
const WARMUP = 3;
/** Untimed pause after each write, so that its acknowledgements are not billed to the next. */
const GAP_MS = 30;
/** Bound on one write reaching every peer, and on connecting them all. */
const WAIT_MS = 15_000;
const CONNECT_MS = 90_000;

if (!(PEERS > 0 && PEERS <= 2_000 && WRITES > 0 && WRITES <= 500)) throw new Error('usage: fan-out-trace.ts [peers 1-2000] [writes 1-500] [profile directory]');

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const doc = (seq: number): Record<string, unknown> => ({ ...generateDocuments(1, { seed: 41, first: seq })[0], _id: `fan-${String(seq).padStart(6, '0')}` });

const cluster = (await startThrowawayCluster()) as { url: string; stop(): Promise<void> };
const children: Child[] = [];
let balancer: TcpBalancer | undefined;
try {
  const database = `syncmesh_trace_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(cluster.url);
  url.pathname = `/${database}`;
  const schema = `trace_${randomBytes(4).toString('hex')}`;
  const names = ['node-1', 'node-2'];
  for (const name of names) children.push(await Child.start(CHILD, name, { role: 'node', url: url.toString(), schema, name } satisfies TraceSetup));
  const nodes = [...children];
  const ports = await Promise.all(nodes.map(async (n) => Number(new URL((await n.request<{ url: string }>('info')).url).port)));
  balancer = await TcpBalancer.listen({ backends: ports.map((port) => ({ host: '127.0.0.1', port })) });
  const peers = await Child.start(CHILD, 'small-peers', { role: 'small-peers', url: balancer.url, count: PEERS, collection: 'fanout' } satisfies TraceSetup);
  children.push(peers);
  await peers.request('connect', {}, CONNECT_MS);
  const writer = nodes[0] as Child;
  const write = async (seq: number): Promise<void> => {
    const d = doc(seq);
    await writer.request('insert', { collection: 'fanout', doc: d }, WAIT_MS);
    await peers.request('wait', { id: d._id }, WAIT_MS);
  };
  for (let seq = 0; seq < WARMUP; seq++) {
    await write(seq);
    await pause(GAP_MS);
  }
  const all = [...names, 'small-peers'];
  await Promise.all(children.map((c) => c.request('start', { profile: PROFILE_DIR !== undefined })));
  const starts: number[] = [];
  for (let seq = WARMUP; seq < WARMUP + WRITES; seq++) {
    starts.push(wallNow());
    await write(seq);
    await pause(GAP_MS);
  }
  const recordings = await Promise.all(
    children.map((c, i) => c.request<Recording>('stop', PROFILE_DIR === undefined ? {} : { profileFile: join(PROFILE_DIR, `${all[i]}.cpuprofile`) })),
  );
  starts.push(Number.POSITIVE_INFINITY);
  console.log(`${PEERS} small peers, ${WRITES} timed writes; ms after the write's request, medians over the writes`);
  const rows: { event: string; count: number; first: number; mid: number; last: number }[] = [];
  recordings.forEach((recording, i) => {
    console.log(`CPU of ${all[i]}: ${(recording.cpuMs / WRITES).toFixed(1)} ms per write`);
    for (const [event, stamps] of Object.entries(recording.stamps)) {
      const per = starts.slice(0, -1).map((start, w) => stamps.filter((t) => t >= start && t < (starts[w + 1] as number)).map((t) => t - start));
      const some = per.filter((s) => s.length > 0);
      if (some.length === 0) continue;
      rows.push({
        event: `${all[i]} ${event}`,
        count: median(some.map((s) => s.length)),
        first: median(some.map((s) => Math.min(...s))),
        mid: median(some.map((s) => median(s))),
        last: median(some.map((s) => Math.max(...s))),
      });
    }
  });
  console.log(`${'event'.padEnd(30)} ${'count'.padStart(6)} ${'first'.padStart(7)} ${'median'.padStart(7)} ${'last'.padStart(7)}`);
  for (const r of rows.sort((a, b) => a.first - b.first)) {
    console.log(
      `${r.event.padEnd(30)} ${r.count.toFixed(0).padStart(6)} ${r.first.toFixed(1).padStart(7)} ${r.mid.toFixed(1).padStart(7)} ${r.last.toFixed(1).padStart(7)}`,
    );
  }
} finally {
  for (const child of children.reverse()) await child.close();
  await balancer?.close();
  await cluster.stop();
}
