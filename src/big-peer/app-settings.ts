/**
 * The desktop app's settings: `<userData>/settings.json`, which names the Big Peer the app's peer
 * syncs with. Without the file the app starts the local Big Peer instead (app-peer.ts). The file
 * is only ever read here: a malformed one is reported, never repaired or overwritten.
 *
 *   {"bigPeerUrl": "https://big-peer.example.com", "appId": "…", "playgroundToken": "…", "lan": true}
 *
 * `lan` (optional, default false) also syncs with peers of the app on the LAN (docs/lan.md).
 *
 * It lives beside the Big Peer code, not in `src/main`, because `syncmesh inspect --user-data`
 * (the browser mode `npm start` falls back to) applies the same rule and may not import main.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config.ts';

export const APP_SETTINGS_FILE = 'settings.json';

/** Where the app's peer syncs: a Big Peer, logged in to with a playground token. */
export interface AppSettings {
  /** The Big Peer's base URL, http or https. */
  readonly bigPeerUrl: string;
  readonly appId: string;
  readonly playgroundToken: string;
  /** Also sync with peers of the app on the LAN. */
  readonly lan?: boolean;
}

const FIELDS = ['bigPeerUrl', 'appId', 'playgroundToken'] as const;
const OPTIONAL_FIELDS = ['lan'] as const;

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
  if (record['lan'] !== undefined && typeof record['lan'] !== 'boolean') throw new AppSettingsError(path, `need "lan" as true or false, not ${JSON.stringify(record['lan'])}`);
  for (const field of FIELDS) {
    const fieldValue = record[field];
    if (typeof fieldValue !== 'string' || fieldValue.trim() === '') {
      // The token's value is never echoed: it is a secret.
      throw new AppSettingsError(path, `need "${field}" as a non-empty string${field === 'playgroundToken' || fieldValue === undefined ? '' : `, not ${JSON.stringify(fieldValue)}`}`);
    }
  }
  const settings = record as unknown as AppSettings;
  const url = URL.parse(settings.bigPeerUrl);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new AppSettingsError(path, `need "bigPeerUrl" as an http:// or https:// URL, not ${JSON.stringify(settings.bigPeerUrl)}`);
  }
  if (url.username !== '' || url.password !== '') throw new AppSettingsError(path, 'must not carry credentials in "bigPeerUrl" (user:password@)');
  return { bigPeerUrl: settings.bigPeerUrl, appId: settings.appId, playgroundToken: settings.playgroundToken, ...(record['lan'] === true ? { lan: true } : {}) };
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
