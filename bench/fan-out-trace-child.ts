/**
 * A child process of bench/fan-out-trace.ts: one Big Peer node on PostgreSQL (`node`), or N small
 * peers subscribed to one collection (`small-peers`), as the `nodes` suite runs them, with
 * stamps along the fan-out path taken while the driver records:
 *
 * - every WebSocket frame this process sends or receives (`send:update`, `recv:ack`, …: the
 *   `type` of the message), by wrapping `ws`'s `send` and `emit('message')` in this process only;
 * - a node's own commits (`commit`), other nodes' commits heard (`external`), the write request
 *   received and returned; a small peer's commit of a fan-out document (`merged`).
 *
 * It also reports its CPU time over the recording, and writes a V8 CPU profile of it when asked
 * (`node:inspector`; open the `.cpuprofile` in Chrome DevTools). The stamps are there to find
 * where time goes, not to be timed against a target: the suite's rows do that.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { WebSocket } from 'ws';
import { smallPeerOf, startPgNode } from '../src/testing/postgres/pg-nodes.ts';
import { LogHub, type Sync } from '../src/peer/host.ts';
import { cpuMs, serveChild, wallNow, type Handlers } from './nodes-ipc.ts';

export type TraceSetup =
  | { readonly role: 'node'; readonly url: string; readonly schema: string; readonly name: string }
  | { readonly role: 'small-peers'; readonly url: string; readonly count: number; readonly collection: string };

/** What one process recorded: its stamps by event (wall clock, ms) and the CPU time it used meanwhile. */
export interface Recording {
  readonly stamps: Record<string, number[]>;
  readonly cpuMs: number;
}

/** Bound on one document reaching every small peer. */
const WAIT_TIMEOUT_MS = 10_000;

class Recorder {
  #on = false;
  #stamps: Record<string, number[]> = {};
  #cpuFrom = 0;
  #profiler: Session | undefined;

  stamp(event: string): void {
    if (this.#on) (this.#stamps[event] ??= []).push(wallNow());
  }

  async start(profile: boolean): Promise<void> {
    if (profile) {
      this.#profiler = new Session();
      this.#profiler.connect();
      await this.#profiler.post('Profiler.enable');
      await this.#profiler.post('Profiler.start');
    }
    this.#stamps = {};
    this.#cpuFrom = cpuMs();
    this.#on = true;
  }

  async stop(profileFile: string | undefined): Promise<Recording> {
    this.#on = false;
    const recording = { stamps: this.#stamps, cpuMs: cpuMs() - this.#cpuFrom };
    if (this.#profiler !== undefined) {
      const { profile } = await this.#profiler.post('Profiler.stop');
      if (profileFile !== undefined) writeFileSync(profileFile, JSON.stringify(profile));
      this.#profiler.disconnect();
      this.#profiler = undefined;
    }
    return recording;
  }
}

const recorder = new Recorder();

/** The `type` of a session message, from the start of its frame (`other` for anything else). */
function typeOf(data: unknown): string {
  const head = typeof data === 'string' ? data.slice(0, 40) : Buffer.isBuffer(data) ? data.subarray(0, 40).toString('utf8') : '';
  return /"type":"(\w+)"/.exec(head)?.[1] ?? 'other';
}

// Every WebSocket of this process, whoever made it: the node's sessions, the small peers' dialers.
const proto = WebSocket.prototype as unknown as { send: (...args: unknown[]) => void; emit: (event: string, ...args: unknown[]) => boolean };
const send = proto.send;
proto.send = function (this: unknown, ...args: unknown[]) {
  recorder.stamp(`send:${typeOf(args[0])}`);
  send.apply(this, args);
};
const emit = proto.emit;
proto.emit = function (this: unknown, event: string, ...args: unknown[]) {
  if (event === 'message') recorder.stamp(`recv:${typeOf(args[0])}`);
  return emit.call(this, event, ...args);
};

const recording = {
  start: ({ profile }: { profile: boolean }) => recorder.start(profile),
  stop: ({ profileFile }: { profileFile?: string }) => recorder.stop(profileFile),
};

async function node(setup: Extract<TraceSetup, { role: 'node' }>): Promise<Handlers> {
  const started = await startPgNode(setup);
  const store = started.peer.sync.store;
  store.onCommit(() => recorder.stamp('commit'));
  store.onExternalCommit(() => recorder.stamp('external'));
  return {
    ...recording,
    info: () => ({ url: started.url }),
    sessions: () => started.peer.sessions,
    insert: async ({ collection, doc }: { collection: string; doc: Record<string, unknown> }) => {
      recorder.stamp('insert received');
      await store.execute(`INSERT INTO ${collection} DOCUMENTS (:doc)`, { doc });
      recorder.stamp('insert returned');
    },
    close: () => started.close(),
  };
}

function smallPeers(setup: Extract<TraceSetup, { role: 'small-peers' }>): Handlers {
  const hub = new LogHub({ minimumLogLevel: 'WARN' });
  const seen = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const peers: Sync[] = [];
  for (let i = 0; i < setup.count; i++) {
    const sync = smallPeerOf(setup.url, { logHub: hub });
    sync.store.registerSubscription(`SELECT * FROM ${setup.collection}`);
    sync.store.onCommit((txn) => {
      for (const change of txn.changes) {
        if (change.collection !== setup.collection || change.kind !== 'put') continue;
        recorder.stamp('merged');
        const id = String(change.id);
        const n = (seen.get(id) ?? 0) + 1;
        seen.set(id, n);
        if (n === setup.count) waiting.get(id)?.();
      }
    });
    peers.push(sync);
  }
  return {
    ...recording,
    connect: () =>
      Promise.all(
        peers.map(
          (sync) =>
            new Promise<void>((resolve, reject) => {
              const check = (): void => {
                if (sync.sessions.length === 0) return;
                off();
                resolve();
              };
              const off = sync.onConnectionsChange(check);
              sync.startSync().then(check, reject);
            }),
        ),
      ),
    wait: ({ id }: { id: string }) =>
      new Promise<void>((resolve, reject) => {
        if (seen.get(id) === setup.count) return resolve();
        const timer = setTimeout(() => reject(new Error(`${id} reached ${seen.get(id) ?? 0} of ${setup.count} peers`)), WAIT_TIMEOUT_MS);
        waiting.set(id, () => {
          clearTimeout(timer);
          resolve();
        });
      }),
    close: async () => {
      await Promise.allSettled(peers.map((sync) => sync.stopSync()));
      for (const sync of peers) sync.close();
    },
  };
}

await serveChild(async (setup: TraceSetup) => (setup.role === 'node' ? node(setup) : smallPeers(setup)));
