/**
 * The peer's identity: an Ed25519 key pair made on first open and kept in the store. The public
 * key (base64url, 43 characters) is the peer key that names this peer as a writer in merge
 * metadata and, later, in certificates and replication.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { StorageEngine } from '../storage/types.ts';

export interface PeerIdentity {
  readonly peerKey: string;
  readonly privateKeyPem: string;
}

const KEY = 'peer.key';
const PRIVATE_KEY = 'peer.privateKey';

export function loadOrCreateIdentity(storage: StorageEngine): PeerIdentity {
  const existing = storage.read((r) => ({ peerKey: r.setting(KEY), privateKeyPem: r.setting(PRIVATE_KEY) }));
  if (existing.peerKey !== undefined && existing.privateKeyPem !== undefined) {
    return { peerKey: existing.peerKey, privateKeyPem: existing.privateKeyPem };
  }
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const made = { peerKey: publicKey.export({ format: 'jwk' }).x as string, privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string };
  // Inside the write transaction: where several processes share the store (Big Peer nodes on one
  // PostgreSQL database), the first to write makes the identity and the others take it.
  return storage.write((w) => {
    const peerKey = w.setting(KEY);
    const privateKeyPem = w.setting(PRIVATE_KEY);
    if (peerKey !== undefined && privateKeyPem !== undefined) return { peerKey, privateKeyPem };
    w.setSetting(KEY, made.peerKey);
    w.setSetting(PRIVATE_KEY, made.privateKeyPem);
    return made;
  });
}
