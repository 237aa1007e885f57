/**
 * Real processes for the browser tests: a Big Peer (`syncmesh big-peer`) and headless peers
 * serving the inspector (`syncmesh inspect`), each started with the project's Node 24 in one
 * temporary folder per test file, and stopped (SIGTERM, then SIGKILL) with the folder removed
 * when the file is done, also when a test or the start itself failed.
 *
 *   const mesh = createMesh('documents');
 *   test.beforeAll(async () => {
 *     const bigPeer = await mesh.startBigPeer();
 *     a = await mesh.startPeer('a', { bigPeer, subscribe: ['SELECT * FROM orders'] });
 *   });
 *   test.afterAll(() => mesh.stop());
 *
 * Nothing is created before the first start: Playwright imports test files in its runner too.
 * Should the worker exit with processes still running (an interrupted run), they are killed and
 * the folders removed on its way out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const PROJECT = resolve(import.meta.dirname, '..');
const SYNCMESH = join(PROJECT, 'bin', 'syncmesh.js');
/** How long a process may take to print the line the test waits for (a loaded 2-core machine). */
const START_TIMEOUT_MS = 45_000;
/** How long a stopped process may take to exit after SIGTERM before it gets SIGKILL. */
const STOP_TIMEOUT_MS = 10_000;
/** Standard error kept per process: the tail (a DEBUG peer logs a lot). */
const STDERR_TAIL_CHARS = 4_000_000;

/**
 * The temporary folders' names: `syncmesh-e2e-<file>-<worker pid>-<random>`, so that the global
 * teardown can tell a folder left by a worker that is gone (e2e/global-teardown.ts).
 */
export const FOLDER_PREFIX = 'syncmesh-e2e-';

/** Every child still running and every folder not yet removed, for the worker's exit. */
const liveChildren = new Set<ChildProcess>();
const liveFolders = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of liveChildren) {
      try {
        child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    }
    for (const folder of liveFolders) rmSync(folder, { recursive: true, force: true });
  });
}

export interface RunningProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything it wrote so far on standard error (its log lines), the tail of it. */
  stderr(): string;
  stop(): Promise<void>;
}

function startSyncmesh(name: string, args: readonly string[], readyLine: RegExp): Promise<{ process: RunningProcess; match: RegExpMatchArray }> {
  return startNode(name, SYNCMESH, args, readyLine, PROJECT);
}

/** Runs `node script …args` in `cwd` until it prints `readyLine` on standard output. */
function startNode(
  name: string,
  script: string,
  args: readonly string[],
  readyLine: RegExp,
  cwd: string,
): Promise<{ process: RunningProcess; match: RegExpMatchArray }> {
  installExitHook();
  const child = spawn(process.execPath, [script, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    if (stderr.length > STDERR_TAIL_CHARS * 2) stderr = stderr.slice(-STDERR_TAIL_CHARS);
  });
  const running: RunningProcess = {
    name,
    child,
    stderr: () => stderr,
    stop: () => stopProcess(child),
  };
  const what = `${name} (${script === SYNCMESH ? 'syncmesh' : script} ${args.join(' ')})`;
  return new Promise((resolvePromise, reject) => {
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void running.stop();
      reject(new Error(`${what} ${message}.\nstdout: ${stdout}\nstderr: ${stderr.slice(-4000)}`));
    };
    const timer = setTimeout(() => fail(`printed no ${readyLine} within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (settled) return;
      const match = stdout.match(readyLine);
      if (match !== null) {
        settled = true;
        clearTimeout(timer);
        resolvePromise({ process: running, match });
      }
    });
    child.once('error', (error) => fail(`could not start: ${error.message}`));
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal}) before it was ready`));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      resolvePromise();
    });
    child.kill('SIGTERM');
  });
}

export interface BigPeerProcess extends RunningProcess {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly appID: string;
  readonly playgroundToken: string;
  /** Its own inspector's page (`--inspect-port 0`), when started with `inspect`. */
  readonly inspectorUrl: string | undefined;
}

export interface BigPeerOptions {
  readonly appID?: string;
  readonly playgroundToken?: string;
  readonly logLevel?: string;
  /** Also serve the Big Peer's own inspector (`--inspect-port 0`). */
  readonly inspect?: boolean;
  /** `--config FILE`: a configuration file (JSON) written into the folder. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** `--device-name NAME`: the Big Peer writes its presence document (default: none). */
  readonly deviceName?: string;
}

export interface InspectedPeer extends RunningProcess {
  /** The inspector's page, with its token: `http://127.0.0.1:<port>/<token>/`. */
  readonly inspectorUrl: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly token: string;
  /** The peer's store folder. */
  readonly store: string;
}

export interface PeerOptions {
  readonly bigPeer?: BigPeerProcess;
  /** Log in through the Big Peer's provider `name` with `token` (`--auth-provider`, `--auth-token`) instead of its playground. */
  readonly login?: { readonly provider: string; readonly token: string };
  /** `--subscribe` statements. */
  readonly subscribe?: readonly string[];
  /** `--log-level`: ERROR, WARN, INFO (the default), DEBUG or VERBOSE. */
  readonly logLevel?: string;
  /** `--evict` strategies (`local:orders:72`, `big-peer:orders`). */
  readonly evict?: readonly string[];
  /** `--evict-window HH:MM-HH:MM` (UTC). */
  readonly evictWindow?: string;
  /** `--read-only`: the inspector refuses every change. */
  readonly readOnly?: boolean;
  /** `--result-limit SIZE`: how much of one SELECT result the inspector keeps (`64KiB`). */
  readonly resultLimit?: string;
  /** `--device-name NAME` (default: the host name). */
  readonly deviceName?: string;
}

export interface Mesh {
  /** The test file's temporary folder (created by the first start). */
  folder(): string;
  /** A Big Peer with `--data` in the folder, a playground token, on a free port. */
  startBigPeer(options?: BigPeerOptions): Promise<BigPeerProcess>;
  /**
   * Stops a Big Peer and starts it again on the same port and data (its peers redial it), after
   * `whileDown` when given: the answer replaces `bigPeer`.
   */
  restartBigPeer(bigPeer: BigPeerProcess, whileDown?: () => Promise<void>): Promise<BigPeerProcess>;
  /** `syncmesh inspect --store <folder>/<name>` on a free port. */
  startPeer(name: string, options?: PeerOptions): Promise<InspectedPeer>;
  /**
   * Another program on Node.js (an example app): `node script …args` in `cwd`, stopped with the
   * others, ready once its standard output matches `readyLine` (whose match it resolves with).
   */
  startProgram(
    name: string,
    script: string,
    args: readonly string[],
    readyLine: RegExp,
    cwd: string,
  ): Promise<{ process: RunningProcess; match: RegExpMatchArray }>;
  /** Stops every process started (peers first, then Big Peers) and removes the folder. */
  stop(): Promise<void>;
}

export function createMesh(prefix: string): Mesh {
  let folder: string | undefined;
  const started: RunningProcess[] = [];
  const bigPeers = new Set<RunningProcess>();
  const ensureFolder = (): string => {
    if (folder === undefined) {
      installExitHook();
      folder = mkdtempSync(join(tmpdir(), `${FOLDER_PREFIX}${prefix}-${process.pid}-`));
      liveFolders.add(folder);
    }
    return folder;
  };
  const bigPeerStarts = new WeakMap<BigPeerProcess, { readonly data: string; readonly options: BigPeerOptions }>();
  const startBigPeerOn = async (data: string, port: string, options: BigPeerOptions): Promise<BigPeerProcess> => {
    const appID = options.appID ?? 'e2e-app';
    const playgroundToken = options.playgroundToken ?? 'e2e-playground-token';
    const args = ['big-peer', '--app-id', appID, '--port', port, '--data', data, '--playground-token', playgroundToken];
    if (options.logLevel !== undefined) args.push('--log-level', options.logLevel);
    if (options.deviceName !== undefined) args.push('--device-name', options.deviceName);
    if (options.inspect === true) args.push('--inspect-port', '0');
    if (options.config !== undefined) {
      const file = `${data}.config.json`;
      writeFileSync(file, JSON.stringify(options.config));
      args.push('--config', file);
    }
    const ready =
      options.inspect === true
        ? /HTTP API:\s+(http:\/\/127\.0\.0\.1:\d+)[\s\S]*Inspector: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)\n/
        : /HTTP API:\s+(http:\/\/127\.0\.0\.1:\d+)/;
    const bigPeer = await track(
      startSyncmesh('Big Peer', args, ready).then(({ process: running, match }) => ({
        ...running,
        url: match[1] as string,
        appID,
        playgroundToken,
        inspectorUrl: match[2],
      })),
    );
    bigPeers.add(bigPeer);
    bigPeerStarts.set(bigPeer, { data, options });
    return bigPeer;
  };
  /** Starts and records a process, also one that fails to start (stopped by then). */
  const track = async <P extends RunningProcess>(starting: Promise<P>): Promise<P> => {
    const running = await starting;
    started.push(running);
    return running;
  };
  return {
    folder: ensureFolder,
    startBigPeer(options = {}) {
      const data = join(ensureFolder(), `big-peer-${bigPeers.size + 1}`);
      return startBigPeerOn(data, '0', options);
    },
    async restartBigPeer(bigPeer, whileDown) {
      const known = bigPeerStarts.get(bigPeer);
      if (known === undefined) throw new Error('restartBigPeer: not a Big Peer of this mesh');
      await bigPeer.stop();
      bigPeers.delete(bigPeer);
      await whileDown?.();
      return startBigPeerOn(known.data, new URL(bigPeer.url).port, known.options);
    },
    async startPeer(name, options = {}) {
      const store = join(ensureFolder(), `peer-${name}`);
      const args = ['inspect', '--store', store, '--port', '0'];
      if (options.bigPeer !== undefined) {
        args.push('--big-peer', options.bigPeer.url, '--app-id', options.bigPeer.appID);
        if (options.login === undefined) args.push('--playground-token', options.bigPeer.playgroundToken);
        else args.push('--auth-provider', options.login.provider, '--auth-token', options.login.token);
      }
      for (const statement of options.subscribe ?? []) args.push('--subscribe', statement);
      if (options.logLevel !== undefined) args.push('--log-level', options.logLevel);
      for (const strategy of options.evict ?? []) args.push('--evict', strategy);
      if (options.evictWindow !== undefined) args.push('--evict-window', options.evictWindow);
      if (options.readOnly === true) args.push('--read-only');
      if (options.resultLimit !== undefined) args.push('--result-limit', options.resultLimit);
      if (options.deviceName !== undefined) args.push('--device-name', options.deviceName);
      return track(
        startSyncmesh(`peer ${name}`, args, /SyncMesh inspector: (http:\/\/127\.0\.0\.1:\d+)\/([A-Za-z0-9_-]+)\/\n/).then(({ process: running, match }) => ({
          ...running,
          inspectorUrl: `${match[1]}/${match[2]}/`,
          origin: match[1] as string,
          token: match[2] as string,
          store,
        })),
      );
    },
    async startProgram(name, script, args, readyLine, cwd) {
      ensureFolder();
      const program = await startNode(name, script, args, readyLine, cwd);
      await track(Promise.resolve(program.process));
      return program;
    },
    async stop() {
      const peers = started.filter((p) => !bigPeers.has(p));
      await Promise.all(peers.map((p) => p.stop()));
      await Promise.all([...bigPeers].map((p) => p.stop()));
      started.length = 0;
      bigPeers.clear();
      if (folder !== undefined) {
        rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
        liveFolders.delete(folder);
        folder = undefined;
      }
    },
  };
}
