/**
 * Ed25519 keys made from the seed: the peer keys name writers in merge stamps and break ties in
 * merges and connection elections, so a replayable run needs the same keys every time. A peer's
 * identity is written into its empty store before its Sync opens, where `loadOrCreateIdentity`
 * finds it and uses it instead of making a random one.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { IssuerKeys } from '../../peer/auth/certificate.ts';
import type { StorageEngine } from '../../peer/storage/types.ts';

/** PKCS#8 DER of an Ed25519 private key, up to its 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface SimKey {
  /** base64url public key: the peer key. */
  readonly peerKey: string;
  readonly privateKeyPem: string;
}

export function keyFromSeed(seed: Buffer): SimKey {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const peerKey = createPublicKey(privateKey).export({ format: 'jwk' }).x as string;
  return { peerKey, privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string };
}

export function issuerFromSeed(seed: Buffer): IssuerKeys {
  const key = keyFromSeed(seed);
  return { publicKey: key.peerKey, privateKeyPem: key.privateKeyPem };
}

/** Writes the identity into an empty store (the settings `loadOrCreateIdentity` reads). */
export function seedIdentity(storage: StorageEngine, key: SimKey): void {
  storage.write((w) => {
    if (w.setting('peer.key') !== undefined) return;
    w.setSetting('peer.key', key.peerKey);
    w.setSetting('peer.privateKey', key.privateKeyPem);
  });
}
