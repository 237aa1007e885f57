/**
 * A child process of the `nodes` suite (bench/nodes.bench.ts) holding the clients of the
 * 200-peer rows, apart from the servers they load:
 *
 * - `small-peers`: N small peers (`smallPeerOf`, src/testing/postgres/pg-nodes.ts: in memory,
 *   the playground identity), each subscribed to one collection; `connect` starts them all at
 *   once and answers when every one has a replication session.
 * - `raw-clients`: N bare `ws` clients; `connect` opens them all at once and answers when every
 *   one is open.
 *
 * Both note, per document `_id`, when each client got it (a small peer: the commit that wrote it
 * into its store; a raw client: the frame parsed); `wait` answers when all N have. `cpu` tells
 * the CPU time the process has used, so that the suite can say what the N clients' own work costs.
 *
 * - `small-writers` (bench/nodes-peer-writes.ts): N small peers, peer i dialing node i mod n,
 *   subscribed to nothing. `start` has each write one document per transaction in a loop, the
 *   next once the Big Peer has acknowledged the last (`waitUntilUploaded`); `stop` ends the loops
 *   and answers when each peer wrote each document, on the shared clock (its local commit).
 */
import { WebSocket, type RawData } from 'ws';
import { smallPeerOf } from '../src/testing/postgres/pg-nodes.ts';
import { LogHub, type CommittedTransaction, type Sync } from '../src/peer/host.ts';
import { generateDocuments } from './documents.ts';
import { cpuMs, serveChild, wallNow, type Handlers } from './nodes-ipc.ts';

export type PeersSetup =
  | {
      readonly role: 'small-peers';
      readonly url: string;
      readonly count: number;
      readonly collection: string;
      /** How many start at once; the next ones when these all have a session (default: all). */
      readonly connectBatch?: number;
    }
  | { readonly role: 'raw-clients'; readonly url: string; readonly count: number }
  | {
      readonly role: 'small-writers';
      /** The nodes: peer i dials urls[i mod n]. */
      readonly urls: readonly string[];
      readonly count: number;
      readonly collection: string;
      /** Seed of the documents written (bench/documents.ts). */
      readonly seed: number;
    };

/** What `stop` of the small writers answers. */
export interface WritersStopped {
  /** Documents written and acknowledged by the Big Peer since `start`. */
  readonly acknowledged: number;
  /** `[_id, when the peer committed it]` of every document written since `start`, on the shared clock (wallNow). */
  readonly commits: readonly (readonly [string, number])[];
  /** Each write's round: from just before its INSERT until the Big Peer acknowledged it, ms. */
  readonly rounds: readonly number[];
  /** Loops that ended on an error (none when all went well). */
  readonly failures: readonly string[];
}

/** When the first and the last of the N clients got a document, on the host's shared clock. */
export interface Arrival {
  readonly first: number;
  readonly last: number;
}

/** Bound on connecting all clients. */
const CONNECT_TIMEOUT_MS = 60_000;
/** Bound on stopping the small peers. */
const STOP_TIMEOUT_MS = 30_000;
/** Bound on one write's acknowledgement by the Big Peer. */
const ACK_TIMEOUT_MS = 10_000;
/** Documents the writers cycle through (fresh `_id`s each time). */
const WRITER_TEMPLATES = 64;

function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]).finally(
    () => clearTimeout(timer),
  );
}

/** Who got which `_id`, and when. */
class Arrivals {
  readonly #of = new Map<string, { n: number; first: number; last: number }>();
  readonly #waiting = new Map<string, (arrival: Arrival) => void>();
  readonly #count: number;

  constructor(count: number) {
    this.#count = count;
  }

  seen(id: string): void {
    const now = wallNow();
    let entry = this.#of.get(id);
    if (entry === undefined) this.#of.set(id, (entry = { n: 0, first: now, last: now }));
    entry.n++;
    entry.last = now;
    if (entry.n === this.#count) this.#waiting.get(id)?.({ first: entry.first, last: entry.last });
  }

  wait({ id, timeoutMs }: { id: string; timeoutMs: number }): Promise<Arrival> {
    const entry = this.#of.get(id);
    if (entry !== undefined && entry.n >= this.#count) return Promise.resolve({ first: entry.first, last: entry.last });
    const arrived = new Promise<Arrival>((resolve) => this.#waiting.set(id, resolve));
    return bounded(arrived, timeoutMs, `${id} reaching all ${this.#count} clients (${this.#of.get(id)?.n ?? 0} had it)`).finally(() =>
      this.#waiting.delete(id),
    );
  }
}

/** Starts sync on every peer, `batch` at a time (the next once these all have a session); answers how long it took. */
async function connectAll(peers: readonly Sync[], batch: number): Promise<{ ms: number }> {
  const start = wallNow();
  const all = async (): Promise<void> => {
    for (let i = 0; i < peers.length; i += batch) {
      await Promise.all(
        peers.slice(i, i + batch).map(
          (sync) =>
            new Promise<void>((resolve, reject) => {
              const check = (): boolean => {
                if (sync.sessions.length === 0) return false;
                off();
                resolve();
                return true;
              };
              const off = sync.onConnectionsChange(() => void check());
              sync.startSync().then(() => void check(), reject);
            }),
        ),
      );
    }
  };
  await bounded(all(), CONNECT_TIMEOUT_MS, `${peers.length} small peers having a session`);
  return { ms: wallNow() - start };
}

/** Stops sync on every peer (bounded), then closes them. */
async function closeAllPeers(peers: readonly Sync[]): Promise<void> {
  try {
    await bounded(Promise.allSettled(peers.map((sync) => sync.stopSync())), STOP_TIMEOUT_MS, `stopping ${peers.length} small peers`);
  } finally {
    for (const sync of peers) sync.close();
  }
}

function smallPeers(setup: Extract<PeersSetup, { role: 'small-peers' }>): Handlers {
  const arrivals = new Arrivals(setup.count);
  const errors: string[] = [];
  const warnings: string[] = [];
  const hub = new LogHub({ minimumLogLevel: 'WARN' });
  hub.setCustomLogCallback((entry) => (entry.level === 'ERROR' ? errors : warnings).push(`${entry.component}: ${entry.message}`));
  const peers: Sync[] = [];
  for (let i = 0; i < setup.count; i++) {
    const sync = smallPeerOf(setup.url, { logHub: hub });
    sync.store.registerSubscription(`SELECT * FROM ${setup.collection}`);
    sync.store.onCommit((txn: CommittedTransaction) => {
      for (const change of txn.changes) if (change.collection === setup.collection && change.kind === 'put') arrivals.seen(String(change.id));
    });
    peers.push(sync);
  }
  return {
    connect: () => connectAll(peers, setup.connectBatch ?? setup.count),
    wait: (request: { id: string; timeoutMs: number }) => arrivals.wait(request),
    counts: async ({ collection }: { collection: string }) => {
      const counts: number[] = [];
      for (const sync of peers) counts.push((await sync.store.execute(`SELECT COUNT(*) AS n FROM ${collection}`)).items[0]?.n as number);
      return { min: Math.min(...counts), max: Math.max(...counts) };
    },
    logs: () => ({ errors: errors.splice(0), warnings: warnings.splice(0) }),
    cpu: cpuMs,
    close: () => closeAllPeers(peers),
  };
}

function smallWriters(setup: Extract<PeersSetup, { role: 'small-writers' }>): Handlers {
  const errors: string[] = [];
  const warnings: string[] = [];
  const hub = new LogHub({ minimumLogLevel: 'WARN' });
  hub.setCustomLogCallback((entry) => (entry.level === 'ERROR' ? errors : warnings).push(`${entry.component}: ${entry.message}`));
  const templates = generateDocuments(WRITER_TEMPLATES, { seed: setup.seed });
  let commits: [string, number][] = [];
  const peers: Sync[] = [];
  for (let i = 0; i < setup.count; i++) {
    const sync = smallPeerOf(setup.urls[i % setup.urls.length] as string, { logHub: hub });
    sync.store.onCommit((txn: CommittedTransaction) => {
      if (txn.originator !== 'User') return;
      const at = wallNow();
      for (const change of txn.changes) if (change.collection === setup.collection && change.kind === 'put') commits.push([String(change.id), at]);
    });
    peers.push(sync);
  }
  let running = false;
  let loops: Promise<void>[] = [];
  let acknowledged = 0;
  let rounds: number[] = [];
  const failures: string[] = [];
  const statement = `INSERT INTO ${setup.collection} DOCUMENTS (:doc)`;
  /** Peer `i`'s loop: one document, then wait for the Big Peer's acknowledgement, until stopped. */
  const loop = async (sync: Sync, i: number, prefix: string): Promise<void> => {
    try {
      for (let seq = 0; running; seq++) {
        const doc = { ...(templates[(i + seq) % WRITER_TEMPLATES] as object), _id: `${prefix}${i}-${seq}` };
        const started = wallNow();
        await sync.store.execute(statement, { doc });
        const state = await sync.waitUntilUploaded({ timeoutMs: ACK_TIMEOUT_MS });
        if (state.pendingCommits > 0) throw new Error(`peer ${i}: ${state.pendingCommits} commit(s) not acknowledged within ${ACK_TIMEOUT_MS} ms`);
        rounds.push(wallNow() - started);
        acknowledged++;
      }
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  };
  return {
    connect: () => connectAll(peers, setup.count),
    /** Starts every peer's loop; documents get the `_id` prefix, peer, sequence number. */
    start: ({ prefix }: { prefix: string }) => {
      if (running) throw new Error('the writers are running already');
      running = true;
      acknowledged = 0;
      commits = [];
      rounds = [];
      loops = peers.map((sync, i) => loop(sync, i, prefix));
    },
    stop: async (): Promise<WritersStopped> => {
      running = false;
      await bounded(Promise.all(loops), ACK_TIMEOUT_MS + 5_000, 'the writers ending their loops');
      return { acknowledged, commits: commits.splice(0), rounds: rounds.splice(0), failures: failures.splice(0) };
    },
    logs: () => ({ errors: errors.splice(0), warnings: warnings.splice(0) }),
    cpu: cpuMs,
    close: () => closeAllPeers(peers),
  };
}

function rawClients(setup: Extract<PeersSetup, { role: 'raw-clients' }>): Handlers {
  const arrivals = new Arrivals(setup.count);
  const clients: WebSocket[] = [];
  return {
    connect: async () => {
      const start = wallNow();
      const all: Promise<void>[] = [];
      for (let i = 0; i < setup.count; i++) {
        const ws = new WebSocket(setup.url, { perMessageDeflate: false });
        clients.push(ws);
        ws.on('message', (data: RawData) => arrivals.seen(String((JSON.parse(data.toString()) as { _id?: unknown })._id)));
        all.push(
          new Promise<void>((resolve, reject) => {
            ws.once('open', () => resolve());
            ws.once('error', reject);
          }),
        );
      }
      await bounded(Promise.all(all), CONNECT_TIMEOUT_MS, `${setup.count} raw clients opening`);
      return { ms: wallNow() - start };
    },
    wait: (request: { id: string; timeoutMs: number }) => arrivals.wait(request),
    logs: () => ({ errors: [], warnings: [] }),
    cpu: cpuMs,
    close: () => {
      for (const ws of clients) ws.terminate();
    },
  };
}

await serveChild(async (setup: PeersSetup) => {
  if (setup.role === 'small-peers') return smallPeers(setup);
  if (setup.role === 'small-writers') return smallWriters(setup);
  return rawClients(setup);
});
