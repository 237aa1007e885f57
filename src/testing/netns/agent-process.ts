/**
 * The driving side of a peer agent (`agent.ts`): spawns it inside a namespace with the project's
 * Node 24, sends commands and matches replies by id, each call bounded in time. Stopping asks the
 * agent to stop, then closes its stdin, then kills it; an exit handler kills it if the test
 * process ends first.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LogEntry } from '../../shared/log.ts';
import { atExit } from './exit-cleanup.ts';
import { parseReply, type AgentCalls, type AgentCommandType, type AgentConfig } from './protocol.ts';
import { jsonLine, onLines } from '../../shared/json-lines.ts';

/** The repository's root, absolute. */
export const PROJECT_DIR = fileURLToPath(new URL('../../../', import.meta.url));
/** The project's Node 24 (a bare `node` may be Node 20, which crashes better-sqlite3). */
export const NODE = `${PROJECT_DIR}node_modules/.bin/node`;
const AGENT = fileURLToPath(new URL('./agent.ts', import.meta.url));

/** Default bound on a call that says none (waits say theirs, plus this margin). */
const CALL_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

/** A process in a namespace, with its output kept for error messages and a bounded stop. */
export interface NamespacedProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The last 8 kB of its stderr. */
  stderrTail(): string;
  /** Resolves with the exit code, or the signal's name. */
  readonly exited: Promise<number | string>;
  /** Has it exited? */
  readonly hasExited: () => boolean;
}

/** Starts `argv` inside namespace `ns` (`ip netns exec`), in the project directory. */
export function spawnInNamespace(ns: string, argv: readonly string[]): NamespacedProcess {
  const child = spawn('ip', ['netns', 'exec', ns, ...argv], { cwd: PROJECT_DIR, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let exitedFlag = false;
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8_192);
  });
  child.stdin.on('error', () => {}); // Writing to an agent that died is reported by its calls.
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      resolve(code ?? signal ?? 'unknown');
    });
    child.once('error', (error) => {
      exitedFlag = true;
      stderr += `\nspawn failed: ${error.message}`;
      resolve('spawn-error');
    });
  });
  const offExit = atExit(() => {
    if (!exitedFlag) child.kill('SIGKILL');
  });
  void exited.then(offExit);
  return { child, stderrTail: () => stderr, exited, hasExited: () => exitedFlag };
}

/** Waits for the exit at most `ms`, then kills with SIGKILL and waits for that. */
export async function exitWithin(proc: NamespacedProcess, ms: number): Promise<number | string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const first = await Promise.race([proc.exited, late]);
  clearTimeout(timer);
  if (first !== 'late') return first;
  proc.child.kill('SIGKILL');
  return proc.exited;
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

export class AgentProcess {
  readonly config: AgentConfig;
  readonly namespace: string;
  readonly #proc: NamespacedProcess;
  readonly #pending = new Map<number, Pending>();
  readonly #ready: Promise<{ pid: number; peerKey: string }>;
  #nextId = 1;
  #failure: string | undefined;

  private constructor(namespace: string, config: AgentConfig) {
    this.config = config;
    this.namespace = namespace;
    this.#proc = spawnInNamespace(namespace, [NODE, AGENT, JSON.stringify(config)]);
    let ready!: (value: { pid: number; peerKey: string }) => void;
    let notReady!: (error: Error) => void;
    this.#ready = new Promise((resolve, reject) => {
      ready = resolve;
      notReady = reject;
    });
    this.#ready.catch(() => {});
    onLines(this.#proc.child.stdout, (line) => {
      let reply;
      try {
        reply = parseReply(line);
      } catch {
        return; // Not ours (a stray line); the stderr tail shows what went wrong, if anything did.
      }
      if (reply.type === 'ready') ready({ pid: reply.pid, peerKey: reply.peerKey });
      else if (reply.type === 'fatal') {
        this.#failure = reply.error;
        notReady(this.#error(`agent ${config.name} failed: ${reply.error}`));
      } else {
        const pending = this.#pending.get(reply.id);
        if (pending === undefined) return;
        this.#pending.delete(reply.id);
        clearTimeout(pending.timer);
        if (reply.ok) pending.resolve(reply.result);
        else pending.reject(this.#error(`agent ${config.name}: ${reply.error}`));
      }
    });
    void this.#proc.exited.then((code) => {
      const error = this.#error(`agent ${config.name} exited (${code})${this.#failure === undefined ? '' : `: ${this.#failure}`}`);
      notReady(error);
      for (const [id, pending] of this.#pending) {
        clearTimeout(pending.timer);
        this.#pending.delete(id);
        pending.reject(error);
      }
    });
  }

  /** Spawns the agent in `namespace` and waits (bounded) until its store is open. */
  static async spawn(namespace: string, config: AgentConfig, timeoutMs = CALL_TIMEOUT_MS): Promise<AgentProcess> {
    const agent = new AgentProcess(namespace, config);
    await agent.ready(timeoutMs);
    return agent;
  }

  /** Spawns without waiting: for timing a start from the spawn itself. */
  static spawnNow(namespace: string, config: AgentConfig): AgentProcess {
    return new AgentProcess(namespace, config);
  }

  get name(): string {
    return this.config.name;
  }

  /** Resolves with the agent's pid and peer key once its store is open; fails after `timeoutMs`. */
  async ready(timeoutMs = CALL_TIMEOUT_MS): Promise<{ pid: number; peerKey: string }> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.#error(`agent ${this.config.name} not ready within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.#ready, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends one command; its reply's result, or an error naming the agent (bounded by `timeoutMs`). */
  call<K extends AgentCommandType>(type: K, params: AgentCalls[K]['params'], timeoutMs = CALL_TIMEOUT_MS): Promise<AgentCalls[K]['result']> {
    if (this.#proc.hasExited()) return Promise.reject(this.#error(`agent ${this.config.name} has exited; cannot ${type}`));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(this.#error(`agent ${this.config.name}: no reply to ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.#proc.child.stdin.write(jsonLine({ id, type, params }));
    });
  }

  /** Waits until `dql` returns `count` rows (bounded in the agent and here). */
  waitRows(dql: string, count: number, timeoutMs: number, args?: Record<string, unknown>): Promise<unknown[]> {
    return this.call('waitRows', { dql, count, timeoutMs, ...(args === undefined ? {} : { args }) }, timeoutMs + 5_000).then((r) => r.items);
  }

  /** Every log entry after `since` (default: all kept). */
  async logs(since = 0): Promise<LogEntry[]> {
    return (await this.call('logs', { since })).entries;
  }

  /** Stops the peer and waits for the process to exit; kills it when it does not in time. Safe to call twice. */
  async stop(): Promise<void> {
    if (!this.#proc.hasExited()) {
      await this.call('stop', {}, STOP_TIMEOUT_MS).catch(() => {});
      this.#proc.child.stdin.end();
    }
    await exitWithin(this.#proc, STOP_TIMEOUT_MS);
  }

  /** Kills it at once (SIGKILL), as a crash would. */
  async kill(): Promise<void> {
    this.#proc.child.kill('SIGKILL');
    await this.#proc.exited;
  }

  #error(message: string): Error {
    const tail = this.#proc.stderrTail().trim();
    return new Error(tail === '' ? message : `${message}\n--- stderr of agent ${this.config.name} ---\n${tail.slice(-4_000)}`);
  }
}
