/**
 * TEST FIXTURE: runs a SyncMesh command (`bin/syncmesh.js …`, `scripts/start.js`) as a real
 * process under the project's Node 24 (`node_modules/.bin/node`), collects its output, waits for
 * conditions with a bound, and stops it. Every process started is stopped by `stopAll()`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PROJECT_DIR = fileURLToPath(new URL('../../../', import.meta.url));
/** The project's Node 24, as the npm scripts use it; this process's Node when it is absent. */
export const NODE = existsSync(`${PROJECT_DIR}node_modules/.bin/node`) ? `${PROJECT_DIR}node_modules/.bin/node` : process.execPath;

export interface Run {
  readonly child: ChildProcessWithoutNullStreams;
  stdout: string;
  stderr: string;
  /** The exit code, or the signal's name when a signal ended it. */
  readonly exit: Promise<number | string>;
}

const running = new Set<Run>();

/** Starts `node <args>` in the project directory with `env` added to this process's environment. */
export function startNode(args: readonly string[], env: Readonly<Record<string, string>> = {}): Run {
  const child = spawn(NODE, [...args], { cwd: PROJECT_DIR, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exit: new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'))),
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (run.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (run.stderr += d));
  child.stdin.on('error', () => {});
  running.add(run);
  void run.exit.then(() => running.delete(run));
  return run;
}

export function describeRun(run: Run, what: string): Error {
  return new Error(`${what}\nstdout: ${run.stdout}\nstderr: ${run.stderr.slice(-4000)}`);
}

/** Waits until `done()` holds, at most `ms`; fails early when the process exits first. */
export async function until(run: Run, done: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (done()) return;
      throw describeRun(run, `${what}: the process exited (${run.child.exitCode ?? run.child.signalCode}) first`);
    }
    if (Date.now() > deadline) throw describeRun(run, `${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Resolves with the exit code (or signal), failing after `ms`. */
export async function exitOf(run: Run, ms = 20_000): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(describeRun(run, `no exit within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([run.exit, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Kills (SIGKILL) every process still running, for afterEach. */
export async function stopAll(): Promise<void> {
  const left = [...running];
  for (const run of left) run.child.kill('SIGKILL');
  await Promise.all(left.map((run) => run.exit));
}
