/**
 * The options of a small peer on the command line, shared by `syncmesh peer` and `syncmesh
 * inspect`: the store, the playground login to a Big Peer, subscriptions, the log level, the LAN
 * and the eviction strategies.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isInternalCollection } from '../shared/internal-collections.ts';
import { LOG_LEVELS, type LogLevel } from '../shared/log.ts';
import { parseWindow, type EvictionOptions, type EvictionStrategyConfig, type LanOptions } from '../peer/host.ts';

/** A malformed command line: the command prints it with its usage text and exits 2. */
export class UsageError extends Error {}

/** The `node:util` parseArgs spec of the peer options. */
export const PEER_OPTIONS = {
  store: { type: 'string' },
  'app-id': { type: 'string' },
  'playground-token': { type: 'string' },
  'big-peer': { type: 'string' },
  'auth-provider': { type: 'string' },
  'auth-token': { type: 'string' },
  subscribe: { type: 'string', multiple: true },
  'log-level': { type: 'string' },
  lan: { type: 'boolean', default: false },
  'lan-listen': { type: 'string' },
  'lan-interface': { type: 'string' },
  evict: { type: 'string', multiple: true },
  'evict-window': { type: 'string' },
  'device-name': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** The usage lines of the LAN options, shared by the commands that take them. */
export const LAN_USAGE = `  --lan                     also sync with peers of the same app on the LAN: listen, advertise over
                            mDNS (_syncmesh._tcp) and dial the peers found (docs/lan.md)
  --lan-listen HOST:PORT    where the LAN listener binds (default 0.0.0.0 and a free port)
  --lan-interface IP        the IPv4 address of the interface mDNS uses (default: the system's choice)`;

/** The usage line of `--device-name`, shared by the commands that take it. */
export const DEVICE_NAME_USAGE = `  --device-name NAME        the name this peer shows other peers (its presence document, the Mesh
                            panel); default: the host name`;

/** `--device-name NAME`: trimmed, not empty, at most 100 characters; undefined when absent. */
export function deviceNameOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const name = value.trim();
  if (name === '' || name.length > 100) throw new UsageError(`--device-name takes a name of 1 to 100 characters, not ${JSON.stringify(value)}`);
  return name;
}

/** The usage lines of the eviction options, shared by the commands that take them. */
export const EVICT_USAGE = `  --evict big-peer:COLLECTION
                            evict COLLECTION by the Big Peer's TTL flag: subscribe to evictionFlag == false
                            and evict evictionFlag = true (recommended; repeatable, one per collection)
  --evict local:COLLECTION:TTL_HOURS[:FIELD]
                            evict COLLECTION by this peer's own TTL: documents whose FIELD (default
                            createdAt, ISO 8601) is TTL_HOURS old or more, the spec 3.2 cycle
  --evict-window HH:MM-HH:MM
                            the UTC low-activity window scheduled runs happen in, at most once a day
                            (default 02:00-05:00; may wrap midnight)`;

/** The usage lines of the provider login, shared by the commands that take it. */
export const AUTH_USAGE = `  --auth-provider NAME      log in through the webhook of the Big Peer's provider NAME (its
                            authProviders) instead of the playground …
  --auth-token TOKEN        … with this token; the webhook's answer sets the peer's permissions`;

/**
 * A login to a Big Peer: with the playground token (`provider` undefined), or with `token`
 * through the webhook of `provider`.
 */
export interface BigPeerLogin {
  readonly appID: string;
  readonly token: string;
  readonly provider: string | undefined;
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

type LoginValues = {
  readonly 'app-id'?: string | undefined;
  readonly 'playground-token'?: string | undefined;
  readonly 'big-peer'?: string | undefined;
  readonly 'auth-provider'?: string | undefined;
  readonly 'auth-token'?: string | undefined;
};

/**
 * The login of `--app-id` and `--big-peer` with either `--playground-token` or `--auth-provider`
 * and `--auth-token`. `required`: a whole login must be given; `optional`: a whole one or none
 * (undefined).
 */
export function bigPeerLoginOptions(values: LoginValues, mode: 'required' | 'optional'): BigPeerLogin | undefined {
  const given = [values['app-id'], values['playground-token'], values['big-peer'], values['auth-provider'], values['auth-token']].filter(
    (v) => v !== undefined,
  );
  if (mode === 'optional' && given.length === 0) return undefined;
  const appID = requiredOption(values['app-id'], '--app-id ID');
  const byProvider = values['auth-provider'] !== undefined || values['auth-token'] !== undefined;
  if (byProvider && values['playground-token'] !== undefined)
    throw new UsageError('give --playground-token T, or --auth-provider NAME with --auth-token TOKEN, not both: the peer logs in one way');
  const provider = byProvider ? requiredOption(values['auth-provider'], '--auth-provider NAME (with --auth-token)') : undefined;
  const token = byProvider
    ? requiredOption(values['auth-token'], '--auth-token TOKEN (with --auth-provider)')
    : requiredOption(values['playground-token'], '--playground-token T');
  const bigPeerURL = requiredOption(values['big-peer'], '--big-peer URL');
  if (!/^https?:$/.test(URL.parse(bigPeerURL)?.protocol ?? '')) throw new UsageError(`--big-peer takes an http or https URL, not ${bigPeerURL}`);
  return { appID, bigPeerURL, token, provider };
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

type EvictValues = { readonly evict?: readonly string[] | undefined; readonly 'evict-window'?: string | undefined };

/** One `--evict` value: `big-peer:COLLECTION` or `local:COLLECTION:TTL_HOURS[:FIELD]`. */
export function evictStrategyOption(text: string): EvictionStrategyConfig {
  const usage = `--evict takes big-peer:COLLECTION or local:COLLECTION:TTL_HOURS[:FIELD] (such as local:orders:72), not ${JSON.stringify(text)}`;
  const [kind, collection, ...rest] = text.split(':');
  if (collection === undefined || collection.trim() === '' || collection !== collection.trim()) throw new UsageError(usage);
  if (isInternalCollection(collection)) throw new UsageError(`${usage}: ${collection} is an internal collection; strategies evict application collections`);
  if (kind === 'big-peer') {
    if (rest.length > 0) throw new UsageError(`${usage}: big-peer takes a collection only (the Big Peer's TTL job decides what is old)`);
    return { kind: 'big-peer', collection };
  }
  if (kind !== 'local') throw new UsageError(`${usage}: the strategy is big-peer or local`);
  const [ttlText, field, ...extra] = rest;
  if (ttlText === undefined || extra.length > 0) throw new UsageError(usage);
  const ttlHours = /^\d+(\.\d+)?$/.test(ttlText) ? Number(ttlText) : Number.NaN;
  if (!(ttlHours > 0)) throw new UsageError(`${usage}: TTL_HOURS is a number of hours above 0, such as 72`);
  if (field !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(field)) {
    throw new UsageError(`${usage}: FIELD is a field name or a dotted path, such as createdAt or meta.created`);
  }
  return { kind: 'local', collection, ttlHours, ...(field === undefined ? {} : { field }) };
}

/** `--evict` (repeatable) and `--evict-window`: the peer's eviction options, undefined without `--evict`. */
export function evictionOption(values: EvictValues): EvictionOptions | undefined {
  const window = values['evict-window'];
  const given = values.evict ?? [];
  if (given.length === 0) {
    if (window !== undefined) throw new UsageError('--evict-window needs at least one --evict strategy');
    return undefined;
  }
  const strategies = given.map(evictStrategyOption);
  const seen = new Set<string>();
  for (const { collection } of strategies) {
    if (seen.has(collection)) throw new UsageError(`--evict names ${collection} twice: one strategy per collection`);
    seen.add(collection);
  }
  if (window !== undefined) {
    try {
      parseWindow(window);
    } catch (error) {
      throw new UsageError(`--evict-window takes HH:MM-HH:MM in UTC, start and end apart (such as 02:00-05:00): ${(error as Error).message}`);
    }
  }
  return { strategies, ...(window === undefined ? {} : { window }) };
}
