/**
 * The set-up of the `nodes-writes` rows of replicating small peers (bench/nodes-peer-writes.ts)
 * at a tiny scale, so that a change to the nodes, the peers' process or the raw writer that
 * breaks them is seen without running the suite: two node processes, four small peers in a
 * process of their own, four raw `pg` clients. Needs a PostgreSQL server (the run's): without
 * one it fails with how to get it.
 */
import { describe, expect, it } from 'vitest';
import { postgresTestUrl } from '../src/testing/postgres/test-postgres.ts';
import type { SuiteContext } from './harness.ts';
import { peerWriteRows } from './nodes-peer-writes.ts';

describe('the rows of small peers writing through Big Peer nodes', () => {
  it('measures committed writes, commit latency and CPU per write on both sides, every write accounted for', async () => {
    const lines: string[] = [];
    const context: SuiteContext = {
      tempDir: () => {
        throw new Error('not used');
      },
      log: (message) => lines.push(message),
    };
    const server = { url: postgresTestUrl(), stop: async () => {} };
    const rows = await peerWriteRows(context, server, 2, { peers: 4, warmupMs: 300, windowMs: 800, repeat: 1, budgetMs: 0 });
    const [throughput, p50, p99, cpu, peersCpu] = rows;
    expect(throughput?.name).toMatch(/^writes: 4 small peers, 1 doc per txn, replicated to 2 nodes/);
    for (const row of [throughput, p50, p99, cpu, peersCpu]) {
      expect(row?.ours).toBeGreaterThan(0);
      expect(row?.raw).toBeGreaterThan(0);
      expect(Number.isFinite(row?.ours)).toBe(true);
      expect(Number.isFinite(row?.raw)).toBe(true);
    }
    expect(p99?.ours).toBeGreaterThanOrEqual(p50?.ours as number);
    expect(lines.join('\n')).toMatch(/sessions 2 \+ 2/);
  }, 120_000);
});
