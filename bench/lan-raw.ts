/**
 * Drives a `lan-raw-child.ts` process inside a namespace: JSON lines out to it, and its lines
 * back, kept in arrival order so that a wait for a line that already came returns it at once.
 * Every wait is bounded.
 */
import { NODE, PROJECT_DIR, exitWithin, spawnInNamespace, type NamespacedProcess } from '../src/testing/netns/agent-process.ts';
import { jsonLine, onLines } from '../src/shared/json-lines.ts';

const CHILD = `${PROJECT_DIR}bench/lan-raw-child.ts`;

export interface RawMessage {
  readonly type: string;
  readonly [key: string]: unknown;
}

export class RawChild {
  readonly #proc: NamespacedProcess;
  readonly #arrived: RawMessage[] = [];
  #waiting: (() => void) | undefined;

  constructor(namespace: string, config: object) {
    this.#proc = spawnInNamespace(namespace, [NODE, CHILD, JSON.stringify(config)]);
    onLines(this.#proc.child.stdout, (line) => {
      try {
        this.#arrived.push(JSON.parse(line) as RawMessage);
      } catch {
        return;
      }
      this.#waiting?.();
    });
    void this.#proc.exited.then(() => this.#waiting?.());
  }

  send(message: object): void {
    this.#proc.child.stdin.write(jsonLine(message));
  }

  /** The first line of `type` not yet taken (earlier lines of other types are dropped); fails after `timeoutMs` or if the child exits first. */
  async next(type: string, timeoutMs: number): Promise<RawMessage> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const index = this.#arrived.findIndex((m) => m.type === type);
      if (index >= 0) return this.#arrived.splice(0, index + 1)[index] as RawMessage;
      const error = this.#arrived.find((m) => m.type === 'error');
      if (error !== undefined) throw new Error(`the raw child failed: ${String(error.error)}`);
      if (this.#proc.hasExited()) throw new Error(`the raw child exited before sending ${type}\n${this.#proc.stderrTail()}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`the raw child sent no ${type} within ${timeoutMs} ms\n${this.#proc.stderrTail()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#waiting = undefined;
    }
  }

  /** Closes its stdin (it exits), killing it if it does not within `ms`. */
  async stop(ms = 5_000): Promise<void> {
    this.#proc.child.stdin.end();
    await exitWithin(this.#proc, ms);
  }
}
