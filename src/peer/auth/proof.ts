/**
 * Proof that a peer holds the private key of the peer key it names: an Ed25519 signature over
 * a text that binds the purpose, the app, the key and something fresh (a timestamp the server
 * checks, or a nonce the server chose). A certificate alone is not enough anywhere: it is shown
 * to other peers, so only the holder of the key may use it.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** How far a login proof's timestamp may be from the server's clock. */
export const LOGIN_PROOF_WINDOW_MS = 5 * 60_000;

export function loginProofText(appID: string, peerKey: string, timestamp: number): string {
  return `syncmesh-login\n${appID}\n${peerKey}\n${timestamp}`;
}

export function announceProofText(appID: string, peerKey: string, nonce: string): string {
  return `syncmesh-announce\n${appID}\n${peerKey}\n${nonce}`;
}

/** A peer key is the base64url of a 32-byte Ed25519 public key. */
export function peerKeyObject(peerKey: string): KeyObject | undefined {
  if (typeof peerKey !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(peerKey)) return undefined;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: peerKey }, format: 'jwk' });
  } catch {
    return undefined;
  }
}

export function signProof(privateKeyPem: string, text: string): string {
  return sign(null, Buffer.from(text, 'utf8'), createPrivateKey(privateKeyPem)).toString('base64url');
}

/** Is `signature` the peer key's signature over `text`? False for a malformed key or signature. */
export function verifyProof(peerKey: string, text: string, signature: unknown): boolean {
  const key = peerKeyObject(peerKey);
  if (key === undefined || typeof signature !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(signature)) return false;
  try {
    return verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}
