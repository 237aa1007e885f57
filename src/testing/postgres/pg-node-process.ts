/**
 * For tests: `syncmesh big-peer --storage postgres://…` as a real process (the test app, its API
 * key and playground token, on 127.0.0.1 and a free port), resolved once it printed its URL. The
 * caller stops it (child-process-fixture.ts `stopAll`, or by killing `run.child`).
 */
import { describeRun, startNode, until, type Run } from '../cli/child-process-fixture.ts';
import { PLAYGROUND_TOKEN, TEST_APP, TEST_KEY } from '../big-peer/test-helpers.ts';

export interface BigPeerNodeProcess {
  readonly run: Run;
  /** Its HTTP API, `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
}

/**
 * Spawns a node on `storage` (a PostgreSQL URL with its `?schema=`), named `name`, without waiting
 * for it: for a test that watches it start, wait or refuse.
 */
export function spawnBigPeerNode(storage: string, name: string): Run {
  return startNode([
    'bin/syncmesh.js',
    'big-peer',
    '--storage',
    storage,
    '--node-name',
    name,
    '--app-id',
    TEST_APP,
    '--playground-token',
    PLAYGROUND_TOKEN,
    '--api-key',
    TEST_KEY,
    '--host',
    '127.0.0.1',
    '--port',
    '0',
  ]);
}

/** Starts a node on `storage` (a PostgreSQL URL with its `?schema=`), named `name`. */
export async function startBigPeerNode(storage: string, name: string): Promise<BigPeerNodeProcess> {
  const run = spawnBigPeerNode(storage, name);
  await until(run, () => /HTTP API: +http:\/\/127\.0\.0\.1:\d+/.test(run.stdout), `${name} starts`);
  const url = /HTTP API: +(http:\/\/127\.0\.0\.1:(\d+))/.exec(run.stdout);
  if (url === null) throw describeRun(run, `${name} printed no URL`);
  return { run, url: url[1] as string, port: Number(url[2]) };
}
