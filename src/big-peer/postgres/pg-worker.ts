/**
 * The worker thread of the PostgreSQL storage: it owns the `pg` connections and runs what the
 * main thread asks (pg-protocol.ts). A session is one connection while it is in use (a read
 * snapshot, the write transaction, the poller); its requests run one after another in the order
 * they came. A connection that fails is dropped, never reused: the session's next request takes
 * a new one. Idle connections are kept for reuse, a few at most.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import type { PostedRequest, Statement, StatementResult, WorkerEvent, WorkerOutcome, WorkerRequest, WorkerSetup } from './pg-protocol.ts';

const MAX_IDLE = 8;
const LISTEN_RETRY_MS = [250, 500, 1000, 2000, 5000];

// int8 (txn_id, counts) as numbers: txn_ids stay far below 2^53.
pg.types.setTypeParser(20, (text: string) => Number(text));

const setup = workerData as WorkerSetup;
const signal = new Int32Array(setup.signal);
const port = parentPort;
if (port === null) throw new Error('pg-worker.ts runs as a worker thread');

interface Session {
  client: pg.Client | undefined;
  /** The requests of this session, one after another. */
  chain: Promise<void>;
}

const sessions = new Map<number, Session>();
/** The server processes of this worker's connections (not its LISTEN ones): their NOTIFYs are this node's own. */
const ownPids = new Set<number>();
const idle: pg.Client[] = [];
const broken = new WeakSet<pg.Client>();
let closing = false;

function newClient(): pg.Client {
  const client = new pg.Client({
    connectionString: setup.url,
    application_name: setup.applicationName,
    connectionTimeoutMillis: setup.connectTimeoutMs,
    keepAlive: true,
    // Every statement names its tables unqualified: they are in the store's schema.
    options: `-c search_path=${setup.schema}`,
  });
  // A connection that drops between queries says so here; it is not used again.
  client.on('error', () => broken.add(client));
  client.on('end', () => broken.add(client));
  return client;
}

/** An idle connection, or a new one (always a new one when `fresh`). */
async function takeClient(fresh = false): Promise<pg.Client> {
  for (let client = fresh ? undefined : idle.pop(); client !== undefined; client = idle.pop()) {
    if (!broken.has(client)) return client;
    void client.end().catch(() => {});
  }
  const client = newClient();
  try {
    await client.connect();
  } catch (error) {
    void client.end().catch(() => {});
    throw error;
  }
  const pid = (client as unknown as { processID: number | null }).processID;
  if (pid !== null) {
    ownPids.add(pid);
    client.once('end', () => ownPids.delete(pid));
  }
  return client;
}

function giveBack(client: pg.Client): void {
  if (broken.has(client) || closing || idle.length >= MAX_IDLE) {
    void client.end().catch(() => {});
    return;
  }
  idle.push(client);
}

function errorOf(error: unknown): { message: string; code: string | undefined } {
  const e = error as { message?: unknown; code?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(error);
  // A SQLSTATE is five characters; Node's socket errors (ECONNREFUSED) are connection failures.
  const code = typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined;
  return { message, code };
}

async function runStatements(client: pg.Client, statements: readonly Statement[]): Promise<StatementResult[]> {
  const results: StatementResult[] = [];
  for (const statement of statements) {
    const result =
      statement.params === undefined
        ? await client.query({ text: statement.sql, rowMode: 'array' })
        : await client.query({ text: statement.sql, values: statement.params as unknown[], rowMode: 'array' });
    // A text of several statements answers with one result each: its last, or the one named, is the one asked for.
    const last = (Array.isArray(result) ? result[statement.resultOf ?? result.length - 1] : result) as pg.QueryArrayResult | undefined;
    results.push({ rows: (last?.rows ?? []) as unknown[][], rowCount: last?.rowCount ?? 0 });
  }
  return results;
}

async function handle(request: WorkerRequest): Promise<StatementResult[]> {
  switch (request.kind) {
    case 'run':
      return inSession(request.session, async (session) => {
        // A connection kept meanwhile may have been closed by the server (a restart, a failover,
        // an idle timeout). When nothing of a transaction was on it (a new session, or statements
        // that begin one) and nothing here commits, the statements go again, once, on a new one.
        const first = request.statements[0]?.sql.trimStart().toUpperCase() ?? '';
        const fresh = (session.client === undefined || first.startsWith('BEGIN')) && !request.statements.some((s) => /^\s*COMMIT\b/i.test(s.sql));
        for (let attempt = 0; ; attempt++) {
          session.client ??= attempt === 0 ? await takeClient() : await takeClient(true);
          const client = session.client;
          try {
            return await runStatements(client, request.statements);
          } catch (error) {
            if (errorOf(error).code !== undefined) {
              if (request.rollbackOnError === true) await client.query('ROLLBACK').catch(() => broken.add(client));
              throw error;
            }
            // The connection failed (not a statement): drop it with whatever it held open.
            broken.add(client);
            session.client = undefined;
            void client.end().catch(() => {});
            // The session stays (without a connection): requests already queued behind this one,
            // as the next group's BEGIN behind a COMMIT, and those after them share its next one.
            if (!fresh || attempt > 0) throw error;
          }
        }
      });
    case 'end':
      return inSession(request.session, async (session) => {
        sessions.delete(request.session);
        const client = session.client;
        if (client === undefined) return [];
        session.client = undefined;
        try {
          if (request.sql !== undefined) await client.query(request.sql);
          giveBack(client);
        } catch (error) {
          broken.add(client);
          void client.end().catch(() => {});
          throw error;
        }
        return [];
      });
    case 'listen':
      void listen(request.channel, request.prefetch, 0);
      return [];
    case 'close':
      closing = true;
      await Promise.allSettled(
        [...idle.splice(0), ...[...sessions.values()].flatMap((s) => (s.client === undefined ? [] : [s.client])), ...listeners].map((c) => c.end()),
      );
      sessions.clear();
      return [];
  }
}

function inSession<T>(id: number, fn: (session: Session) => Promise<T>): Promise<T> {
  let session = sessions.get(id);
  if (session === undefined) sessions.set(id, (session = { client: undefined, chain: Promise.resolve() }));
  const own = session;
  const result = own.chain.then(() => fn(own));
  own.chain = result.then(
    () => {},
    () => {},
  );
  return result;
}

const listeners = new Set<pg.Client>();

/**
 * LISTENs on `channel`; when the connection drops, says so and tries again, ever later, until the
 * worker closes. Another process's notification waits for the rows of `prefetch`, read on the
 * same connection; the notifications go to the main thread in the order they came.
 */
async function listen(channel: string, prefetch: string | undefined, attempt: number): Promise<void> {
  if (closing) return;
  const client = newClient();
  let lost = false;
  const onLost = (error: unknown): void => {
    if (lost) return;
    lost = true;
    listeners.delete(client);
    void client.end().catch(() => {});
    if (closing) return;
    post({ kind: 'listen-lost', channel, error: errorOf(error).message });
    const delay = LISTEN_RETRY_MS[Math.min(attempt, LISTEN_RETRY_MS.length - 1)] as number;
    setTimeout(() => void listen(channel, prefetch, attempt + 1), delay).unref();
  };
  let posted = Promise.resolve();
  client.on('error', onLost);
  client.on('end', () => onLost(new Error('the connection ended')));
  client.on('notification', (message) => {
    if (message.channel !== channel) return;
    const payload = message.payload ?? '';
    const rows =
      prefetch === undefined || ownPids.has(message.processId) || carriesRows(payload)
        ? undefined
        : client.query({ text: prefetch, values: [payload], rowMode: 'array' }).then(
            (result) => result.rows as unknown[][],
            () => undefined,
          );
    posted = posted.then(async () => {
      const read = await rows;
      post(read === undefined ? { kind: 'notification', channel, payload } : { kind: 'notification', channel, payload, rows: read });
    });
  });
  try {
    await client.connect();
    listeners.add(client);
    await client.query(`LISTEN ${channel}`);
    post({ kind: 'listening', channel });
    attempt = 0;
  } catch (error) {
    onLost(error);
  }
}

/** Does the payload carry the rows `prefetch` would read (a JSON object with `r`)? */
function carriesRows(payload: string): boolean {
  try {
    return Array.isArray((JSON.parse(payload) as { r?: unknown } | null)?.r);
  } catch {
    return false;
  }
}

function post(event: WorkerEvent): void {
  port?.postMessage(event);
}

port.on('message', (posted: PostedRequest) => {
  void handle(posted.request)
    .then(
      (results): WorkerOutcome => ({ ok: true, results }),
      (error: unknown): WorkerOutcome => ({ ok: false, error: errorOf(error) }),
    )
    .then((outcome) => {
      if (posted.sync) {
        setup.syncPort.postMessage({ seq: posted.seq, outcome });
        Atomics.store(signal, 0, posted.seq);
        Atomics.notify(signal, 0);
      } else {
        post({ kind: 'reply', seq: posted.seq, outcome });
      }
    });
});
