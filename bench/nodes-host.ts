/**
 * A child process of the `nodes` suite (bench/nodes.bench.ts), one server in it:
 *
 * - `node`: one Big Peer node on PostgreSQL (`startPgNode`, src/testing/postgres/pg-nodes.ts), as
 *   `syncmesh big-peer --storage postgres://…` runs it: its store, its HTTP and WebSocket server
 *   on 127.0.0.1, its PostgreSQL worker thread. It writes when asked (`prepare`, then `go`: the
 *   write loop of the writes rows; `insert`: one fan-out write) and reports its sessions, its
 *   memory, its CPU time, when it had written a fan-out write to its sessions (`watch`, then
 *   `sent`: bench/sent-frames.ts), when its store had each document of a collection committed
 *   (`track`, then `tracked`: the small peers' writes of bench/nodes-peer-writes.ts) and its WARN
 *   and ERROR log entries.
 * - `raw-ws`: the baseline server, bare `ws` on 127.0.0.1: it relays each message a client sends
 *   to the other clients (the latency rows) and sends a frame to every client when asked (the
 *   fan-out rows).
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type RawData } from 'ws';
import { startPgNode, type PgNode } from '../src/testing/postgres/pg-nodes.ts';
import type { LogEntry } from '../src/shared/log.ts';
import type { BenchDocument } from './documents.ts';
import { childGc, cpuMs, serveChild, wallNow, writeDocuments, type Handlers, type Memory, type NodeLogs, type Span, type WritePlan } from './nodes-ipc.ts';

export type HostSetup = { readonly role: 'node'; readonly url: string; readonly schema: string; readonly name: string } | { readonly role: 'raw-ws' };

/** After a full collection and a turn of the event loop, so that freed memory is counted as freed. */
async function memory(): Promise<Memory> {
  childGc();
  await new Promise((resolve) => setTimeout(resolve, 50));
  childGc();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

function nodeHandlers(node: PgNode, frames: typeof import('./sent-frames.ts')): Handlers {
  // The node logs INFO and up into an array: only WARN and ERROR are kept, so that a log of
  // sessions opening is not counted as the sessions' memory.
  const errors: string[] = [];
  const warnings: string[] = [];
  const drain = (): void => {
    for (const entry of node.logs.splice(0) as LogEntry[]) {
      if (entry.level === 'ERROR') errors.push(`${entry.component}: ${entry.message}`);
      else if (entry.level === 'WARN') warnings.push(`${entry.component}: ${entry.message}`);
    }
  };
  const drainer = setInterval(drain, 200);
  let prepared: BenchDocument[] = [];
  let collection = '';
  // `track`: [_id, when] of each document of the tracked collection the store committed.
  let untrack: (() => void) | undefined;
  let committed: [string, number][] = [];
  return {
    info: () => ({ url: node.url }),
    prepare: (plan: WritePlan) => {
      prepared = writeDocuments(plan);
      collection = plan.collection;
      drain();
      childGc();
    },
    go: async (): Promise<Span> => {
      const docs = prepared;
      prepared = [];
      const statement = `INSERT INTO ${collection} DOCUMENTS (:doc)`;
      const start = wallNow();
      for (const doc of docs) await node.peer.sync.store.execute(statement, { doc });
      return { start, end: wallNow() };
    },
    insert: async ({ collection: into, doc }: { collection: string; doc: BenchDocument }) => {
      await node.peer.sync.store.execute(`INSERT INTO ${into} DOCUMENTS (:doc)`, { doc });
    },
    count: async ({ collection: of }: { collection: string }) => (await node.peer.sync.store.execute(`SELECT COUNT(*) AS n FROM ${of}`)).items[0]?.n,
    /** Inserts `count` documents `{ _id, n: i % distinct, s }` through the store, `batch` per transaction. */
    load: async ({ collection: into, count, distinct, batch }: { collection: string; count: number; distinct: number; batch: number }) => {
      for (let from = 0; from < count; from += batch) {
        const docs = Array.from({ length: Math.min(batch, count - from) }, (_, k) => {
          const i = from + k;
          return { _id: `i${String(i).padStart(6, '0')}`, n: i % distinct, s: `item ${i}` };
        });
        await node.peer.sync.store.execute(`INSERT INTO ${into} DOCUMENTS (:docs)`, { docs });
      }
    },
    /** A statement through the node's store (commands such as CREATE INDEX, which HTTP refuses); answers how many items. */
    execute: async ({ statement }: { statement: string }) => (await node.peer.sync.store.execute(statement)).items.length,
    /**
     * From now on notes, for each document of `collection` the node's store commits, when its
     * commit listeners were told: after its COMMIT in PostgreSQL (a group's, under group commit).
     */
    track: ({ collection: of }: { collection: string }) => {
      untrack?.();
      committed = [];
      untrack = node.peer.sync.store.onCommit((txn) => {
        const at = wallNow();
        for (const change of txn.changes) if (change.collection === of && change.kind === 'put') committed.push([String(change.id), at]);
      });
    },
    /** What `track` noted since the last call. */
    tracked: () => committed.splice(0),
    sessions: () => node.peer.sessions,
    fanOut: () => node.peer.sync.fanOut ?? null,
    cpu: cpuMs,
    /** The storage's counters since it opened: groups committed, writes in them, SQL statements sent and round trips. */
    counters: () => node.storage.commitCounters,
    /** Starts noting the frames that name the document `id` (a fan-out write about to be made). */
    watch: ({ id }: { id: string }) => frames.watchFrames(id),
    /** How many frames named it, and when the last was written. */
    sent: () => frames.framesSent(),
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
      untrack?.();
      await node.close();
    },
  };
}

async function rawHandlers(): Promise<Handlers> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  wss.on('connection', (socket) => {
    // The relay of the latency rows: a message goes on, as it came, to every other client.
    socket.on('message', (data: RawData, isBinary: boolean) => {
      for (const other of wss.clients) if (other !== socket) other.send(data, { binary: isBinary });
    });
  });
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  return {
    info: () => ({ url }),
    clients: () => wss.clients.size,
    /** Answers when the last frame was written (the shared clock). */
    broadcast: ({ text }: { text: string }) => {
      for (const client of wss.clients) client.send(text);
      return wallNow();
    },
    memory,
    cpu: cpuMs,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}

await serveChild(async (setup: HostSetup) => {
  if (setup.role === 'raw-ws') return rawHandlers();
  // Only a node's WebSockets are watched: the raw server's sends stay as `ws` makes them.
  const frames = await import('./sent-frames.ts');
  return nodeHandlers(await startPgNode({ url: setup.url, schema: setup.schema, name: setup.name }), frames);
});
