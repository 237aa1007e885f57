/**
 * The options of a small peer on the command line, shared by `syncmesh peer` and `syncmesh
 * inspect`: the store, the playground login to a Big Peer, subscriptions and the log level.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { LOG_LEVELS, type LogLevel } from '../shared/log.ts';
import type { LanOptions } from '../peer/index.ts';

/** A malformed command line: the command prints it with its usage text and exits 2. */
export class UsageError extends Error {}

/** The `node:util` parseArgs spec of the peer options. */
export const PEER_OPTIONS = {
  store: { type: 'string' },
  'app-id': { type: 'string' },
  'playground-token': { type: 'string' },
  'big-peer': { type: 'string' },
  subscribe: { type: 'string', multiple: true },
  'log-level': { type: 'string' },
  lan: { type: 'boolean', default: false },
  'lan-listen': { type: 'string' },
  'lan-interface': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** The usage lines of the LAN options, shared by the commands that take them. */
export const LAN_USAGE = `  --lan                     also sync with peers of the same app on the LAN: listen, advertise over
                            mDNS (_syncmesh._tcp) and dial the peers found (docs/lan.md)
  --lan-listen HOST:PORT    where the LAN listener binds (default 0.0.0.0 and a free port)
  --lan-interface IP        the IPv4 address of the interface mDNS uses (default: the system's choice)`;


/** A playground login to a Big Peer. */
export interface PlaygroundLogin {
  readonly appID: string;
  readonly token: string;
  readonly bigPeerURL: string;
}

/** Runs parseArgs (strict, positionals allowed), turning its errors into usage errors. */
export function parseCommandLine<const O extends NonNullable<ParseArgsConfig['options']>>(argv: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function requiredOption(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

/** `--log-level` (case-insensitive), INFO when absent. */
export function logLevelOption(value: string | undefined): LogLevel {
  const level = (value ?? 'INFO').toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log-level takes one of ${LOG_LEVELS.join(', ')}, not ${value}`);
  return level as LogLevel;
}

type LoginValues = { readonly 'app-id'?: string | undefined; readonly 'playground-token'?: string | undefined; readonly 'big-peer'?: string | undefined };

/**
 * The playground login of `--app-id`, `--playground-token` and `--big-peer`. `required`: all
 * three must be given; `optional`: all three or none (undefined).
 */
export function playgroundLoginOptions(values: LoginValues, mode: 'required' | 'optional'): PlaygroundLogin | undefined {
  const given = [values['app-id'], values['playground-token'], values['big-peer']].filter((v) => v !== undefined);
  if (mode === 'optional' && given.length === 0) return undefined;
  const appID = requiredOption(values['app-id'], '--app-id ID');
  const token = requiredOption(values['playground-token'], '--playground-token T');
  const bigPeerURL = requiredOption(values['big-peer'], '--big-peer URL');
  if (!/^https?:$/.test(URL.parse(bigPeerURL)?.protocol ?? '')) throw new UsageError(`--big-peer takes an http or https URL, not ${bigPeerURL}`);
  return { appID, token, bigPeerURL };
}

type LanValues = { readonly lan?: boolean | undefined; readonly 'lan-listen'?: string | undefined; readonly 'lan-interface'?: string | undefined };

/** `--lan` with its `--lan-listen HOST:PORT` and `--lan-interface IP`; undefined without `--lan`. */
export function lanOption(values: LanValues): LanOptions | undefined {
  const listen = values['lan-listen'];
  const iface = values['lan-interface'];
  if (values.lan !== true) {
    if (listen !== undefined || iface !== undefined) throw new UsageError(`${listen !== undefined ? '--lan-listen' : '--lan-interface'} needs --lan`);
    return undefined;
  }
  let bind: { host: string; port: number } | undefined;
  if (listen !== undefined) {
    const m = /^(.+):(\d{1,5})$/.exec(listen);
    const port = m === null ? -1 : Number(m[2]);
    if (m === null || port > 65_535) throw new UsageError(`--lan-listen takes HOST:PORT (such as 0.0.0.0:4040), not ${listen}`);
    bind = { host: (m[1] as string).replace(/^\[(.*)\]$/, '$1'), port };
  }
  if (iface !== undefined && !/^\d{1,3}(\.\d{1,3}){3}$/.test(iface)) throw new UsageError(`--lan-interface takes an IPv4 address, not ${iface}`);
  return { ...(bind === undefined ? {} : { listen: bind }), ...(iface === undefined ? {} : { interface: iface }) };
}
