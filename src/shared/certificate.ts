/**
 * The certificate a Big Peer issues to a small peer at login. It names the app, the peer's
 * public key, the user, the permissions and an expiry, and is signed with the Big Peer's
 * Ed25519 key. Peers verify certificates offline against the issuer's public key.
 */
import type { Permissions } from './permissions.ts';

export const CERTIFICATE_VERSION = 1;

export interface CertificateClaims {
  readonly v: typeof CERTIFICATE_VERSION;
  readonly appID: string;
  /** The small peer's public key (base64url), the one it proves it holds. */
  readonly peerKey: string;
  readonly userID: string;
  readonly permissions: Permissions;
  /** The issuer key id: base64url of the Big Peer's Ed25519 public key. */
  readonly issuer: string;
  /** Milliseconds since the epoch. */
  readonly issuedAt: number;
  readonly expiresAt: number;
}

/** As carried and cached: the claims as base64url JSON, and the issuer's signature over that text. */
export interface SignedCertificate {
  readonly claims: string;
  readonly signature: string;
}
