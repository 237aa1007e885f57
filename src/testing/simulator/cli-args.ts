/**
 * The command line of `npm run simulate`: `--seed N [--runs K] [--peers 5] [--steps 20000]
 * [--until STEP] [--trace] [--storage mixed|memory|sqlite]`. Every number is bounded.
 */
import { parseArgs } from 'node:util';
import type { StorageChoice } from './setup.ts';
import { errorMessage } from '../../shared/error-message.ts';

export interface SimulateArgs {
  readonly seed: number;
  readonly runs: number;
  readonly peers: number;
  readonly steps: number;
  readonly until: number | undefined;
  readonly trace: boolean;
  readonly storage: StorageChoice;
}

export const USAGE = `usage: npm run simulate -- --seed N [--runs K] [--peers 5] [--steps 20000] [--until STEP] [--trace] [--storage mixed|memory|sqlite]
  --seed N      the run's seed (a whole number); with --runs K, seeds N to N+K-1
  --peers P     small peers besides the Big Peer (1-12, default 5)
  --steps S     steps per run (1-1000000, default 20000)
  --until STEP  stop after this step, then heal and check (to replay a failure found at STEP)
  --trace       print each step
  --storage     the peers' stores: SQLite and in-memory alternating (mixed, the default), or all one kind
Exit status: 0 when every invariant held, 1 when one was violated, 2 for a bad command line.`;

function whole(name: string, text: string | undefined, min: number, max: number, fallback?: number): number {
  if (text === undefined) {
    if (fallback === undefined) throw new Error(`--${name} is required`);
    return fallback;
  }
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max)
    throw new Error(`--${name} takes a whole number from ${min} to ${max}, not ${text}`);
  return value;
}

/** The parsed arguments, or an error message (with the usage) for a bad line. */
export function parseSimulateArgs(argv: readonly string[]): SimulateArgs | { readonly error: string } {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: {
        seed: { type: 'string' },
        runs: { type: 'string' },
        peers: { type: 'string' },
        steps: { type: 'string' },
        until: { type: 'string' },
        trace: { type: 'boolean' },
        storage: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    const storage = values.storage ?? 'mixed';
    if (storage !== 'mixed' && storage !== 'memory' && storage !== 'sqlite') throw new Error(`--storage takes mixed, memory or sqlite, not ${storage}`);
    return {
      seed: whole('seed', values.seed, 0, 2 ** 32 - 1),
      runs: whole('runs', values.runs, 1, 100_000, 1),
      peers: whole('peers', values.peers, 1, 12, 5),
      steps: whole('steps', values.steps, 1, 1_000_000, 20_000),
      until: values.until === undefined ? undefined : whole('until', values.until, 1, 1_000_000),
      trace: values.trace === true,
      storage,
    };
  } catch (error) {
    return { error: `${errorMessage(error)}\n${USAGE}` };
  }
}

/** The command that replays a run up to `step`, step by step. */
export function replayCommand(args: Pick<SimulateArgs, 'peers' | 'steps' | 'storage'>, seed: number, step: number): string {
  const storage = args.storage === 'mixed' ? '' : ` --storage ${args.storage}`;
  return `npm run simulate -- --seed ${seed} --peers ${args.peers} --steps ${args.steps}${storage} --until ${step} --trace`;
}
