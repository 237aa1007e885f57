import { describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../shared/permissions.ts';
import { CertificateError, generateIssuerKeys, readClaims, signCertificate, verifyCertificate } from './certificate.ts';

const issuer = generateIssuerKeys();
const now = Date.UTC(2026, 10, 21);
const claims = { appID: 'app', peerKey: 'pk', userID: 'u1', permissions: EVERYTHING, issuer: issuer.publicKey, issuedAt: now, expiresAt: now + 3_600_000 };

function fault(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof CertificateError) return error.fault;
    throw error;
  }
  return undefined;
}

describe('certificates', () => {
  it('verify when signed by the trusted issuer, unexpired and of the app', () => {
    const cert = signCertificate(claims, issuer);
    expect(verifyCertificate(cert, issuer.publicKey, now + 1, 'app')).toMatchObject({ appID: 'app', peerKey: 'pk', userID: 'u1', v: 1 });
  });

  it('refuse a certificate from another issuer as UnknownIssuer', () => {
    const other = generateIssuerKeys();
    const cert = signCertificate({ ...claims, issuer: other.publicKey }, other);
    expect(fault(() => verifyCertificate(cert, issuer.publicKey, now))).toBe('UnknownIssuer');
  });

  it('say a certificate names no issuer rather than "issued by undefined", and cut a long one', () => {
    const { issuer: _dropped, ...withoutIssuer } = claims;
    const cert = { claims: Buffer.from(JSON.stringify(withoutIssuer)).toString('base64url'), signature: 'x' };
    expect(() => verifyCertificate(cert, issuer.publicKey, now)).toThrow('the certificate names no issuer');
    const long = { claims: Buffer.from(JSON.stringify({ ...claims, issuer: 'k'.repeat(5000) })).toString('base64url'), signature: 'x' };
    let message = '';
    try {
      verifyCertificate(long, issuer.publicKey, now);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^the certificate was issued by k{64}…, not by the Big Peer/);
  });

  it('refuse a certificate whose claims were changed after signing', () => {
    const cert = signCertificate(claims, issuer);
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(cert.claims, 'base64url').toString()), userID: 'admin' })).toString('base64url');
    expect(fault(() => verifyCertificate({ claims: forged, signature: cert.signature }, issuer.publicKey, now))).toBe('invalid');
  });

  it('refuse an expired certificate and one of another app', () => {
    const cert = signCertificate(claims, issuer);
    expect(fault(() => verifyCertificate(cert, issuer.publicKey, now + 3_600_000))).toBe('expired');
    expect(fault(() => verifyCertificate(cert, issuer.publicKey, now, 'other'))).toBe('wrong-app');
    expect(fault(() => verifyCertificate({ claims: '!!', signature: '' }, issuer.publicKey, now))).toBe('invalid');
  });

  it('refuse claims that are not a JSON object (null, a number, a string, an array) as invalid, never a TypeError', () => {
    for (const text of ['null', '1', '"text"', '[]', 'true']) {
      const cert = { claims: Buffer.from(text).toString('base64url'), signature: 'sig' };
      expect(
        fault(() => readClaims(cert)),
        text,
      ).toBe('invalid');
      expect(
        fault(() => verifyCertificate(cert, issuer.publicKey, now)),
        text,
      ).toBe('invalid');
    }
  });
});
