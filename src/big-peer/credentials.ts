/**
 * Who may call `/api/v4/*`: the bearer of an API key (`Authorization: Bearer smk_…`), or a small
 * peer presenting the certificate it got at login (`Authorization: Bearer <claims>.<signature>`),
 * with the permissions the certificate names. A certificate from another issuer, of another
 * app or expired is 401.
 */
import { CertificateError, verifyCertificate, type Timers } from '../peer/index.ts';
import { API_KEY_PREFIX, type ApiKeys, type Principal } from './api-keys.ts';
import { HttpError } from './http-error.ts';

export interface Authenticator {
  /** @throws HttpError 401 when the header names no valid credential. */
  authenticate(authorization: string | undefined): Principal;
}

export function credentials(options: { apiKeys: ApiKeys; issuerKey: string; appID: string; timers: Timers }): Authenticator {
  return {
    authenticate(authorization) {
      const token = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
      const parts = token?.split('.');
      if (token === undefined || token.startsWith(API_KEY_PREFIX) || parts?.length !== 2) return options.apiKeys.authenticate(authorization);
      try {
        const claims = verifyCertificate({ claims: parts[0] as string, signature: parts[1] as string }, options.issuerKey, options.timers.now(), options.appID);
        return { keyId: `peer:${claims.peerKey}`, permissions: claims.permissions };
      } catch (error) {
        if (error instanceof CertificateError) throw new HttpError(401, 'http/unauthorized', `the certificate is not accepted: ${error.message}`);
        throw error;
      }
    },
  };
}

/** The bearer token of a certificate, as a small peer sends it. */
export function certificateToken(certificate: { readonly claims: string; readonly signature: string }): string {
  return `${certificate.claims}.${certificate.signature}`;
}
