/**
 * `syncmesh inspect`: the browser mode of the mesh inspector. It runs a headless peer (as
 * `syncmesh peer` does, or as the desktop app does for a user-data folder) and serves the built
 * renderer on 127.0.0.1 with the inspector contract over a WebSocket, behind a random token in
 * the one URL it prints on standard output. Log lines go to standard error. It runs until SIGINT
 * or SIGTERM, then closes the server, the peer and any local Big Peer, and exits 0.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorValue } from '../shared/error-codes.ts';
import type { LogLevel } from '../shared/log.ts';
import { LogHub, defaultRendererDir, serveInspector, toErrorValue, type EvictionOptions, type LanOptions, type ServedInspector } from '../peer/host.ts';
import { startAppPeer, userDataPlan, type AppPeer, type AppPeerPlan } from '../big-peer/index.ts';
import { errorLine, untilSignal, write, type CliIo } from './io.ts';
import {
  EVICT_USAGE,
  LAN_USAGE,
  PEER_OPTIONS,
  DEVICE_NAME_USAGE,
  deviceNameOption,
  UsageError,
  evictionOption,
  lanOption,
  logLevelOption,
  parseCommandLine,
  bigPeerLoginOptions,
  AUTH_USAGE,
} from './peer-options.ts';

/** The one line on standard output; tests and scripts parse it. */
export const URL_LINE_PREFIX = 'SyncMesh inspector: ';

export const INSPECT_USAGE = `Usage:
  syncmesh inspect [--store DIR] [--app-id ID --playground-token T --big-peer URL] [options]
  syncmesh inspect [--store DIR] --app-id ID --auth-provider NAME --auth-token TOKEN --big-peer URL [options]
  syncmesh inspect --local-big-peer DIR [--store DIR] [options]
  syncmesh inspect --user-data DIR [options]

Runs a headless peer and serves the mesh inspector to a browser on 127.0.0.1. It prints one line
on standard output, the page's URL with its secret token:
  ${URL_LINE_PREFIX}http://127.0.0.1:<port>/<token>/
Without the token nothing is served. Log lines go to standard error. It runs until SIGINT or
SIGTERM (Ctrl-C), then stops the peer (and the local Big Peer) and exits 0.

Which peer:
  --store DIR               the peer's persistence directory (created if missing); without it the
                            store is in memory and is lost on exit
  --app-id ID, --playground-token T, --big-peer URL
                            log in to that Big Peer and sync, as syncmesh peer; all three or none
                            (none, and no --local-big-peer: the peer stays offline)
${AUTH_USAGE}
  --local-big-peer DIR      start a Big Peer on 127.0.0.1 with its data and a generated app id and
                            playground token kept in DIR, and sync with it, as npm start does
  --user-data DIR           what the desktop app runs for its user-data folder DIR: the Big Peer
                            of DIR/settings.json, or else the local Big Peer in DIR/local-big-peer;
                            the store is DIR/peer (not with the options above)

Options:
  --subscribe STATEMENT     a SELECT whose documents this peer syncs (repeatable)
  --log-level L             ERROR, WARN, INFO (default), DEBUG or VERBOSE; log lines go to standard error
  --port N                  the port on 127.0.0.1 (default: a free one)
  --read-only               refuse every change through the page: statements other than SELECT and
                            EXPLAIN, holds, sync start/stop, subscriptions, eviction runs, preferences
  --result-limit SIZE       how much of one SELECT result the inspector keeps per page session,
                            as bytes of its rows' JSON: 64MiB (default), 512KiB, 1000000; a larger
                            result shows one window of it at a time (Previous rows, Next rows)
${DEVICE_NAME_USAGE}
${LAN_USAGE}
${EVICT_USAGE}
                            (with --user-data, settings.json's "eviction" applies unless --evict is given)
  -h, --help                this text

The page is the renderer built into out/renderer (npm run build); SYNCMESH_RENDERER_DIR names
another build. When it is missing, inspect says so and exits 1.
`;

const INSPECT_OPTIONS = {
  ...PEER_OPTIONS,
  port: { type: 'string' },
  'result-limit': { type: 'string' },
  'local-big-peer': { type: 'string' },
  'user-data': { type: 'string' },
  'read-only': { type: 'boolean', default: false },
} as const;

interface InspectOptions {
  /** Undefined for --user-data, whose plan is read once the command line is known good. */
  readonly plan: AppPeerPlan | undefined;
  readonly userData: string | undefined;
  readonly subscribe: readonly string[];
  readonly logLevel: LogLevel;
  readonly port: number;
  readonly readOnly: boolean;
  /** `--result-limit`: bytes of one result a session keeps; undefined for the default. */
  readonly resultBytes: number | undefined;
  readonly lan: LanOptions | undefined;
  readonly eviction: EvictionOptions | undefined;
  readonly deviceName: string | undefined;
}

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, B: 1, KIB: 1024, MIB: 1024 * 1024, GIB: 1024 * 1024 * 1024 };

/** `--result-limit`: a whole number of bytes, KiB, MiB or GiB, from 1 KiB to 4 GiB. */
export function resultLimitOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d{1,10})\s*([KMG]iB|B)?$/i.exec(text.trim());
  const bytes = m === null ? Number.NaN : Number(m[1]) * (SIZE_UNITS[(m[2] ?? '').toUpperCase()] ?? Number.NaN);
  if (!Number.isSafeInteger(bytes) || bytes < 1024 || bytes > 4 * 1024 ** 3)
    throw new UsageError(`--result-limit takes a size from 1KiB to 4GiB, like 64MiB, 512KiB or 1000000 (bytes), not ${text}`);
  return bytes;
}

/** The options, or undefined when the command line asks for the help text. */
function parse(argv: readonly string[]): InspectOptions | undefined {
  const { values, positionals } = parseCommandLine(argv, INSPECT_OPTIONS);
  if (values.help) return undefined;
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const logLevel = logLevelOption(values['log-level']);
  const portText = values.port ?? '0';
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : -1;
  if (port < 0 || port > 65_535) throw new UsageError(`--port takes a port number from 0 to 65535, not ${portText}`);
  const resultBytes = resultLimitOption(values['result-limit']);
  const base = {
    subscribe: values.subscribe ?? [],
    logLevel,
    port,
    readOnly: values['read-only'],
    resultBytes,
    lan: lanOption(values),
    eviction: evictionOption(values),
    deviceName: deviceNameOption(values['device-name']),
  };
  const login = bigPeerLoginOptions(values, 'optional');
  const localDir = values['local-big-peer'];
  const userData = values['user-data'];
  if (userData !== undefined) {
    if (userData === '') throw new UsageError('--user-data takes a directory');
    const other = ['store', 'app-id', 'playground-token', 'big-peer', 'local-big-peer'].find((flag) => values[flag as keyof typeof values] !== undefined);
    if (other !== undefined) throw new UsageError(`--user-data DIR cannot be combined with --${other}: the folder decides the store and the Big Peer`);
    return { ...base, plan: undefined, userData };
  }
  if (localDir === '') throw new UsageError('--local-big-peer takes a directory');
  if (localDir !== undefined && login !== undefined)
    throw new UsageError('--local-big-peer cannot be combined with --big-peer: the peer syncs with one Big Peer');
  if (values.store === '') throw new UsageError('--store takes a directory');
  return {
    ...base,
    userData: undefined,
    plan: {
      store: values.store,
      link:
        login !== undefined
          ? login.provider === undefined
            ? { kind: 'remote', url: login.bigPeerURL, appID: login.appID, playgroundToken: login.token }
            : { kind: 'remote', url: login.bigPeerURL, appID: login.appID, provider: login.provider, token: login.token }
          : localDir !== undefined
            ? { kind: 'local', directory: localDir }
            : { kind: 'offline' },
    },
  };
}

function describe(plan: AppPeerPlan, peer: AppPeer): string {
  const store = plan.store === undefined ? 'an in-memory store (lost on exit)' : `the store in ${plan.store}`;
  if (peer.localBigPeer !== undefined)
    return `${store}, syncing with the local Big Peer at ${peer.localBigPeer.url} (app ${peer.localBigPeer.appID}, data in ${peer.localBigPeer.directory})`;
  if (peer.bigPeerUrl !== undefined) return `${store}, syncing with the Big Peer at ${peer.bigPeerUrl}`;
  return `${store}, offline (no Big Peer)`;
}

/** Serves the inspector until `stop` resolves; resolves to the exit status. */
export async function serveInspect(argv: readonly string[], io: CliIo, stop: Promise<unknown>): Promise<number> {
  let options: InspectOptions | undefined;
  try {
    options = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    await write(io.stderr, `${errorLine({ code: 'cli/usage', message: error.message })}\n${INSPECT_USAGE}`);
    return 2;
  }
  if (options === undefined) {
    await write(io.stdout, INSPECT_USAGE);
    return 0;
  }
  const fail = async (error: ErrorValue): Promise<number> => {
    await write(io.stderr, errorLine(error));
    return 1;
  };

  const rendererDir = defaultRendererDir();
  if (!existsSync(join(rendererDir, 'index.html'))) {
    return fail({
      code: 'cli/usage',
      message: `the inspector page is not built (${join(rendererDir, 'index.html')} is missing): run npm run build first, or npm start, which builds it`,
    });
  }

  let plan: AppPeerPlan;
  try {
    plan = options.plan ?? userDataPlan(options.userData as string);
  } catch (error) {
    return fail(toErrorValue(error));
  }
  const logHub = new LogHub({ minimumLogLevel: options.logLevel, console: (line) => io.stderr.write(`${line}\n`) });
  let peer: AppPeer | undefined;
  let server: ServedInspector | undefined;
  const closeAll = async (): Promise<void> => {
    await server?.close();
    await peer?.close();
    logHub.close();
  };
  try {
    peer = await startAppPeer({
      ...plan,
      logHub,
      subscriptions: options.subscribe,
      ...(options.lan === undefined ? {} : { lan: options.lan }),
      ...(options.eviction === undefined ? {} : { eviction: options.eviction }),
      ...(options.deviceName === undefined ? {} : { deviceName: options.deviceName }),
    });
    server = await serveInspector(peer.sync, {
      rendererDir,
      port: options.port,
      readOnly: options.readOnly,
      ...(options.resultBytes === undefined ? {} : { inspector: { resultLimits: { bytesPerSession: options.resultBytes } } }),
    });
  } catch (error) {
    await closeAll();
    const value = toErrorValue(error);
    const inUse = (error as { code?: string }).code === 'EADDRINUSE';
    return fail(inUse ? { code: 'cli/usage', message: `cannot listen on 127.0.0.1:${options.port}: the port is in use` } : value);
  }
  await write(io.stderr, `Inspecting ${describe(plan, peer)}. Stop with Ctrl-C.\n`);
  // A failed login leaves the peer running offline: the inspector shows why and can retry.
  void peer.started.then((error) => {
    if (error !== undefined) io.stderr.write(errorLine({ ...error, message: `sync did not start: ${error.message}` }));
  });
  await write(io.stdout, `${URL_LINE_PREFIX}${server.url}\n`);
  await stop;
  await closeAll();
  return 0;
}

/** The `inspect` command: serves until SIGINT or SIGTERM. */
export async function inspectCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return untilSignal((stop) => serveInspect(argv, io, stop));
}
