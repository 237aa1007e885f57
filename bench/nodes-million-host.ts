/**
 * The child process of the `nodes-million` suite (bench/nodes-million.bench.ts): one Big Peer
 * node on PostgreSQL (`startPgNode`), as `syncmesh big-peer --storage postgres://…` runs it, in
 * a process of its own so that its resident set is its own. It generates and loads the orders
 * itself (bench/orders.ts: a million documents never cross the IPC channel), runs commands
 * through its store (CREATE INDEX, which HTTP refuses) and the TTL job's update, timing each
 * where it runs, and reports its memory and its WARN and ERROR log entries.
 */
import { startPgNode, type PgNode } from '../src/testing/postgres/pg-nodes.ts';
import { ttlStatement } from '../src/big-peer/ttl-job.ts';
import type { LogEntry } from '../src/shared/log.ts';
import { childGc, serveChild, type Handlers, type Memory, type NodeLogs } from './nodes-ipc.ts';
import { generateOrders } from './orders.ts';

export interface MillionHostSetup {
  readonly url: string;
  readonly schema: string;
  readonly name: string;
  /** The node's statementTimeoutMs: a SELECT without an index reads the whole collection. */
  readonly statementTimeoutMs: number;
}

export interface LoadPlan {
  readonly collection: string;
  readonly total: number;
  readonly batch: number;
  readonly seed: number;
  /** The load fails once it has run this long (checked between batches). */
  readonly limitMs: number;
}

/** A timed step in the node: milliseconds, and how many documents it answered or changed. */
export interface Timed {
  readonly ms: number;
  readonly count: number;
}

/** After a full collection and a turn of the event loop, so that freed memory is counted as freed. */
async function memory(): Promise<Memory> {
  childGc();
  await new Promise((resolve) => setTimeout(resolve, 50));
  childGc();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

function handlers(node: PgNode): Handlers {
  const errors: string[] = [];
  const warnings: string[] = [];
  const drain = (): void => {
    for (const entry of node.logs.splice(0) as LogEntry[]) {
      if (entry.level === 'ERROR') errors.push(`${entry.component}: ${entry.message}`);
      else if (entry.level === 'WARN') warnings.push(`${entry.component}: ${entry.message}`);
    }
  };
  const drainer = setInterval(drain, 200);
  const store = node.peer.sync.store;
  return {
    info: () => ({ url: node.url }),
    /** `INSERT INTO … DOCUMENTS (:docs)`, `batch` orders per transaction, generated here (the generation is timed too, as on the raw side). */
    load: async (plan: LoadPlan): Promise<Timed> => {
      const statement = `INSERT INTO ${plan.collection} DOCUMENTS (:docs)`;
      const start = performance.now();
      for (let first = 0; first < plan.total; first += plan.batch) {
        if (performance.now() - start > plan.limitMs) throw new Error(`the load passed ${plan.limitMs} ms after ${first} documents`);
        await store.execute(statement, { docs: generateOrders(Math.min(plan.batch, plan.total - first), first, plan.seed) });
      }
      return { ms: performance.now() - start, count: plan.total };
    },
    /** A statement through the store; answers its time and how many items it returned. */
    execute: async ({ statement }: { statement: string }): Promise<Timed> => {
      const start = performance.now();
      const { items } = await store.execute(statement);
      return { ms: performance.now() - start, count: items.length };
    },
    /** The TTL job's update (ttl-job.ts) with a given cut-off, as the job runs it: an Internal transaction. */
    ttl: async ({ collection, field, ttl }: { collection: string; field: string; ttl: string }): Promise<Timed> => {
      const start = performance.now();
      const result = await store.internalWrites.execute('Internal', `ttl ${collection}`, ttlStatement(collection, field), { ttl });
      return { ms: performance.now() - start, count: result.mutatedDocumentIds.length };
    },
    memory: async () => {
      drain();
      return memory();
    },
    logs: (): NodeLogs => {
      drain();
      return { errors: errors.splice(0), warnings: warnings.splice(0) };
    },
    close: async () => {
      clearInterval(drainer);
      await node.close();
    },
  };
}

await serveChild(async (setup: MillionHostSetup) =>
  handlers(
    await startPgNode({
      url: setup.url,
      schema: setup.schema,
      name: setup.name,
      config: { statementTimeoutMs: setup.statementTimeoutMs, requestTimeoutMs: setup.statementTimeoutMs + 5_000 },
    }),
  ),
);
