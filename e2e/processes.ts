/**
 * Real processes for the browser tests: a Big Peer (`syncmesh big-peer`) and headless peers
 * serving the inspector (`syncmesh inspect`), each in its own temporary folder, each started with
 * the project's Node 24 and stopped (SIGTERM, then SIGKILL) when the test file is done.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const PROJECT = resolve(import.meta.dirname, '..');
const SYNCMESH = join(PROJECT, 'bin', 'syncmesh.js');
/** How long a process may take to print the line the test waits for. */
const START_TIMEOUT_MS = 30_000;

export interface RunningProcess {
  readonly child: ChildProcess;
  /** Everything it wrote so far on standard error (its log lines). */
  stderr(): string;
  stop(): Promise<void>;
}

function startSyncmesh(args: readonly string[], readyLine: RegExp): Promise<{ process: RunningProcess; match: RegExpMatchArray }> {
  const child = spawn(process.execPath, [SYNCMESH, ...args], { cwd: PROJECT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    // Keep the tail only: a DEBUG peer logs a lot.
    stderr = (stderr + chunk).slice(-2_000_000);
  });
  const running: RunningProcess = {
    child,
    stderr: () => stderr,
    stop: () => stopProcess(child),
  };
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      void running.stop();
      reject(new Error(`syncmesh ${args.join(' ')} printed no ${readyLine} within ${START_TIMEOUT_MS} ms.\nstdout: ${stdout}\nstderr: ${stderr.slice(-4000)}`));
    }, START_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = stdout.match(readyLine);
      if (match !== null) {
        clearTimeout(timer);
        resolvePromise({ process: running, match });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`syncmesh ${args.join(' ')} exited (${code ?? signal}) before it was ready.\nstdout: ${stdout}\nstderr: ${stderr.slice(-4000)}`));
    });
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolvePromise();
    });
    child.kill('SIGTERM');
  });
}

export interface BigPeerProcess extends RunningProcess {
  readonly url: string;
  readonly appID: string;
  readonly playgroundToken: string;
}

export async function startBigPeer(directory: string, appID = 'e2e-app', playgroundToken = 'e2e-playground-token'): Promise<BigPeerProcess> {
  const { process: running, match } = await startSyncmesh(
    ['big-peer', '--app-id', appID, '--port', '0', '--data', directory, '--playground-token', playgroundToken],
    /HTTP API:\s+(http:\/\/127\.0\.0\.1:\d+)/,
  );
  return { ...running, url: match[1] as string, appID, playgroundToken };
}

export interface InspectedPeer extends RunningProcess {
  /** The inspector's page, with its token. */
  readonly inspectorUrl: string;
}

export interface PeerOptions {
  readonly store: string;
  readonly bigPeer?: BigPeerProcess;
  readonly subscribe?: readonly string[];
  readonly logLevel?: string;
}

export async function startInspectedPeer(options: PeerOptions): Promise<InspectedPeer> {
  const args = ['inspect', '--store', options.store, '--port', '0'];
  if (options.bigPeer !== undefined) {
    args.push('--big-peer', options.bigPeer.url, '--app-id', options.bigPeer.appID, '--playground-token', options.bigPeer.playgroundToken);
  }
  for (const statement of options.subscribe ?? []) args.push('--subscribe', statement);
  if (options.logLevel !== undefined) args.push('--log-level', options.logLevel);
  const { process: running, match } = await startSyncmesh(args, /SyncMesh inspector: (http:\/\/127\.0\.0\.1:\d+\/\S+\/)/);
  return { ...running, inspectorUrl: match[1] as string };
}

/** A temporary folder for one test file, removed by `remove()`. */
export function temporaryFolder(prefix: string): { readonly path: string; sub(name: string): string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `syncmesh-e2e-${prefix}-`));
  return {
    path,
    sub: (name) => join(path, name),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}
