/**
 * `syncmesh big-peer`: runs the Big Peer, and manages its API keys.
 *
 *   syncmesh big-peer [--config FILE] [--app-id ID] [--host H] [--port P] [--data DIR | --storage URL] …
 *   syncmesh big-peer keys create (--data DIR | --storage URL) [--name N] [--read-only] [--collections a,b]
 *   syncmesh big-peer keys list   (--data DIR | --storage URL)
 *   syncmesh big-peer keys revoke (--data DIR | --storage URL) ID
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LogHub, Sync, serveInspector, toErrorValue, type ServedInspector } from '../peer/host.ts';
import { ApiKeys, BigPeer, BigPeerSettings, collectionPermissions, loadConfig, parseStorageUrl, type BigPeerConfig } from '../big-peer/index.ts';
import { describeServer, openPgSync } from '../big-peer/postgres/index.ts';
import { jsonText } from '../shared/json-lines.ts';
import { parseDuration } from './duration.ts';
import { untilSignal, write, type CliIo } from './io.ts';

export const BIG_PEER_USAGE = `Usage:
  syncmesh big-peer [--config FILE] [options]      serve the Big Peer until SIGINT or SIGTERM (it drains)
  syncmesh big-peer keys create (--data DIR | --storage URL) [--name N] [--read-only] [--collections a,b]
  syncmesh big-peer keys list (--data DIR | --storage URL)
  syncmesh big-peer keys revoke (--data DIR | --storage URL) ID

Serving (flags win over the config file; see docs/http-api.md):
  --config FILE            a JSON configuration file
  --app-id ID              the app this Big Peer serves (required, here or in the file)
  --host HOST              the address to listen on (default 127.0.0.1)
  --port PORT              the port (default 8080; 0 picks a free one)
  --data DIR               the store's persistence directory (default: in memory, lost on exit)
  --storage URL            the store on PostgreSQL instead, shared by every node of the app:
                           postgres://user:password@host:port/database[?schema=NAME] (docs/deploy.md)
  --node-name NAME         this node's name in logs and in PostgreSQL (default host:pid)
  --device-name NAME       the name small peers show for this Big Peer: it writes its presence
                           document (default: none written)
  --playground-token T     enable playground logins with this token
  --api-key KEY            an API key accepted with every permission (repeatable)
  --tls-key FILE           serve https and wss with this private key (PEM) …
  --tls-cert FILE          … and this certificate (PEM)
  --log-level L            ERROR, WARN, INFO (default), DEBUG or VERBOSE; log lines go to standard error
  --statement-timeout D    the time budget of one store/execute statement, e.g. 10s (default), 500ms:
                           past it the answer is 408 query/timeout and a mutation is rolled back
  --tombstone-ttl-days N   days a deleted document's tombstone is kept before it is reaped (default
                           30); small peers away longer reconcile by ids when they come back
  --presence-expiry-days N days without a write after which a peer's presence document is removed
                           (default 30; 0: never): retired devices leave the mesh
  --inspect-port PORT      also serve the mesh inspector of this node on 127.0.0.1:PORT (0: a free
                           one) behind a random token; its URL is printed (docs/inspector.md)
  --inspect-read-only      the inspector refuses every change (recommended beyond development)

SIGINT or SIGTERM drains it (docs/operations.md): /_ready answers 503, and after drainDelayMs
(when something asks /_ready) it stops accepting, closes the sessions with 1001, lets requests
finish, and exits 0. A second signal cuts the drain short; a third ends the process at once.

Keys (the Big Peer on DIR must be stopped: it holds the store while it runs; on PostgreSQL the
nodes may run, and every node knows of a key made or revoked at once):
  create    make a key and print it once; --read-only: no writes; --collections a,b: only those
  list      print the keys as JSON: id, name, created, revoked, permissions (never the key)
  revoke    revoke the key with that id
`;

class UsageError extends Error {}

async function fail(io: CliIo, error: unknown): Promise<number> {
  if (error instanceof UsageError) {
    await write(io.stderr, `syncmesh big-peer: ${error.message}\n\n${BIG_PEER_USAGE}`);
    return 2;
  }
  const value = toErrorValue(error);
  await write(io.stderr, `syncmesh big-peer: ${value.message} (${value.code})\n`);
  return value.code === 'cli/usage' ? 2 : 1;
}

/** Runs node:util parseArgs, turning its errors into usage errors. */
function parse<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Runs the Big Peer until `stop` resolves, then drains it; `cutShort` resolving during the drain
 * ends it at once. Resolves to the exit status.
 */
export async function serveBigPeer(argv: readonly string[], io: CliIo, stop: Promise<unknown>, cutShort?: Promise<unknown>): Promise<number> {
  let config: BigPeerConfig;
  let inspect: InspectOption | undefined;
  try {
    const { values, positionals } = parse(() =>
      parseArgs({
        args: [...argv],
        allowPositionals: true,
        options: {
          config: { type: 'string' },
          'app-id': { type: 'string' },
          host: { type: 'string' },
          port: { type: 'string' },
          data: { type: 'string' },
          storage: { type: 'string' },
          'node-name': { type: 'string' },
          'device-name': { type: 'string' },
          'playground-token': { type: 'string' },
          'api-key': { type: 'string', multiple: true },
          'tls-key': { type: 'string' },
          'tls-cert': { type: 'string' },
          'log-level': { type: 'string' },
          'statement-timeout': { type: 'string' },
          'tombstone-ttl-days': { type: 'string' },
          'presence-expiry-days': { type: 'string' },
          'inspect-port': { type: 'string' },
          'inspect-read-only': { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
      }),
    );
    if (values.help === true) {
      await write(io.stdout, BIG_PEER_USAGE);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    inspect = inspectOption(values['inspect-port'], values['inspect-read-only'] === true);
    const statementTimeout = values['statement-timeout'];
    const statementTimeoutMs = statementTimeout === undefined ? undefined : parseDuration(statementTimeout);
    if (statementTimeout !== undefined && (statementTimeoutMs === undefined || statementTimeoutMs < 1)) {
      throw new UsageError(`--statement-timeout takes a duration such as 10s or 500ms, not ${statementTimeout}`);
    }
    config = loadConfig({
      config: values.config,
      appID: values['app-id'],
      host: values.host,
      port: values.port,
      data: values.data,
      storage: values.storage,
      nodeName: values['node-name'],
      deviceName: values['device-name'],
      playgroundToken: values['playground-token'],
      apiKeys: values['api-key'],
      tlsKey: values['tls-key'],
      tlsCert: values['tls-cert'],
      logLevel: values['log-level'],
      ...(statementTimeoutMs === undefined ? {} : { statementTimeoutMs: String(statementTimeoutMs) }),
      ...(values['tombstone-ttl-days'] === undefined ? {} : { tombstoneTtlDays: values['tombstone-ttl-days'] }),
      ...(values['presence-expiry-days'] === undefined ? {} : { presenceExpiryDays: values['presence-expiry-days'] }),
    });
  } catch (error) {
    return fail(io, error);
  }
  const logHub = new LogHub({ minimumLogLevel: config.logLevel, console: (line) => io.stderr.write(`${line}\n`) });
  let peer: BigPeer;
  // On PostgreSQL the store is opened here and handed over: the Big Peer module never loads pg.
  let sync: Sync | undefined;
  let inspector: ServedInspector | undefined;
  try {
    sync =
      config.postgres === undefined
        ? undefined
        : openPgSync(
            config.postgres,
            config.nodeName,
            logHub,
            undefined,
            undefined,
            config.deviceName === undefined ? undefined : { deviceName: config.deviceName },
          );
    peer = await BigPeer.start(config, { logHub, processMetrics: true, ...(sync === undefined ? {} : { sync }) });
  } catch (error) {
    sync?.close();
    return fail(io, error);
  }
  if (inspect !== undefined) {
    try {
      inspector = await serveInspector(peer.sync, { port: inspect.port, readOnly: inspect.readOnly });
    } catch (error) {
      await peer.drain('the inspector could not start');
      sync?.close();
      const inUse = (error as { code?: string }).code === 'EADDRINUSE';
      return fail(io, inUse ? new UsageError(`--inspect-port ${inspect.port}: the port is in use on 127.0.0.1`) : error);
    }
  }
  const where =
    config.postgres !== undefined
      ? ` on ${describeServer(config.postgres.url)} (schema ${config.postgres.schema})`
      : config.dataDir === undefined
        ? ' (in memory)'
        : ` on ${config.dataDir}`;
  await write(
    io.stdout,
    `Big Peer for app ${config.appID}${where}\n` +
      `  HTTP API:  ${peer.url}\n  WebSocket: ${peer.wsUrl}\n` +
      (inspector === undefined ? '' : `  Inspector: ${inspector.url}${inspector.readOnly ? ' (read-only)' : ''}\n`) +
      `Stop it with Ctrl-C or SIGTERM.\n`,
  );
  const reason = await stop;
  void cutShort?.then(() => peer.cutShort());
  await inspector?.close();
  await peer.drain(typeof reason === 'string' ? reason : 'asked');
  sync?.close();
  await write(io.stdout, `Big Peer stopped${typeof reason === 'string' ? ` (${reason})` : ''}\n`);
  logHub.close();
  return 0;
}

interface InspectOption {
  readonly port: number;
  readonly readOnly: boolean;
}

/** `--inspect-port PORT [--inspect-read-only]`, or undefined without a port. */
function inspectOption(port: string | undefined, readOnly: boolean): InspectOption | undefined {
  if (port === undefined) {
    if (readOnly) throw new UsageError('--inspect-read-only needs --inspect-port PORT');
    return undefined;
  }
  const value = /^\d{1,5}$/.test(port) ? Number(port) : -1;
  if (value < 0 || value > 65_535) throw new UsageError(`--inspect-port takes a port number from 0 to 65535, not ${port}`);
  return { port: value, readOnly };
}

/** The store the keys are kept in: --data DIR, --storage URL, or either from the config file. */
function keyStoreOf(values: { data?: string | undefined; storage?: string | undefined; config?: string | undefined }, logHub: LogHub): Sync {
  if (values.data !== undefined && values.data !== '' && values.storage !== undefined) throw new UsageError('give --data DIR or --storage URL, not both');
  if (values.storage !== undefined) return openPgSync(parseStorageUrl(values.storage, '--storage'), undefined, logHub);
  if (values.data !== undefined && values.data !== '') return new Sync({ persistenceDirectory: values.data, logHub });
  if (values.config !== undefined) {
    const file = JSON.parse(readFileSync(values.config, 'utf8')) as { data?: unknown; storage?: unknown };
    if (typeof file.storage === 'string') return openPgSync(parseStorageUrl(file.storage, `${values.config}: storage`), undefined, logHub);
    if (typeof file.data === 'string') return new Sync({ persistenceDirectory: resolve(dirname(resolve(values.config)), file.data), logHub });
  }
  throw new UsageError('--data DIR or --storage URL is required: the Big Peer’s store');
}

/** `keys create | list | revoke`. */
export async function keysCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const [action, ...rest] = argv;
  let sync: Sync | undefined;
  try {
    const { values, positionals } = parse(() =>
      parseArgs({
        args: [...rest],
        allowPositionals: true,
        options: {
          data: { type: 'string' },
          storage: { type: 'string' },
          config: { type: 'string' },
          name: { type: 'string' },
          'read-only': { type: 'boolean' },
          collections: { type: 'string' },
        },
      }),
    );
    if (action !== 'create' && action !== 'list' && action !== 'revoke') throw new UsageError(`keys takes create, list or revoke, not ${action ?? 'nothing'}`);
    if (action === 'revoke' ? positionals.length !== 1 : positionals.length !== 0) {
      throw new UsageError(action === 'revoke' ? 'keys revoke takes the id of one key' : `unexpected argument ${positionals[0]}`);
    }
    const collections = values.collections?.split(',').map((c) => c.trim());
    if (collections !== undefined && (collections.length === 0 || collections.some((c) => c === ''))) throw new UsageError('--collections takes names: a,b');
    const logHub = new LogHub({ minimumLogLevel: 'ERROR' });
    logHub.enabled = false;
    sync = keyStoreOf(values, logHub);
    const keys = ApiKeys.load(new BigPeerSettings(sync.store));
    if (action === 'list') {
      await write(io.stdout, `${jsonText(keys.list(), 2)}\n`);
    } else if (action === 'create') {
      const { key, info } = await keys.create(values.name ?? 'unnamed', collectionPermissions(collections, values['read-only'] === true), Date.now());
      await write(io.stdout, `${key}\n`);
      await write(io.stderr, `Created API key ${info.id} (${info.name}). This is the only time the key is shown: keep it now.\n`);
    } else {
      const id = positionals[0] as string;
      const info = await keys.revoke(id, Date.now());
      if (info === undefined) {
        await write(io.stderr, `syncmesh big-peer: no API key has the id ${id}\n`);
        return 1;
      }
      await write(io.stdout, `Revoked API key ${info.id} (${info.name}) at ${info.revoked}\n`);
    }
    return 0;
  } catch (error) {
    if ((error as { code?: string }).code === 'store/locked') {
      await write(io.stderr, 'syncmesh big-peer: the store is in use, most likely by the running Big Peer; stop it, run this command, start it again\n');
      return 1;
    }
    return fail(io, error);
  } finally {
    sync?.close();
  }
}

/**
 * The next SIGINT or SIGTERM once `after` resolved (the signal that started the drain). Its
 * listeners go after that one signal, so that a third one ends the process at once, or on
 * `dispose`.
 */
function nextSignal(after: Promise<unknown>): { readonly signal: Promise<NodeJS.Signals>; dispose(): void } {
  let disposed = false;
  let remove = (): void => {};
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    void after.then(() => {
      if (disposed) return;
      const once = (received: NodeJS.Signals): void => {
        remove();
        resolve(received);
      };
      remove = () => {
        process.removeListener('SIGINT', once);
        process.removeListener('SIGTERM', once);
      };
      process.on('SIGINT', once);
      process.on('SIGTERM', once);
    });
  });
  return {
    signal,
    dispose: () => {
      disposed = true;
      remove();
    },
  };
}

/** The `big-peer` command: serves until SIGINT or SIGTERM and drains, or runs `keys …`. */
export async function bigPeerCommand(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[0] === 'keys') return keysCommand(argv.slice(1), io);
  return untilSignal(async (stop) => {
    const second = nextSignal(stop);
    try {
      return await serveBigPeer(argv, io, stop, second.signal);
    } finally {
      second.dispose();
    }
  });
}
