/**
 * API keys for the HTTP API (`Authorization: Bearer <key>`). A key is `smk_` and 32 random bytes
 * in base64url; it is shown once, when created. The Big Peer keeps only its SHA-256 hash, its id,
 * name, dates and permissions, in its store settings. Presented keys are hashed and compared
 * with every known hash in constant time (crypto.timingSafeEqual), so the time a check takes
 * does not tell how much of a key was right. A request is checked against the keys as committed
 * once it had arrived, so a key made or revoked on one Big Peer node holds from the next request
 * on, on every node sharing its database: the requests that arrive in one turn of the event loop
 * share one read of the keys, made after that turn (one read per request would cost a round
 * trip to PostgreSQL each; a notification of the change could come after the next request).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { EVERYTHING, type Permissions } from '../shared/permissions.ts';
import { HttpError } from './http-error.ts';
import { readPermissions } from './permission-rules.ts';
import type { BigPeerSettings } from './settings.ts';

export const API_KEY_PREFIX = 'smk_';
const SETTING = 'api-keys';

/** What is kept of a key: never the key itself. */
interface StoredKey {
  readonly id: string;
  readonly name: string;
  /** SHA-256 of the key, hex. */
  readonly hash: string;
  readonly created: string;
  readonly revoked: string | null;
  readonly permissions: Permissions;
}

/** A key as `keys list` shows it. */
export type ApiKeyInfo = Omit<StoredKey, 'hash'>;

/** Who made a request, and what they may do. */
export interface Principal {
  /** The key's id, or `config` for a key from the configuration. */
  readonly keyId: string;
  readonly permissions: Permissions;
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

function info({ hash: _hash, ...rest }: StoredKey): ApiKeyInfo {
  return rest;
}

function readStored(text: string | undefined): StoredKey[] {
  if (text === undefined) return [];
  const list = JSON.parse(text) as unknown;
  if (!Array.isArray(list)) throw new Error('the stored API keys are not a list');
  return list.map((k: StoredKey) => {
    const permissions = readPermissions(k.permissions, `API key ${k.id} permissions`);
    if (typeof permissions === 'string') throw new Error(permissions);
    return { ...k, permissions };
  });
}

/** Runs a function after the current turn of the event loop (default setImmediate): when the requests of that turn have arrived. */
export type AfterTurn = (fn: () => void) => void;

export class ApiKeys {
  readonly #settings: BigPeerSettings;
  readonly #afterTurn: AfterTurn;
  /** The read of the keys that the requests arrived so far in this turn wait for. */
  #reading: Promise<StoredKey[]> | undefined;
  /** The stored keys as last read, and the text they were read from (parsed again only when it changed). */
  #keys: StoredKey[];
  #text: string | undefined;
  /** Hashes of the keys of the configuration, each with every permission. */
  readonly #configured: Buffer[];

  private constructor(settings: BigPeerSettings, text: string | undefined, configured: readonly string[], afterTurn: AfterTurn) {
    this.#settings = settings;
    this.#afterTurn = afterTurn;
    this.#text = text;
    this.#keys = readStored(text);
    this.#configured = configured.map(hashApiKey);
  }

  /** The keys of the store, plus keys from the configuration (accepted with every permission). */
  static load(settings: BigPeerSettings, configured: readonly string[] = [], afterTurn: AfterTurn = setImmediate): ApiKeys {
    return new ApiKeys(settings, settings.get(SETTING), configured, afterTurn);
  }

  /** The stored keys as committed now. */
  #current(): StoredKey[] {
    const text = this.#settings.get(SETTING);
    if (text !== this.#text) {
      this.#keys = readStored(text);
      this.#text = text;
    }
    return this.#keys;
  }

  /**
   * The stored keys as committed after this turn of the event loop: every caller of this turn
   * gets the same read. The read is made (blocking) once the turn is over, so it sees every
   * commit made before any of these callers asked; a caller of a later turn waits for a later read.
   */
  #afterArrival(): Promise<StoredKey[]> {
    this.#reading ??= new Promise<StoredKey[]>((resolve, reject) => {
      this.#afterTurn(() => {
        this.#reading = undefined;
        try {
          resolve(this.#current());
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    return this.#reading;
  }

  list(): ApiKeyInfo[] {
    return this.#current().map(info);
  }

  /** Makes a key; the only time the key itself is returned. */
  async create(name: string, permissions: Permissions, now: number): Promise<{ key: string; info: ApiKeyInfo }> {
    const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
    const stored: StoredKey = {
      id: `key_${randomBytes(6).toString('hex')}`,
      name,
      hash: hashApiKey(key).toString('hex'),
      created: new Date(now).toISOString(),
      revoked: null,
      permissions,
    };
    await this.#save((keys) => [...keys, stored]);
    return { key, info: info(stored) };
  }

  /** Revokes a key by id; revoking twice keeps the first date. Undefined when no key has that id. */
  async revoke(id: string, now: number): Promise<ApiKeyInfo | undefined> {
    if (!this.#current().some((k) => k.id === id)) return undefined;
    let outcome: StoredKey | undefined;
    await this.#save((keys) => {
      const found = keys.find((k) => k.id === id);
      outcome = found?.revoked === null ? { ...found, revoked: new Date(now).toISOString() } : found;
      return keys.map((k) => (k.id === id && outcome !== undefined ? outcome : k));
    });
    return outcome === undefined ? undefined : info(outcome);
  }

  /** Changes the keys as committed, in one transaction: a key made on another node meanwhile is kept. */
  async #save(change: (keys: StoredKey[]) => StoredKey[]): Promise<void> {
    const text = await this.#settings.update(SETTING, (current) => JSON.stringify(change(readStored(current))));
    this.#text = text;
    this.#keys = readStored(text);
  }

  /**
   * The principal of an `Authorization` header, checked against the keys as committed after it
   * arrived (a read shared with the other requests of this turn).
   * @throws HttpError 401 (`http/unauthorized`) when it is missing, not a bearer key, unknown or revoked.
   */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    if (authorization === undefined || authorization === '') {
      throw new HttpError(401, 'http/unauthorized', 'this endpoint needs the header Authorization: Bearer <API key>');
    }
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (match === null) throw new HttpError(401, 'http/unauthorized', 'the Authorization header must be "Bearer <API key>"');
    const presented = hashApiKey(match[1] as string);
    let found: StoredKey | undefined;
    let configured = false;
    // Every hash is compared, whichever matches, so that timing tells nothing about which did.
    for (const key of await this.#afterArrival()) if (timingSafeEqual(presented, Buffer.from(key.hash, 'hex'))) found = key;
    for (const hash of this.#configured) if (timingSafeEqual(presented, hash)) configured = true;
    if (configured) return { keyId: 'config', permissions: EVERYTHING };
    if (found === undefined) throw new HttpError(401, 'http/unauthorized', 'the API key is not valid');
    if (found.revoked !== null) throw new HttpError(401, 'http/unauthorized', `the API key ${found.id} was revoked`);
    return { keyId: found.id, permissions: found.permissions };
  }
}
