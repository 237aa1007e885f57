/**
 * The Big Peer's configuration: a JSON file and command-line flags, merged (flags win over the
 * file, the file over the defaults) and checked, with errors that name the source and the field.
 * Relative paths in the file are relative to the file's directory. See docs/http-api.md.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LOG_LEVELS, type LogLevel } from '../shared/log.ts';
import { EVERYTHING, type Permissions } from '../shared/permissions.ts';
import { SyncError } from '../peer/host.ts';
import { readPermissions } from './permission-rules.ts';
import { validateTtlJob, type TtlJobConfig } from './ttl-job.ts';
import { DEFAULT_SCHEMA, SCHEMA_NAME } from './postgres/pg-schema.ts';

export interface AuthProviderConfig {
  /** The webhook the Big Peer POSTs `{appID, provider, token}` to. */
  readonly url: string;
}

/** A store on PostgreSQL, which several Big Peer nodes may share (docs/deploy.md). */
export interface PostgresConfig {
  /** The server and database, without the `schema` parameter. */
  readonly url: string;
  /** The schema holding the store's tables (the URL's `?schema=`, default `syncmesh`). */
  readonly schema: string;
  /** How often a node reads the clock for commits whose notification it missed: the bound on their delay. */
  readonly pollIntervalMs: number;
}

export interface BigPeerConfig {
  /** The one app this Big Peer serves; logins and announcements for another app are refused. */
  readonly appID: string;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** The persistence directory of the Big Peer's store; undefined keeps it in memory (tests). */
  readonly dataDir: string | undefined;
  /** The store on PostgreSQL instead (`--storage postgres://…`); then `dataDir` is undefined. */
  readonly postgres: PostgresConfig | undefined;
  /** Names this node in its logs and in PostgreSQL (`pg_stat_activity`, the migrations it applied); default `<host name>:<pid>`. */
  readonly nodeName: string | undefined;
  /**
   * The name the Big Peer shows small peers in its presence document (`--device-name`); undefined:
   * it writes no presence document (small peers name it "Big Peer").
   */
  readonly deviceName: string | undefined;
  /** Enables playground logins (no provider) with this token; they get every permission. */
  readonly playgroundToken: string | undefined;
  /** API keys accepted with every permission, besides the ones created with `keys create`. */
  readonly apiKeys: readonly string[];
  readonly authProviders: Readonly<Record<string, AuthProviderConfig>>;
  /** The permissions of a webhook login whose answer names none. */
  readonly defaultPermissions: Permissions;
  readonly tls: { readonly keyFile: string; readonly certFile: string } | undefined;
  readonly logLevel: LogLevel;
  /** A request that has not been answered by then gets 408. */
  readonly requestTimeoutMs: number;
  /** How long `X-SYNC-TXN-ID` waits for the transaction before 404. */
  readonly txnWaitTimeoutMs: number;
  /**
   * The time budget of one HTTP statement (store/execute), from when it is ready to run (a wait
   * for a query thread or the write slot included): past it, the answer is 408 `query/timeout`
   * and a mutation is rolled back (docs/http-api.md).
   */
  readonly statementTimeoutMs: number;
  /**
   * Threads that run the HTTP API's SELECTs (and find the documents of its UPDATE, DELETE and
   * EVICT) on their own read connection to a SQLite store, off the event loop; 0 runs them on
   * the event loop. Not used for a store in memory or on PostgreSQL.
   */
  readonly queryThreads: number;
  /**
   * The time matching a small peer's subscription conditions against documents may take in one
   * update sent to it; past it, its session is closed (1008, "subscription too expensive").
   */
  readonly subscriptionBudgetMs: number;
  readonly webhookTimeoutMs: number;
  /** How long close() lets requests in flight finish before it cuts their connections. */
  readonly shutdownGraceMs: number;
  /**
   * How long drain() (SIGTERM) keeps serving after `/_ready` turned 503, so that a load balancer's
   * health check takes the node out of rotation before it stops accepting (docs/operations.md).
   */
  readonly drainDelayMs: number;
  /** When set, `GET /metrics` needs `Authorization: Bearer <metricsToken>`; otherwise it is open. */
  readonly metricsToken: string | undefined;
  /** Lifetime of a playground certificate, and of a webhook one whose answer gives none. */
  readonly certificateLifetimeSeconds: number;
  readonly ttlJobs: readonly TtlJobConfig[];
  /**
   * Days a tombstone is kept after its deletion before the tombstone reaper removes it (default
   * 30; small peers keep theirs 7). A small peer away for longer reconciles by ids when it comes
   * back (docs/replication.md, "Tombstone reaping and the resurrection guard").
   */
  readonly tombstoneTtlDays: number;
  /** The low-activity window the reaper runs in, once a day: UTC `HH:MM-HH:MM` (default `02:00-05:00`). */
  readonly tombstoneWindow: string;
  /** Days without a write after which a peer's presence document is removed (presence-expiry.ts; default 30; 0: never). */
  readonly presenceExpiryDays: number;
  /** How long a sync session may take to announce itself before it is closed (4408). */
  readonly announceTimeoutMs: number;
  /** Sync sessions waiting for their announcement from one address (IPv4, or IPv6 /64); 0: no limit. */
  readonly maxPendingSessionsPerAddress: number;
  /** Bytes received from sync sessions waiting for their announcement, in total. */
  readonly maxPendingBytes: number;
}

export const CONFIG_DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  requestTimeoutMs: 30_000,
  txnWaitTimeoutMs: 10_000,
  statementTimeoutMs: 10_000,
  queryThreads: 2,
  subscriptionBudgetMs: 10_000,
  webhookTimeoutMs: 5_000,
  shutdownGraceMs: 5_000,
  drainDelayMs: 5_000,
  pollIntervalMs: 1_000,
  certificateLifetimeSeconds: 8 * 3600,
  announceTimeoutMs: 5_000,
  maxPendingSessionsPerAddress: 16,
  maxPendingBytes: 64 * 1024 * 1024,
  tombstoneTtlDays: 30,
  tombstoneWindow: '02:00-05:00',
  presenceExpiryDays: 30,
} as const;

/** What the command line gave (undefined: not given). */
export interface ConfigFlags {
  readonly config?: string;
  readonly host?: string;
  readonly port?: string;
  readonly data?: string;
  /** `postgres://…` (the store on PostgreSQL). */
  readonly storage?: string;
  readonly nodeName?: string;
  readonly deviceName?: string;
  readonly appID?: string;
  readonly playgroundToken?: string;
  readonly apiKeys?: readonly string[];
  readonly tlsKey?: string;
  readonly tlsCert?: string;
  readonly logLevel?: string;
  /** `--statement-timeout`, in milliseconds (the CLI reads the duration). */
  readonly statementTimeoutMs?: string;
  /** `--tombstone-ttl-days`. */
  readonly tombstoneTtlDays?: string;
  /** `--presence-expiry-days`. */
  readonly presenceExpiryDays?: string;
}

export class ConfigError extends SyncError {
  constructor(message: string) {
    super('cli/usage', message);
  }
}

const FILE_KEYS = new Set([
  'appID',
  'host',
  'port',
  'data',
  'storage',
  'nodeName',
  'deviceName',
  'pollIntervalMs',
  'playgroundToken',
  'apiKeys',
  'authProviders',
  'defaultPermissions',
  'tls',
  'logLevel',
  'requestTimeoutMs',
  'txnWaitTimeoutMs',
  'statementTimeoutMs',
  'queryThreads',
  'subscriptionBudgetMs',
  'webhookTimeoutMs',
  'shutdownGraceMs',
  'drainDelayMs',
  'metricsToken',
  'certificateLifetimeSeconds',
  'ttlJobs',
  'tombstoneTtlDays',
  'tombstoneWindow',
  'presenceExpiryDays',
  'announceTimeoutMs',
  'maxPendingSessionsPerAddress',
  'maxPendingBytes',
]);

type Raw = Record<string, unknown>;

function readFile(path: string): Raw {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the config file ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`the config file ${path} is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(`the config file ${path} must hold a JSON object`);
  const unknown = Object.keys(value).filter((k) => !FILE_KEYS.has(k));
  if (unknown.length > 0) throw new ConfigError(`the config file ${path} has unknown field(s) ${unknown.join(', ')}; known: ${[...FILE_KEYS].join(', ')}`);
  return value as Raw;
}

/** Checks one field; `where` names its source ("--port", "config.json: port"). */
class Checker {
  readonly #where: (field: string) => string;
  constructor(where: (field: string) => string) {
    this.#where = where;
  }
  fail(field: string, must: string, value: unknown): never {
    throw new ConfigError(`${this.#where(field)} must be ${must}, not ${JSON.stringify(value) ?? String(value)}`);
  }
  string(field: string, value: unknown): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') this.fail(field, 'a non-empty string', value);
    return value;
  }
  integer(field: string, value: unknown, min: number, max: number): number | undefined {
    if (value === undefined) return undefined;
    const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) this.fail(field, `an integer from ${min} to ${max}`, value);
    return n;
  }
}

/**
 * The PostgreSQL store a `--storage` value names: `postgres://` or `postgresql://`, with an
 * optional `?schema=NAME`. Errors never echo the URL: it may hold a password.
 */
export function parseStorageUrl(text: string, where: string, pollIntervalMs: number = CONFIG_DEFAULTS.pollIntervalMs): PostgresConfig {
  if (!/^postgres(ql)?:\/\//.test(text) || !URL.canParse(text)) {
    throw new ConfigError(
      `${where} must be a PostgreSQL URL, postgres://user:password@host:port/database[?schema=NAME] (or leave it out for the SQLite store of --data)`,
    );
  }
  const url = new URL(text);
  const schema = url.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  if (!SCHEMA_NAME.test(schema))
    throw new ConfigError(
      `${where}: the schema ${JSON.stringify(schema)} must be lower-case letters, digits and underscores, starting with a letter or underscore`,
    );
  url.searchParams.delete('schema');
  return { url: url.toString(), schema, pollIntervalMs };
}

/** Merges the file named by `flags.config` (if any) with the flags, and checks the result. */
export function loadConfig(flags: ConfigFlags): BigPeerConfig {
  const file = flags.config === undefined ? {} : readFile(flags.config);
  const base = flags.config === undefined ? process.cwd() : dirname(resolve(flags.config));
  const inFile: Checker = new Checker((f) => `${flags.config}: ${f}`);
  const onLine: Checker = new Checker((f) => `--${f}`);
  const pick = <T>(flag: T | undefined, fromFile: T | undefined): T | undefined => flag ?? fromFile;
  const path = (p: string | undefined): string | undefined => (p === undefined ? undefined : resolve(base, p));

  const appID = pick(onLine.string('app-id', flags.appID), inFile.string('appID', file.appID));
  if (appID === undefined) throw new ConfigError('an app id is required: --app-id ID, or "appID" in the config file');
  const logLevel = pick(onLine.string('log-level', flags.logLevel), inFile.string('logLevel', file.logLevel))?.toUpperCase() ?? 'INFO';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError(`the log level must be one of ${LOG_LEVELS.join(', ')}, not ${logLevel}`);

  const fileKeys = file.apiKeys === undefined ? [] : file.apiKeys;
  if (!Array.isArray(fileKeys) || !fileKeys.every((k) => typeof k === 'string' && k.length >= 16))
    inFile.fail('apiKeys', 'a list of strings of 16 characters or more', fileKeys);
  for (const key of flags.apiKeys ?? []) if (key.length < 16) onLine.fail('api-key', 'at least 16 characters long', key);

  const providers: Record<string, AuthProviderConfig> = {};
  const rawProviders = file.authProviders ?? {};
  if (typeof rawProviders !== 'object' || rawProviders === null || Array.isArray(rawProviders))
    inFile.fail('authProviders', 'an object of provider names to {"url": …}', rawProviders);
  for (const [name, provider] of Object.entries(rawProviders as Raw)) {
    const url = (provider as Raw | null)?.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url) || !URL.canParse(url)) inFile.fail(`authProviders.${name}.url`, 'an http:// or https:// URL', url);
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '') {
      // Not echoed: the value holds a secret.
      throw new ConfigError(
        `${flags.config ?? 'config'}: authProviders.${name}.url must not carry credentials (user:password@); the webhook authenticates the Big Peer some other way`,
      );
    }
    providers[name] = { url };
  }

  let defaultPermissions = EVERYTHING;
  if (file.defaultPermissions !== undefined) {
    const read = readPermissions(file.defaultPermissions, `${flags.config}: defaultPermissions`);
    if (typeof read === 'string') throw new ConfigError(read);
    defaultPermissions = read;
  }

  if (file.tls !== undefined && (typeof file.tls !== 'object' || file.tls === null || Array.isArray(file.tls))) {
    inFile.fail('tls', 'an object {"keyFile": "key.pem", "certFile": "cert.pem"}', file.tls);
  }
  const fileTls = (file.tls ?? {}) as Raw;
  const unknownTls = Object.keys(fileTls).filter((k) => !['keyFile', 'certFile', 'key', 'cert'].includes(k));
  if (unknownTls.length > 0) inFile.fail('tls', `an object {"keyFile", "certFile"} (unknown field(s) ${unknownTls.join(', ')})`, file.tls);
  if (file.tls !== undefined) {
    for (const [field, alias] of [
      ['keyFile', 'key'],
      ['certFile', 'cert'],
    ] as const) {
      if (fileTls[field] !== undefined && fileTls[alias] !== undefined) inFile.fail(`tls.${field}`, `given once (not also as tls.${alias})`, fileTls[field]);
      const value = fileTls[field] ?? fileTls[alias];
      if (typeof value !== 'string' || value === '') inFile.fail(`tls.${field}`, 'the path of a PEM file, a non-empty string', value);
    }
  }
  const tlsKey = flags.tlsKey ?? path(inFile.string('tls.keyFile', fileTls.keyFile ?? fileTls.key));
  const tlsCert = flags.tlsCert ?? path(inFile.string('tls.certFile', fileTls.certFile ?? fileTls.cert));
  if ((tlsKey === undefined) !== (tlsCert === undefined)) throw new ConfigError('TLS needs both a key and a certificate: --tls-key FILE --tls-cert FILE');

  const ttlJobs = (file.ttlJobs ?? []) as TtlJobConfig[];
  if (!Array.isArray(ttlJobs)) inFile.fail('ttlJobs', 'a list of {"collection", "ttlHours", …}', ttlJobs);
  for (const job of ttlJobs) {
    try {
      validateTtlJob(job);
    } catch (error) {
      throw new ConfigError(`${flags.config}: ttlJobs: ${(error as Error).message}`);
    }
  }

  const ms = (field: string): number | undefined => inFile.integer(field, file[field], 1, 3_600_000);
  const storageText = pick(onLine.string('storage', flags.storage), inFile.string('storage', file.storage));
  const postgres =
    storageText === undefined
      ? undefined
      : parseStorageUrl(storageText, flags.storage === undefined ? `${flags.config}: storage` : '--storage', ms('pollIntervalMs'));
  const dataDir = flags.data ?? path(inFile.string('data', file.data));
  if (postgres !== undefined && dataDir !== undefined)
    throw new ConfigError('the store is either on PostgreSQL (--storage postgres://…) or in a directory (--data DIR), not both');
  const tombstoneWindow = inFile.string('tombstoneWindow', file.tombstoneWindow) ?? CONFIG_DEFAULTS.tombstoneWindow;
  if (!/^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$/.test(tombstoneWindow) || tombstoneWindow.slice(0, 5) === tombstoneWindow.slice(6)) {
    inFile.fail('tombstoneWindow', 'a UTC window HH:MM-HH:MM whose start and end differ, such as 02:00-05:00', tombstoneWindow);
  }
  const metricsToken = inFile.string('metricsToken', file.metricsToken);
  // Not echoed: the value is a secret.
  if (metricsToken !== undefined && metricsToken.length < 16) throw new ConfigError(`${flags.config}: metricsToken must be at least 16 characters long`);
  return {
    appID,
    host: pick(onLine.string('host', flags.host), inFile.string('host', file.host)) ?? CONFIG_DEFAULTS.host,
    port: pick(onLine.integer('port', flags.port, 0, 65535), inFile.integer('port', file.port, 0, 65535)) ?? CONFIG_DEFAULTS.port,
    dataDir,
    postgres,
    nodeName: pick(onLine.string('node-name', flags.nodeName), inFile.string('nodeName', file.nodeName)),
    deviceName: pick(onLine.string('device-name', flags.deviceName), inFile.string('deviceName', file.deviceName)),
    playgroundToken: pick(onLine.string('playground-token', flags.playgroundToken), inFile.string('playgroundToken', file.playgroundToken)),
    apiKeys: [...(fileKeys as string[]), ...(flags.apiKeys ?? [])],
    authProviders: providers,
    defaultPermissions,
    tls: tlsKey === undefined || tlsCert === undefined ? undefined : { keyFile: tlsKey, certFile: tlsCert },
    logLevel: logLevel as LogLevel,
    requestTimeoutMs: ms('requestTimeoutMs') ?? CONFIG_DEFAULTS.requestTimeoutMs,
    txnWaitTimeoutMs: ms('txnWaitTimeoutMs') ?? CONFIG_DEFAULTS.txnWaitTimeoutMs,
    statementTimeoutMs:
      pick(onLine.integer('statement-timeout', flags.statementTimeoutMs, 1, 3_600_000), ms('statementTimeoutMs')) ?? CONFIG_DEFAULTS.statementTimeoutMs,
    queryThreads: inFile.integer('queryThreads', file.queryThreads, 0, 64) ?? CONFIG_DEFAULTS.queryThreads,
    subscriptionBudgetMs: ms('subscriptionBudgetMs') ?? CONFIG_DEFAULTS.subscriptionBudgetMs,
    webhookTimeoutMs: ms('webhookTimeoutMs') ?? CONFIG_DEFAULTS.webhookTimeoutMs,
    shutdownGraceMs: ms('shutdownGraceMs') ?? CONFIG_DEFAULTS.shutdownGraceMs,
    drainDelayMs: inFile.integer('drainDelayMs', file.drainDelayMs, 0, 3_600_000) ?? CONFIG_DEFAULTS.drainDelayMs,
    metricsToken,
    certificateLifetimeSeconds:
      inFile.integer('certificateLifetimeSeconds', file.certificateLifetimeSeconds, 1, 366 * 86_400) ?? CONFIG_DEFAULTS.certificateLifetimeSeconds,
    ttlJobs,
    tombstoneTtlDays:
      pick(onLine.integer('tombstone-ttl-days', flags.tombstoneTtlDays, 1, 36_500), inFile.integer('tombstoneTtlDays', file.tombstoneTtlDays, 1, 36_500)) ??
      CONFIG_DEFAULTS.tombstoneTtlDays,
    tombstoneWindow,
    presenceExpiryDays:
      pick(
        onLine.integer('presence-expiry-days', flags.presenceExpiryDays, 0, 36_500),
        inFile.integer('presenceExpiryDays', file.presenceExpiryDays, 0, 36_500),
      ) ?? CONFIG_DEFAULTS.presenceExpiryDays,
    announceTimeoutMs: ms('announceTimeoutMs') ?? CONFIG_DEFAULTS.announceTimeoutMs,
    maxPendingSessionsPerAddress:
      inFile.integer('maxPendingSessionsPerAddress', file.maxPendingSessionsPerAddress, 0, 1_000_000) ?? CONFIG_DEFAULTS.maxPendingSessionsPerAddress,
    maxPendingBytes: inFile.integer('maxPendingBytes', file.maxPendingBytes, 1024 * 1024, 2 ** 40) ?? CONFIG_DEFAULTS.maxPendingBytes,
  };
}

/**
 * A configuration for code and tests: the defaults, with what is given; except the drain delay,
 * 0 here (no load balancer in front of a Big Peer started in code).
 */
export function bigPeerConfig(given: Partial<BigPeerConfig> & { readonly appID: string }): BigPeerConfig {
  return {
    host: CONFIG_DEFAULTS.host,
    port: 0,
    dataDir: undefined,
    postgres: undefined,
    nodeName: undefined,
    deviceName: undefined,
    playgroundToken: undefined,
    apiKeys: [],
    authProviders: {},
    defaultPermissions: EVERYTHING,
    tls: undefined,
    logLevel: 'INFO',
    requestTimeoutMs: CONFIG_DEFAULTS.requestTimeoutMs,
    txnWaitTimeoutMs: CONFIG_DEFAULTS.txnWaitTimeoutMs,
    statementTimeoutMs: CONFIG_DEFAULTS.statementTimeoutMs,
    queryThreads: CONFIG_DEFAULTS.queryThreads,
    subscriptionBudgetMs: CONFIG_DEFAULTS.subscriptionBudgetMs,
    webhookTimeoutMs: CONFIG_DEFAULTS.webhookTimeoutMs,
    shutdownGraceMs: CONFIG_DEFAULTS.shutdownGraceMs,
    drainDelayMs: 0,
    metricsToken: undefined,
    certificateLifetimeSeconds: CONFIG_DEFAULTS.certificateLifetimeSeconds,
    ttlJobs: [],
    tombstoneTtlDays: CONFIG_DEFAULTS.tombstoneTtlDays,
    tombstoneWindow: CONFIG_DEFAULTS.tombstoneWindow,
    presenceExpiryDays: CONFIG_DEFAULTS.presenceExpiryDays,
    announceTimeoutMs: CONFIG_DEFAULTS.announceTimeoutMs,
    maxPendingSessionsPerAddress: CONFIG_DEFAULTS.maxPendingSessionsPerAddress,
    maxPendingBytes: CONFIG_DEFAULTS.maxPendingBytes,
    ...given,
  };
}
