/**
 * API keys for the HTTP API (`Authorization: Bearer <key>`). A key is `smk_` and 32 random bytes
 * in base64url; it is shown once, when created. The Big Peer keeps only its SHA-256 hash, its id,
 * name, dates and permissions, in its store settings. Presented keys are hashed and compared
 * with every known hash in constant time (crypto.timingSafeEqual), so the time a check takes
 * does not tell how much of a key was right.
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

export class ApiKeys {
  readonly #settings: BigPeerSettings;
  #keys: StoredKey[];
  /** Hashes of the keys of the configuration, each with every permission. */
  readonly #configured: Buffer[];

  private constructor(settings: BigPeerSettings, keys: StoredKey[], configured: readonly string[]) {
    this.#settings = settings;
    this.#keys = keys;
    this.#configured = configured.map(hashApiKey);
  }

  /** The keys of the store, plus keys from the configuration (accepted with every permission). */
  static load(settings: BigPeerSettings, configured: readonly string[] = []): ApiKeys {
    return new ApiKeys(settings, readStored(settings.get(SETTING)), configured);
  }

  list(): ApiKeyInfo[] {
    return this.#keys.map(info);
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
    await this.#save([...this.#keys, stored]);
    return { key, info: info(stored) };
  }

  /** Revokes a key by id; revoking twice keeps the first date. Undefined when no key has that id. */
  async revoke(id: string, now: number): Promise<ApiKeyInfo | undefined> {
    const found = this.#keys.find((k) => k.id === id);
    if (found === undefined) return undefined;
    if (found.revoked !== null) return info(found);
    const revoked = { ...found, revoked: new Date(now).toISOString() };
    await this.#save(this.#keys.map((k) => (k.id === id ? revoked : k)));
    return info(revoked);
  }

  async #save(keys: StoredKey[]): Promise<void> {
    await this.#settings.set(SETTING, JSON.stringify(keys));
    this.#keys = keys;
  }

  /**
   * The principal of an `Authorization` header.
   * @throws HttpError 401 (`http/unauthorized`) when it is missing, not a bearer key, unknown or revoked.
   */
  authenticate(authorization: string | undefined): Principal {
    if (authorization === undefined || authorization === '') {
      throw new HttpError(401, 'http/unauthorized', 'this endpoint needs the header Authorization: Bearer <API key>');
    }
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (match === null) throw new HttpError(401, 'http/unauthorized', 'the Authorization header must be "Bearer <API key>"');
    const presented = hashApiKey(match[1] as string);
    let found: StoredKey | undefined;
    let configured = false;
    // Every hash is compared, whichever matches, so that timing tells nothing about which did.
    for (const key of this.#keys) if (timingSafeEqual(presented, Buffer.from(key.hash, 'hex'))) found = key;
    for (const hash of this.#configured) if (timingSafeEqual(presented, hash)) configured = true;
    if (configured) return { keyId: 'config', permissions: EVERYTHING };
    if (found === undefined) throw new HttpError(401, 'http/unauthorized', 'the API key is not valid');
    if (found.revoked !== null) throw new HttpError(401, 'http/unauthorized', `the API key ${found.id} was revoked`);
    return { keyId: found.id, permissions: found.permissions };
  }
}
