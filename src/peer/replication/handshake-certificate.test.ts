/**
 * The reason an acceptor gives when it refuses an announcement for its certificate: it names
 * what is wrong (claims that cannot be read, no issuer, an issuer that is no key, another
 * issuer's key), never `undefined`, and fits in a close reason (123 bytes).
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SignedCertificate } from '../../shared/certificate.ts';
import { EVERYTHING } from '../../shared/permissions.ts';
import { ANNOUNCE_CLOSE_CODES, OUTER_PROTOCOL_VERSION } from '../../shared/protocol/announce.ts';
import { generateIssuerKeys, signCertificate } from '../auth/certificate.ts';
import { announceProofText, signProof } from '../auth/proof.ts';
import { ManualTimers } from '../time.ts';
import { SessionRefused, acceptHandshake, type LocalCredentials } from './handshake.ts';
import { memoryConnectionPair } from './memory-transport.ts';

const APP = 'test-app';

function peerKeys(): { peerKey: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { peerKey: publicKey.export({ format: 'jwk' }).x as string, privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string };
}

const issuer = generateIssuerKeys();
const bigPeer: LocalCredentials = {
  appID: APP,
  peerKey: peerKeys().peerKey,
  role: 'big-peer',
  sign: (text) => signProof(issuer.privateKeyPem, text),
  certificate: undefined,
  issuerKey: issuer.publicKey,
};

/** The refusal of an announcement by `bigPeer` carrying `certificate`, with a valid proof. */
async function refusalOf(certificate: SignedCertificate): Promise<{ code: number; reason: string }> {
  const key = peerKeys();
  const { dialer, acceptor } = memoryConnectionPair();
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    dialer.listen({
      message: (text) => {
        const { nonce } = JSON.parse(text) as { nonce: string };
        dialer.send(
          JSON.stringify({
            type: 'announce',
            peerKey: key.peerKey,
            appID: APP,
            outer_protocol_version: OUTER_PROTOCOL_VERSION,
            certificate,
            proof: signProof(key.privateKeyPem, announceProofText(APP, key.peerKey, nonce)),
            nonce: 'dialer-nonce',
          }),
        );
      },
      close: (code, reason) => resolve({ code, reason }),
    });
  });
  const refused = await acceptHandshake({ connection: acceptor, local: bigPeer, timers: new ManualTimers() }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(SessionRefused);
  const seen = await closed;
  expect(seen).toEqual({ code: (refused as SessionRefused).code, reason: (refused as SessionRefused).reason });
  return seen;
}

const claims = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('the refusal of a certificate in the announcement', () => {
  const other = generateIssuerKeys();
  const now = new ManualTimers().now();
  const foreign = signCertificate(
    { appID: APP, peerKey: peerKeys().peerKey, userID: 'u', permissions: EVERYTHING, issuer: other.publicKey, issuedAt: now, expiresAt: now + 60_000 },
    other,
  );
  const cases: [string, SignedCertificate, string][] = [
    [
      'claims that are not base64url JSON',
      { claims: 'not*base64url*json', signature: 'x' },
      'bad certificate (invalid): its claims are not base64url-encoded JSON',
    ],
    ['claims that are not an object', { claims: claims([1, 2]), signature: 'x' }, 'bad certificate (invalid): its claims are not a JSON object'],
    ['claims without an issuer', { claims: claims({ v: 1, appID: APP }), signature: 'x' }, 'bad certificate (invalid): it names no issuer'],
    [
      'an issuer that is not a key id',
      { claims: claims({ v: 1, issuer: 42 }), signature: 'x' },
      'bad certificate (invalid): its issuer is not a key id (43 characters of base64url)',
    ],
    [
      'an issuer that is a long string',
      { claims: claims({ v: 1, issuer: 'k'.repeat(5000) }), signature: 'x' },
      'bad certificate (invalid): its issuer is not a key id (43 characters of base64url)',
    ],
    ['another issuer', foreign, `bad certificate (UnknownIssuer): issued by ${other.publicKey}, not by the issuer this peer trusts`],
  ];

  for (const [what, certificate, reason] of cases) {
    it(`names ${what}`, async () => {
      const refused = await refusalOf(certificate);
      expect(refused).toEqual({ code: ANNOUNCE_CLOSE_CODES.unauthorized, reason });
      expect(refused.reason).not.toMatch(/undefined/);
      expect(Buffer.byteLength(refused.reason)).toBeLessThanOrEqual(123);
    });
  }
});
