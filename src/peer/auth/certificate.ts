/**
 * Signing and verifying certificates (Ed25519, node:crypto). The Big Peer signs at login; every
 * peer verifies offline against the issuer key it cached: a certificate from another issuer is
 * `UnknownIssuer`, a tampered one `invalid`, an old one `expired`.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { CERTIFICATE_VERSION, type CertificateClaims, type SignedCertificate } from '../../shared/certificate.ts';
import { SyncError } from '../errors.ts';

/** Why a certificate is not accepted. `UnknownIssuer` is the spec's word (section 7). */
export type CertificateFault = 'UnknownIssuer' | 'expired' | 'invalid' | 'wrong-app';

export class CertificateError extends SyncError {
  readonly fault: CertificateFault;
  constructor(fault: CertificateFault, message: string) {
    super('auth/certificate-invalid', message, { details: { fault } });
    this.fault = fault;
  }
}

/** An Ed25519 key pair as kept in a store: the public key as base64url (its id), the private key as PEM. */
export interface IssuerKeys {
  readonly publicKey: string;
  readonly privateKeyPem: string;
}

export function generateIssuerKeys(): IssuerKeys {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { publicKey: publicKey.export({ format: 'jwk' }).x as string, privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string };
}

function publicKeyObject(base64url: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: base64url }, format: 'jwk' });
}

/** Signs claims with the issuer's private key. */
export function signCertificate(claims: Omit<CertificateClaims, 'v'>, issuer: IssuerKeys): SignedCertificate {
  const text = Buffer.from(JSON.stringify({ v: CERTIFICATE_VERSION, ...claims })).toString('base64url');
  const signature = sign(null, Buffer.from(text), createPrivateKey(issuer.privateKeyPem)).toString('base64url');
  return { claims: text, signature };
}

/** Reads the claims without checking anything (to show a certificate, or to find its issuer). */
export function readClaims(cert: SignedCertificate): CertificateClaims {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cert.claims, 'base64url').toString('utf8'));
  } catch {
    throw new CertificateError('invalid', 'the certificate cannot be read');
  }
  // `null`, a number, a string or an array is no set of claims: refused here, not a TypeError later.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CertificateError('invalid', 'the certificate claims are not a JSON object');
  }
  return value as CertificateClaims;
}

/**
 * The claims of a certificate, once it is proven signed by the trusted issuer, unexpired and of
 * the expected app.
 */
export function verifyCertificate(cert: SignedCertificate, trustedIssuer: string, now: number, appID?: string): CertificateClaims {
  if (typeof cert?.claims !== 'string' || typeof cert.signature !== 'string') throw new CertificateError('invalid', 'the certificate is malformed');
  const claims = readClaims(cert);
  if (typeof claims.issuer !== 'string' || claims.issuer === '') throw new CertificateError('invalid', 'the certificate names no issuer');
  if (claims.issuer !== trustedIssuer) {
    // The issuer is the remote's text: cut, so that a log line or close reason stays short.
    const issuer = claims.issuer.length > 64 ? `${claims.issuer.slice(0, 64)}…` : claims.issuer;
    throw new CertificateError('UnknownIssuer', `the certificate was issued by ${issuer}, not by the Big Peer this peer trusts (UnknownIssuer)`);
  }
  let valid: boolean;
  try {
    valid = verify(null, Buffer.from(cert.claims), publicKeyObject(trustedIssuer), Buffer.from(cert.signature, 'base64url'));
  } catch {
    valid = false;
  }
  if (!valid || claims.v !== CERTIFICATE_VERSION) throw new CertificateError('invalid', 'the certificate signature does not verify');
  if (claims.expiresAt <= now) throw new CertificateError('expired', `the certificate expired at ${new Date(claims.expiresAt).toISOString()}`);
  if (appID !== undefined && claims.appID !== appID) throw new CertificateError('wrong-app', `the certificate is for app ${claims.appID}, not ${appID}`);
  return claims;
}
