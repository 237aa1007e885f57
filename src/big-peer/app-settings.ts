/**
 * The desktop app's settings: `<userData>/settings.json`, which names the Big Peer the app's peer
 * syncs with. Without the file the app starts the local Big Peer instead (app-peer.ts). The file
 * is only ever read here: a malformed one is reported, never repaired or overwritten.
 *
 *   {"bigPeerUrl": "https://big-peer.example.com", "appId": "…", "playgroundToken": "…", "lan": true,
 *    "eviction": {"strategies": [{"kind": "local", "collection": "orders", "ttlHours": 72}], "window": "02:00-05:00"}}
 *
 * `lan` (optional, default false) also syncs with peers of the app on the LAN (docs/lan.md).
 * `eviction` (optional) gives the peer its eviction strategies, one per collection: `{"kind":
 * "big-peer", "collection"}` or `{"kind": "local", "collection", "ttlHours", "field"?}`, and the
 * UTC window scheduled runs happen in (docs/eviction.md). `deviceName` (optional, default the
 * host name) is the name the peer shows other peers (its presence document, docs/replication.md).
 *
 * It lives beside the Big Peer code, not in `src/main`, because `syncmesh inspect --user-data`
 * (the browser mode `npm start` falls back to) applies the same rule and may not import main.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseWindow, type EvictionOptions, type EvictionStrategyConfig } from '../peer/host.ts';
import { ConfigError } from './config.ts';
import { isInternalCollection } from '../shared/internal-collections.ts';

export const APP_SETTINGS_FILE = 'settings.json';

/** Where the app's peer syncs: a Big Peer, logged in to with a playground token. */
export interface AppSettings {
  /** The Big Peer's base URL, http or https. */
  readonly bigPeerUrl: string;
  readonly appId: string;
  readonly playgroundToken: string;
  /** Also sync with peers of the app on the LAN. */
  readonly lan?: boolean;
  /** The peer's eviction strategies and window. */
  readonly eviction?: EvictionOptions;
  /** The name the peer shows other peers (default: the host name). */
  readonly deviceName?: string;
}

const FIELDS = ['bigPeerUrl', 'appId', 'playgroundToken'] as const;
const OPTIONAL_FIELDS = ['lan', 'eviction', 'deviceName'] as const;

/** A settings file that cannot be used; `path` names it. Code `cli/usage`, as the Big Peer's config errors. */
export class AppSettingsError extends ConfigError {
  readonly path: string;
  constructor(path: string, problem: string) {
    super(`the app settings ${path} ${problem}; fix the file, or delete it to use the local Big Peer`);
    this.path = path;
  }
}

/** Checks the text of a settings file (`path` only names it in errors). */
export function parseAppSettings(text: string, path: string): AppSettings {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AppSettingsError(path, `are not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppSettingsError(path, 'must hold a JSON object {"bigPeerUrl", "appId", "playgroundToken"}');
  }
  const record = value as Record<string, unknown>;
  // Unknown fields are refused: a misspelt "bigPeerURL" must not silently fall back to nothing.
  const known: readonly string[] = [...FIELDS, ...OPTIONAL_FIELDS];
  const unknown = Object.keys(record).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new AppSettingsError(path, `have unknown field(s) ${unknown.join(', ')} (known: ${known.join(', ')})`);
  if (record['lan'] !== undefined && typeof record['lan'] !== 'boolean')
    throw new AppSettingsError(path, `need "lan" as true or false, not ${JSON.stringify(record['lan'])}`);
  const deviceName = record['deviceName'];
  if (deviceName !== undefined && (typeof deviceName !== 'string' || deviceName.trim() === '' || deviceName.trim().length > 100))
    throw new AppSettingsError(path, `need "deviceName" as a name of 1 to 100 characters, not ${JSON.stringify(deviceName)}`);
  for (const field of FIELDS) {
    const fieldValue = record[field];
    if (typeof fieldValue !== 'string' || fieldValue.trim() === '') {
      // The token's value is never echoed: it is a secret.
      throw new AppSettingsError(
        path,
        `need "${field}" as a non-empty string${field === 'playgroundToken' || fieldValue === undefined ? '' : `, not ${JSON.stringify(fieldValue)}`}`,
      );
    }
  }
  const settings = record as unknown as AppSettings;
  const url = URL.parse(settings.bigPeerUrl);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new AppSettingsError(path, `need "bigPeerUrl" as an http:// or https:// URL, not ${JSON.stringify(settings.bigPeerUrl)}`);
  }
  if (url.username !== '' || url.password !== '') throw new AppSettingsError(path, 'must not carry credentials in "bigPeerUrl" (user:password@)');
  const eviction = record['eviction'] === undefined ? undefined : parseEvictionSettings(record['eviction'], path);
  return {
    bigPeerUrl: settings.bigPeerUrl,
    appId: settings.appId,
    playgroundToken: settings.playgroundToken,
    ...(record['lan'] === true ? { lan: true } : {}),
    ...(eviction === undefined ? {} : { eviction }),
    ...(typeof deviceName === 'string' ? { deviceName: deviceName.trim() } : {}),
  };
}

const EVICTION_EXAMPLE = '{"strategies": [{"kind": "local", "collection": "orders", "ttlHours": 72}], "window": "02:00-05:00"}';
const NAME_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** `eviction`: `{"strategies": [...], "window"?}`, each strategy checked (the peer checks the conditions it runs). */
function parseEvictionSettings(value: unknown, path: string): EvictionOptions {
  const fail = (problem: string): never => {
    throw new AppSettingsError(path, `need "eviction" as ${EVICTION_EXAMPLE}: ${problem}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(`not ${JSON.stringify(value)}`);
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => key !== 'strategies' && key !== 'window');
  if (unknown.length > 0) fail(`unknown field(s) ${unknown.join(', ')} (known: strategies, window)`);
  const list = record['strategies'];
  if (!Array.isArray(list) || list.length === 0) fail('"strategies" must be a list of one or more strategies');
  const strategies = (list as unknown[]).map((item, i) => parseStrategy(item, (problem) => fail(`strategies[${i}] ${problem}`)));
  const seen = new Set<string>();
  for (const { collection } of strategies) {
    if (seen.has(collection)) fail(`"${collection}" has two strategies (one per collection)`);
    seen.add(collection);
  }
  const window = record['window'];
  if (window !== undefined) {
    if (typeof window !== 'string') fail(`"window" is HH:MM-HH:MM in UTC, not ${JSON.stringify(window)}`);
    try {
      parseWindow(window as string);
    } catch {
      fail(`"window" is HH:MM-HH:MM in UTC, start and end apart, not ${JSON.stringify(window)}`);
    }
  }
  return { strategies, ...(window === undefined ? {} : { window: window as string }) };
}

function parseStrategy(value: unknown, fail: (problem: string) => never): EvictionStrategyConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail(`must be an object {"kind", "collection", …}, not ${JSON.stringify(value)}`);
  const record = value as Record<string, unknown>;
  const { kind, collection } = record;
  if (typeof collection !== 'string' || collection.trim() === '') fail(`needs "collection" as a non-empty string`);
  const name = collection as string;
  if (isInternalCollection(name)) fail(`names an internal collection, ${name}: strategies evict application collections`);
  if (kind === 'big-peer') {
    const extra = Object.keys(record).filter((key) => key !== 'kind' && key !== 'collection');
    if (extra.length > 0) fail(`(big-peer) takes kind and collection only, not ${extra.join(', ')}: the Big Peer's TTL job decides what is old`);
    return { kind: 'big-peer', collection: name };
  }
  if (kind !== 'local') fail(`needs "kind" as "big-peer" or "local", not ${JSON.stringify(kind)}`);
  const extra = Object.keys(record).filter((key) => !['kind', 'collection', 'ttlHours', 'field'].includes(key));
  if (extra.length > 0) fail(`(local) takes kind, collection, ttlHours and field, not ${extra.join(', ')}`);
  const { ttlHours, field } = record;
  if (typeof ttlHours !== 'number' || !Number.isFinite(ttlHours) || ttlHours <= 0)
    fail(`needs "ttlHours" as a number of hours above 0, not ${JSON.stringify(ttlHours)}`);
  if (field !== undefined && (typeof field !== 'string' || !NAME_PATH.test(field)))
    fail(`needs "field" as a field name or dotted path (such as "createdAt"), not ${JSON.stringify(field)}`);
  return { kind: 'local', collection: name, ttlHours: ttlHours as number, ...(field === undefined ? {} : { field: field as string }) };
}

/** The settings in `userDataDir`, or undefined when it has no settings file. */
export function readAppSettings(userDataDir: string): AppSettings | undefined {
  const path = join(userDataDir, APP_SETTINGS_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new AppSettingsError(path, `cannot be read (${(error as Error).message})`);
  }
  return parseAppSettings(text, path);
}
