/**
 * Which of Node's TLS errors get the spec's names (section 7), found wherever Node put them:
 * on the error itself (https, ws) or in its causes (fetch's `fetch failed`).
 */
import { describe, expect, it } from 'vitest';
import { tlsFailureOf } from './tls-failure.ts';

function nodeError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('tlsFailureOf', () => {
  it.each([
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'],
    ['UNABLE_TO_GET_ISSUER_CERT', 'unable to get issuer certificate'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'unable to get local issuer certificate'],
    ['CERT_UNTRUSTED', 'certificate not trusted'],
  ])('names %s UnknownIssuer and keeps Node’s words', (code, message) => {
    expect(tlsFailureOf(nodeError(code, message))).toMatchObject({ name: 'UnknownIssuer', code, error: message });
  });

  it('names the unhandled critical extension (OpenSSL X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION, which Node codes UNSPECIFIED) by its words', () => {
    expect(tlsFailureOf(nodeError('UNSPECIFIED', 'unhandled critical extension'))).toMatchObject({
      name: 'webpki error: UnsupportedCriticalExtension',
      code: 'UNSPECIFIED',
      error: 'unhandled critical extension',
    });
    // Should Node one day give it its OpenSSL name.
    expect(tlsFailureOf(nodeError('UNHANDLED_CRITICAL_EXTENSION', 'unhandled critical extension'))?.name).toBe('webpki error: UnsupportedCriticalExtension');
  });

  it('finds the error in the causes of fetch’s `fetch failed`', () => {
    const failed = new TypeError('fetch failed', { cause: nodeError('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain') });
    expect(tlsFailureOf(failed)).toMatchObject({ name: 'UnknownIssuer', code: 'SELF_SIGNED_CERT_IN_CHAIN' });
  });

  it('leaves other failures alone', () => {
    expect(tlsFailureOf(nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'))).toBeUndefined();
    expect(tlsFailureOf(nodeError('CERT_HAS_EXPIRED', 'certificate has expired'))).toBeUndefined();
    expect(tlsFailureOf(nodeError('UNSPECIFIED', 'something else'))).toBeUndefined();
    expect(tlsFailureOf('not an error')).toBeUndefined();
  });
});
