/**
 * `syncmesh peer`: a headless small peer. It opens a store directory, logs in to a Big Peer with
 * a playground token, registers sync subscriptions and syncs, while it runs DQL read from
 * standard input against the live store, one statement at a time, answering each with one JSON
 * line. At the end of its input it waits, at most `--drain-timeout`, until the Big Peer has
 * acknowledged every commit of the store, then stops; on SIGINT or SIGTERM it stops at once.
 *
 * Standard output carries only the answers, so that a program can drive the peer through a pipe;
 * log lines and the errors that stop the peer go to standard error.
 */
import type { ErrorValue } from '../shared/error-codes.ts';
import { MAX_LINE_BYTES } from '../shared/json-lines.ts';
import type { LogLevel } from '../shared/log.ts';
import { LogHub, Sync, onlinePlayground, toErrorValue, type EvictionOptions, type LanOptions } from '../peer/host.ts';
import { providerIdentity } from '../big-peer/index.ts';
import { DEFAULT_DRAIN_TIMEOUT_MS, drainTimeoutError, drainTimeoutOption, drainUploads } from './drain.ts';
import { formatDuration } from './duration.ts';
import { errorLine, resultLine, untilSignal, write, type CliIo } from './io.ts';
import { LineReader, lineTooLongError } from './line-reader.ts';
import {
  EVICT_USAGE,
  LAN_USAGE,
  PEER_OPTIONS,
  deviceNameOption,
  UsageError,
  evictionOption,
  lanOption,
  logLevelOption,
  parseCommandLine,
  bigPeerLoginOptions,
  AUTH_USAGE,
  requiredOption,
  type BigPeerLogin,
} from './peer-options.ts';

export const PEER_USAGE = `Usage:
  syncmesh peer --store DIR --app-id ID --playground-token T --big-peer URL
  syncmesh peer --store DIR --app-id ID --auth-provider NAME --auth-token TOKEN --big-peer URL
                [--subscribe STATEMENT]… [--lan [--lan-listen HOST:PORT] [--lan-interface IP]]
                [--evict STRATEGY]… [--evict-window HH:MM-HH:MM] [--drain-timeout DURATION]
                [--device-name NAME] [--log-level LEVEL]

Runs a small peer on the store in DIR (created if missing): logs in to the Big Peer at URL with
the playground token, registers each --subscribe statement, and syncs. Meanwhile it reads one DQL
statement per line from standard input, optionally followed by a TAB and a JSON object of named
arguments, runs them one at a time in order, and answers each with one line on standard output:
  {"items":[…],"mutatedDocumentIds":[…],"commitId":n|null}
or {"error":{"code":"…","message":"…"}}; the peer keeps running either way. Blank lines are skipped.
A statement cannot contain a TAB: the first TAB starts the arguments. A line ends at LF or CRLF
only; one over ${MAX_LINE_BYTES / 1024 / 1024} MiB is answered with a cli/invalid-line error.

At the end of its input it waits, at most --drain-timeout, until the Big Peer has acknowledged
every commit of the store, then stops sync, closes the store and exits 0. If the Big Peer has not
acknowledged them all by then, it stops all the same, prints {"error":{"code":"cli/drain-timeout",…}}
(how many commits, which txn_ids, since when) on standard error and exits 1; they stay in DIR and
go up with the next session. SIGINT or SIGTERM stop it at once, without waiting, and it exits 0.
When the store cannot be opened, a subscription is refused or the login fails (auth/failed,
auth/unreachable), it prints {"error":{…}} on standard error and exits 1.

Options:
  --store DIR               the store's persistence directory (required)
  --app-id ID               the app to sync (required)
  --playground-token T      the Big Peer's playground token (required, unless …)
${AUTH_USAGE}
  --big-peer URL            the Big Peer's base URL, http or https (required)
  --subscribe STATEMENT     a SELECT whose documents this peer syncs (repeatable)
  --drain-timeout DURATION  how long to wait at the end of the input for the Big Peer to acknowledge
                            every commit: 500ms, 10s, 2m, … (default ${formatDuration(DEFAULT_DRAIN_TIMEOUT_MS)}; 0: do not wait)
  --log-level L             ERROR, WARN, INFO (default), DEBUG or VERBOSE; log lines go to standard error
  --device-name NAME        write this peer's presence document under NAME, so that other peers show
                            it by name (default: no presence document, so the commit ids answered
                            are those of the input alone)
${LAN_USAGE}
${EVICT_USAGE}
  -h, --help                this text

With --lan the peer goes on syncing with its LAN neighbours when the Big Peer is out of reach,
once it has logged in there once (its certificate is cached in DIR).
`;

/** The options of `peer`: the peer options, and the drain at the end of the input. */
const SERVE_PEER_OPTIONS = { ...PEER_OPTIONS, 'drain-timeout': { type: 'string' } } as const;

interface PeerOptions extends BigPeerLogin {
  readonly store: string;
  /** How long to wait at the end of the input for the Big Peer's acknowledgements; 0: not at all. */
  readonly drainTimeoutMs: number;
  readonly subscribe: readonly string[];
  readonly logLevel: LogLevel;
  readonly lan: LanOptions | undefined;
  readonly eviction: EvictionOptions | undefined;
  /** Set: the peer writes its presence document under this name; unset: it writes none. */
  readonly deviceName: string | undefined;
}

/** The options, or undefined when the command line asks for the help text. */
function parse(argv: readonly string[]): PeerOptions | undefined {
  const { values, positionals } = parseCommandLine(argv, SERVE_PEER_OPTIONS);
  if (values.help) return undefined;
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}: statements come on standard input`);
  const logLevel = logLevelOption(values['log-level']);
  const store = requiredOption(values.store, '--store DIR');
  const login = bigPeerLoginOptions(values, 'required') as BigPeerLogin;
  const drainTimeoutMs = drainTimeoutOption(values['drain-timeout']);
  const deviceName = deviceNameOption(values['device-name']);
  return { store, ...login, subscribe: values.subscribe ?? [], logLevel, lan: lanOption(values), eviction: evictionOption(values), drainTimeoutMs, deviceName };
}

/** The statement and arguments of one input line, or the error line that answers it. */
function readLine(line: string, number: number): { statement: string; args: Record<string, unknown> | undefined } | ErrorValue {
  const tab = line.indexOf('\t');
  const statement = tab === -1 ? line : line.slice(0, tab);
  const argsText = tab === -1 ? '' : line.slice(tab + 1);
  if (statement.trim() === '') return { code: 'cli/invalid-line', message: `line ${number} has arguments but no statement before its TAB` };
  if (argsText.trim() === '') return { statement, args: undefined };
  let args: unknown;
  try {
    args = JSON.parse(argsText);
  } catch (error) {
    return { code: 'cli/invalid-line', message: `line ${number}: the arguments after the TAB are not JSON: ${(error as Error).message}` };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { code: 'cli/invalid-line', message: `line ${number}: the arguments after the TAB must be a JSON object` };
  }
  return { statement, args: args as Record<string, unknown> };
}

const STOPPED = Symbol('stopped');

/**
 * Answers standard input line by line, one statement at a time, until its end or `stop`; says
 * which came. Exported for tests, which drive it on a store that does not sync.
 */
export async function answerLines(sync: Sync, io: CliIo, stop: Promise<unknown>): Promise<'end' | 'stopped'> {
  const lines = new LineReader(io.stdin);
  const stopped = stop.then((): typeof STOPPED => STOPPED);
  try {
    for (;;) {
      // `stopped` comes first: once stopped, buffered lines are left unanswered. A statement
      // already running is answered before the peer stops.
      const next = await Promise.race([stopped, lines.next()]);
      if (next === STOPPED) return 'stopped';
      if (next.done === true) return 'end';
      const line = next.value;
      if (line.kind === 'too-long') {
        await write(io.stdout, errorLine(lineTooLongError(line)));
        continue;
      }
      if (line.text.trim() === '') continue;
      const request = readLine(line.text, line.number);
      if ('code' in request) {
        await write(io.stdout, errorLine(request));
        continue;
      }
      try {
        await write(io.stdout, resultLine(await sync.store.execute(request.statement, request.args)));
      } catch (error) {
        await write(io.stdout, errorLine(toErrorValue(error)));
      }
    }
  } finally {
    lines.close();
  }
}

/** Runs the peer until its input ends or `stop` resolves; resolves to the exit status. */
export async function servePeer(argv: readonly string[], io: CliIo, stop: Promise<unknown>): Promise<number> {
  let options: PeerOptions | undefined;
  try {
    options = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    await write(io.stderr, `${errorLine({ code: 'cli/usage', message: error.message })}\n${PEER_USAGE}`);
    return 2;
  }
  if (options === undefined) {
    await write(io.stdout, PEER_USAGE);
    return 0;
  }

  const logHub = new LogHub({ minimumLogLevel: options.logLevel, console: (line) => io.stderr.write(`${line}\n`) });
  // The error is written last, after the shutdown sequence, so that it ends standard error.
  const fail = async (sync: Sync | undefined, error: ErrorValue): Promise<number> => {
    sync?.close();
    await write(io.stderr, errorLine(error));
    return 1;
  };
  let sync: Sync;
  try {
    sync = new Sync({
      persistenceDirectory: options.store,
      identity:
        options.provider === undefined
          ? onlinePlayground({ appID: options.appID, token: options.token, bigPeerURL: options.bigPeerURL })
          : providerIdentity({ appID: options.appID, url: options.bigPeerURL, provider: options.provider, token: options.token }),
      // The first login's failure is final here (the peer exits 1): no retry is announced.
      authRetryFirstLogin: false,
      logHub,
      ...(options.lan === undefined ? {} : { sync: { peerToPeer: { lan: options.lan } } }),
      ...(options.eviction === undefined ? {} : { eviction: options.eviction }),
      // Headless, the peer writes presence only when named: its input's commit ids stay 1, 2, …
      ...(options.deviceName === undefined ? {} : { presence: { deviceName: options.deviceName } }),
    });
  } catch (error) {
    return fail(undefined, toErrorValue(error));
  }
  // Registered before sync starts, so that the first session already asks for them.
  for (const statement of options.subscribe) {
    try {
      sync.store.registerSubscription(statement);
    } catch (error) {
      const value = toErrorValue(error);
      return fail(sync, { ...value, message: `--subscribe ${JSON.stringify(statement)}: ${value.message}` });
    }
  }

  const starting = sync.startSync().then(
    () => undefined,
    (error: unknown) => toErrorValue(error),
  );
  const started = await Promise.race([starting, stop.then((): typeof STOPPED => STOPPED)]);
  if (started === STOPPED) {
    // Stopped while logging in: closing ends the login; startSync then rejects with sync/closed.
    sync.close();
    return 0;
  }
  if (started !== undefined) return fail(sync, started);

  let ended: 'end' | 'stopped';
  try {
    ended = await answerLines(sync, io, stop);
  } catch (error) {
    await sync.stopSync();
    sync.close();
    throw error;
  }
  // At the end of the input, what it wrote goes up to the Big Peer before the peer stops; a
  // signal stops it at once, as before the input ended.
  if (ended === 'end' && options.drainTimeoutMs > 0) {
    const drained = await drainUploads(sync, options.drainTimeoutMs, stop);
    if (drained.kind === 'timed-out') {
      await sync.stopSync();
      return fail(sync, drainTimeoutError(drained.state, options.drainTimeoutMs, sync.timers.now()));
    }
  }
  await sync.stopSync();
  sync.close();
  return 0;
}

/** The `peer` command: runs until the end of standard input, SIGINT or SIGTERM. */
export async function peerCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return untilSignal((stop) => servePeer(argv, io, stop));
}
