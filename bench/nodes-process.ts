/**
 * The Big Peer node processes of the `nodes` suites (bench/nodes.bench.ts,
 * bench/nodes-peer-writes.ts): each node a child process of its own (bench/nodes-host.ts) on one
 * shared schema, driven over Node's IPC channel (bench/nodes-ipc.ts), every request bounded.
 */
import { randomBytes } from 'node:crypto';
import type { BenchDocument } from './documents.ts';
import { check, type SuiteContext } from './harness.ts';
import type { HostSetup } from './nodes-host.ts';
import { Child, type Memory, type NodeLogs, type Span, type WritePlan } from './nodes-ipc.ts';
import type { FanOutCounts } from '../src/peer/replication/shared-updates.ts';
import type { Database } from './postgres-server.ts';

const HOST = new URL('./nodes-host.ts', import.meta.url);

/** Bound on a node's write loop (`go`). */
const WRITE_TIMEOUT_MS = 60_000;
/** Bound on one write (`insert`). */
const ROUND_TIMEOUT_MS = 10_000;

/** One Big Peer node, a process of its own (bench/nodes-host.ts, role `node`). */
export class NodeProcess {
  readonly name: string;
  readonly url: string;
  readonly #child: Child;

  static async start(db: Database, schema: string, name: string): Promise<NodeProcess> {
    const child = await Child.start(HOST, `Big Peer ${name}`, { role: 'node', url: db.url, schema, name } satisfies HostSetup);
    try {
      const { url } = await child.request<{ url: string }>('info');
      return new NodeProcess(child, name, url);
    } catch (error) {
      await child.close();
      throw error;
    }
  }

  private constructor(child: Child, name: string, url: string) {
    this.#child = child;
    this.name = name;
    this.url = url;
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  prepare(plan: WritePlan): Promise<void> {
    return this.#child.request('prepare', plan);
  }

  go(): Promise<Span> {
    return this.#child.request('go', {}, WRITE_TIMEOUT_MS);
  }

  /** A request to the node process's handlers (bench/nodes-host.ts) not wrapped above. */
  request<T>(kind: string, body: unknown, timeoutMs?: number): Promise<T> {
    return this.#child.request(kind, body, timeoutMs);
  }

  insert(collection: string, doc: BenchDocument): Promise<void> {
    return this.#child.request('insert', { collection, doc }, ROUND_TIMEOUT_MS);
  }

  count(collection: string): Promise<number> {
    return this.#child.request('count', { collection });
  }

  sessions(): Promise<number> {
    return this.#child.request('sessions');
  }

  /** The node's fan-out counts (Sync.fanOut), null when it shares nothing. */
  fanOut(): Promise<FanOutCounts | null> {
    return this.#child.request('fanOut');
  }

  memory(): Promise<Memory> {
    return this.#child.request('memory');
  }

  /** CPU time of the node's process so far (all its threads), milliseconds. */
  cpu(): Promise<number> {
    return this.#child.request('cpu');
  }

  /** The node's storage counters so far (PgStorage.commitCounters). */
  counters(): Promise<StorageCounters> {
    return this.#child.request('counters');
  }

  logs(): Promise<NodeLogs> {
    return this.#child.request('logs');
  }

  close(): Promise<void> {
    return this.#child.close();
  }
}

/** A node's storage counters (PgStorage.commitCounters). */
export interface StorageCounters {
  readonly groups: number;
  readonly writes: number;
  readonly statements: number;
  readonly roundTrips: number;
}

/** Starts the nodes one after another on one schema of `db` (by default a fresh one). */
export async function startNodes(db: Database, count: number, schema = `bench_${randomBytes(4).toString('hex')}`): Promise<NodeProcess[]> {
  const nodes: NodeProcess[] = [];
  try {
    for (let i = 1; i <= count; i++) nodes.push(await NodeProcess.start(db, schema, `node-${i}`));
  } catch (error) {
    await closeAll(nodes);
    throw error;
  }
  return nodes;
}

/** Closes them all, at once; throws the first failure. */
export async function closeAll(closables: readonly { close(): Promise<void> }[]): Promise<void> {
  const results = await Promise.allSettled(closables.map((c) => c.close()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

/** Throws on any ERROR the nodes logged; reports their WARN entries on stderr. */
export async function checkLogs(context: SuiteContext, where: string, sources: readonly { logs(): Promise<NodeLogs> }[]): Promise<void> {
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const source of sources) {
    const logs = await source.logs();
    errors.push(...logs.errors);
    warnings.push(...logs.warnings);
  }
  check(errors.length === 0, () => `${where}: ${errors.length} ERROR log entr(y/ies): ${errors.slice(0, 3).join(' | ')}`);
  if (warnings.length > 0) context.log(`${where}: ${warnings.length} WARN entr(y/ies), e.g. ${warnings[0]}`);
}
