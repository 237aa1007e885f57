import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loginProofText, peerKeyObject, signProof, verifyProof } from './proof.ts';

function keys() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { peerKey: publicKey.export({ format: 'jwk' }).x as string, pem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string };
}

describe('proofs of holding a peer key', () => {
  it('verify for the key that signed, and for nothing else', () => {
    const a = keys();
    const b = keys();
    const text = loginProofText('app', a.peerKey, 1000);
    const signature = signProof(a.pem, text);
    expect(verifyProof(a.peerKey, text, signature)).toBe(true);
    expect(verifyProof(b.peerKey, text, signature)).toBe(false);
    expect(verifyProof(a.peerKey, loginProofText('app', a.peerKey, 1001), signature)).toBe(false);
    expect(verifyProof(a.peerKey, text, 'x')).toBe(false);
  });

  it('refuse a peer key that is not an Ed25519 public key', () => {
    expect(peerKeyObject('VICTIM-PEER-KEY-of-someone-else')).toBeUndefined();
    expect(peerKeyObject('A'.repeat(8000))).toBeUndefined();
    expect(peerKeyObject(keys().peerKey)).toBeDefined();
  });
});
