/**
 * `syncmesh scenario evict-loop`: the evict/re-sync loop shown end to end (issue 8). It starts a
 * Big Peer (embedded SQLite, WebSocket on 127.0.0.1) and a small peer (SQLite, playground login)
 * in a directory of its own, and runs `runEvictLoopScenario` between them: N documents, K
 * eviction cycles the wrong way, then K the right way. Standard output carries the header, one
 * line per cycle and the verdict; the peers' log lines (the loop's WARN lines among them) go to
 * standard error. See docs/evict-loop.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ErrorValue } from '../shared/error-codes.ts';
import type { LogLevel } from '../shared/log.ts';
import {
  EVICT_LOOP_COLLECTION,
  EVICT_LOOP_MAX_CYCLES,
  EVICT_LOOP_MAX_DOCS,
  EVICT_LOOP_SETTLE_MS,
  LogHub,
  formatCycleLine,
  runEvictLoopScenario,
  toErrorValue,
  type EvictLoopReport,
} from '../peer/host.ts';
import { startAppPeer, type AppPeer } from '../big-peer/index.ts';
import { errorLine, untilSignal, write, type CliIo } from './io.ts';
import { UsageError, logLevelOption, parseCommandLine } from './peer-options.ts';

export const SCENARIO_USAGE = `Usage:
  syncmesh scenario evict-loop [--docs N] [--cycles K] [--dir DIR] [--settle-ms MS] [--log-level L]

evict-loop starts a Big Peer (embedded SQLite, WebSocket on 127.0.0.1) and a small peer (SQLite,
playground login) and shows the evict/re-sync loop between them (spec 3.1, 3.2). The small peer
writes N documents in ${EVICT_LOOP_COLLECTION}, createdAt spread over the last K+1 days, subscribes
to SELECT * FROM ${EVICT_LOOP_COLLECTION}, and waits until the Big Peer holds them all. Then:
  the wrong way, K cycles: EVICT the oldest 1, 2, … K days with that subscription left in place;
    replication brings the evicted documents straight back;
  the right way, K cycles: the local eviction strategy's cycle (cancel the overlapping
    subscription, EVICT createdAt <= ttl, subscribe to createdAt > ttl); nothing comes back.
It prints one line per cycle (documents evicted and re-synced, store size on disk, process
memory, replication bytes received, time) and a verdict line last. Log lines, the peer's
eviction.overlap and eviction.resynced warnings among them, go to standard error.

Exit status: 0 when the wrong way reproduced the loop and the right way re-synced nothing; 1
otherwise, or when the peers could not start; 2 for a bad command line.

Options:
  --docs N          documents written, 1 to ${EVICT_LOOP_MAX_DOCS} (default 1000)
  --cycles K        eviction cycles each way, 1 to ${EVICT_LOOP_MAX_CYCLES} (default 3)
  --dir DIR         keep both peers' data in DIR (created if missing; a later run reuses it);
                    default: a temporary directory, removed at the end
  --settle-ms MS    after each EVICT, wait until replication has been quiet this long before
                    counting (default ${EVICT_LOOP_SETTLE_MS}; the wrong way stops waiting once every document is back)
  --log-level L     ERROR, WARN (default), INFO, DEBUG or VERBOSE; log lines go to standard error
  -h, --help        this text
`;

const OPTIONS = {
  docs: { type: 'string' },
  cycles: { type: 'string' },
  dir: { type: 'string' },
  'settle-ms': { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** How long the small peer may take to open its session with the Big Peer. */
const SESSION_WAIT_MS = 20_000;

interface EvictLoopArgs {
  readonly docs: number;
  readonly cycles: number;
  readonly dir: string | undefined;
  readonly settleMs: number;
  readonly logLevel: LogLevel;
}

function wholeNumber(value: string | undefined, flag: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, not ${value}`);
  return n;
}

/** The options, or undefined when the command line asks for the help text. */
function parse(argv: readonly string[]): EvictLoopArgs | undefined {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) return undefined;
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError('name a scenario: evict-loop');
  if (name !== 'evict-loop') throw new UsageError(`unknown scenario ${name}: the one scenario is evict-loop`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  if (values.dir === '') throw new UsageError('--dir takes a directory');
  return {
    docs: wholeNumber(values.docs, '--docs', 1000, 1, EVICT_LOOP_MAX_DOCS),
    cycles: wholeNumber(values.cycles, '--cycles', 3, 1, EVICT_LOOP_MAX_CYCLES),
    dir: values.dir,
    settleMs: wholeNumber(values['settle-ms'], '--settle-ms', EVICT_LOOP_SETTLE_MS, 0, 60_000),
    logLevel: logLevelOption(values['log-level'] ?? 'WARN'),
  };
}

/** Waits, at most SESSION_WAIT_MS, until the peer has a session with the Big Peer. */
async function untilConnected(peer: AppPeer, stop: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + SESSION_WAIT_MS;
  while (!peer.sync.sessions.some((s) => s.remote.role === 'big-peer')) {
    if (Date.now() > deadline || stop.aborted) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

/** Runs the scenario until it ends or `stop` resolves; resolves to the exit status. */
export async function runScenario(argv: readonly string[], io: CliIo, stop: Promise<unknown>): Promise<number> {
  let args: EvictLoopArgs | undefined;
  try {
    args = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    await write(io.stderr, `${errorLine({ code: 'cli/usage', message: error.message })}\n${SCENARIO_USAGE}`);
    return 2;
  }
  if (args === undefined) {
    await write(io.stdout, SCENARIO_USAGE);
    return 0;
  }

  const fail = async (error: ErrorValue): Promise<number> => {
    await write(io.stderr, errorLine(error));
    return 1;
  };
  const aborter = new AbortController();
  void stop.then(() => aborter.abort(new Error('stopped by a signal')));
  const console = (line: string): void => void io.stderr.write(`${line}\n`);
  const logHub = new LogHub({ minimumLogLevel: args.logLevel, console });
  const bigPeerLogHub = new LogHub({ minimumLogLevel: 'ERROR', console });
  let dir: string;
  try {
    dir = args.dir ?? mkdtempSync(join(tmpdir(), 'syncmesh-evict-loop-'));
  } catch (error) {
    return fail({ code: 'store/io', message: `cannot make a temporary directory: ${(error as Error).message}` });
  }
  let peer: AppPeer | undefined;
  try {
    peer = await startAppPeer({ store: join(dir, 'peer'), link: { kind: 'local', directory: join(dir, 'big-peer') }, logHub, bigPeerLogHub });
    const started = await peer.started;
    if (started !== undefined) return await fail({ ...started, message: `the small peer did not start syncing: ${started.message}` });
    if (!(await untilConnected(peer, aborter.signal))) {
      if (aborter.signal.aborted) return 1;
      return await fail({ code: 'scenario/not-connected', message: `the small peer had no session with the Big Peer after ${SESSION_WAIT_MS / 1000} s` });
    }
    const where = args.dir === undefined ? `${dir} (temporary, removed at the end)` : dir;
    await write(
      io.stdout,
      `evict-loop: a Big Peer at ${peer.bigPeerUrl ?? '?'} and a small peer, both on SQLite in ${where}\n` +
        `evict-loop: ${args.docs} documents in ${EVICT_LOOP_COLLECTION}, ${args.cycles} eviction cycles the wrong way (SELECT * FROM ${EVICT_LOOP_COLLECTION} left subscribed), ` +
        `then ${args.cycles} the right way (spec 3.2)\n`,
    );
    let report: EvictLoopReport;
    try {
      report = await runEvictLoopScenario({
        sync: peer.sync,
        docs: args.docs,
        cycles: args.cycles,
        settleMs: args.settleMs,
        signal: aborter.signal,
        onCycle: (row) => void io.stdout.write(`${formatCycleLine(row)}\n`),
      });
    } catch (error) {
      if (aborter.signal.aborted) {
        await write(io.stderr, 'evict-loop: stopped before the end\n');
        return 1;
      }
      return await fail(toErrorValue(error));
    }
    await write(io.stdout, `${report.verdict}\n`);
    return report.loopDetected && report.rightWayClean ? 0 : 1;
  } catch (error) {
    return await fail(toErrorValue(error));
  } finally {
    await peer?.close();
    logHub.close();
    bigPeerLogHub.close();
    if (args.dir === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** The `scenario` command: runs to its end, or until SIGINT or SIGTERM. */
export async function scenarioCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return untilSignal((stop) => runScenario(argv, io, stop));
}
