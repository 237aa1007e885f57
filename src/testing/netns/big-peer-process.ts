/**
 * A Big Peer (`bin/syncmesh.js big-peer`, in memory) running inside a namespace of a test network,
 * listening on an address there. A small shell stands between: it passes the Big Peer's pid up,
 * and when its own stdin closes (the test ended, or crashed) it stops the Big Peer, so that no
 * Big Peer outlives its test. Each Big Peer started in memory has its own issuer key.
 */
import { NODE, PROJECT_DIR, exitWithin, spawnInNamespace, type NamespacedProcess } from './agent-process.ts';
import { onLines } from '../../shared/json-lines.ts';

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 8_000;

/**
 * `$@` is the Big Peer's command line. Its stdin is /dev/null; the shell reads its own stdin to
 * the end, then stops the Big Peer (SIGTERM: the graceful shutdown) and waits for it.
 */
const WATCHDOG = '"$@" </dev/null & child=$!; echo "big-peer-pid $child"; cat >/dev/null; kill -TERM "$child" 2>/dev/null; wait "$child"';

export interface BigPeerProcessOptions {
  readonly namespace: string;
  readonly host: string;
  readonly port: number;
  readonly appID: string;
  readonly playgroundToken: string;
}

export class BigPeerProcess {
  /** `http://host:port`, the small peers' `bigPeerURL`. */
  readonly url: string;
  readonly #proc: NamespacedProcess;
  readonly #pid: number;

  private constructor(url: string, proc: NamespacedProcess, pid: number) {
    this.url = url;
    this.#proc = proc;
    this.#pid = pid;
  }

  /** Starts it and waits (bounded) until it serves. */
  static async start(options: BigPeerProcessOptions): Promise<BigPeerProcess> {
    const argv = [
      ...[NODE, `${PROJECT_DIR}bin/syncmesh.js`, 'big-peer'],
      ...['--app-id', options.appID, '--playground-token', options.playgroundToken],
      ...['--host', options.host, '--port', String(options.port), '--log-level', 'WARN'],
    ];
    const proc = spawnInNamespace(options.namespace, ['/bin/sh', '-c', WATCHDOG, 'sh', ...argv]);
    const url = `http://${options.host}:${options.port}`;
    let pid: number | undefined;
    let serving = false;
    const started = new Promise<void>((resolve, reject) => {
      onLines(proc.child.stdout, (line) => {
        const match = /^big-peer-pid (\d+)$/.exec(line);
        if (match !== null) pid = Number(match[1]);
        if (line.includes(`HTTP API:  ${url}`)) serving = true;
        if (serving && pid !== undefined) resolve();
      });
      void proc.exited.then((code) => reject(new Error(`the Big Peer exited (${code}) before serving ${url}\n${proc.stderrTail()}`)));
      setTimeout(() => reject(new Error(`the Big Peer did not serve ${url} within ${START_TIMEOUT_MS} ms\n${proc.stderrTail()}`)), START_TIMEOUT_MS).unref();
    });
    try {
      await started;
    } catch (error) {
      proc.child.stdin.end();
      await exitWithin(proc, STOP_TIMEOUT_MS);
      throw error;
    }
    return new BigPeerProcess(url, proc, pid as number);
  }

  /** Kills the Big Peer at once (SIGKILL), as a crash or a pulled plug would: its peers find it unreachable. */
  kill(): void {
    try {
      process.kill(this.#pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  /** Stops it (SIGTERM through the shell) and waits; kills both when they do not end in time. Safe to call twice. */
  async stop(): Promise<void> {
    this.#proc.child.stdin.end();
    const code = await exitWithin(this.#proc, STOP_TIMEOUT_MS);
    if (code === 'SIGKILL') this.kill();
  }
}
