/**
 * The first message of each side of a sync WebSocket (spec sections 3.4 and 9): the peer
 * announces itself, its app and the outer protocol version, and (a small peer) the certificate
 * the Big Peer issued it. The Big Peer answers with its own announcement and its subscription.
 *
 * Protocol versions, one line per bump:
 * - 1: the announcement exchange; a session that fails it is closed with a code below. The
 *   Big Peer speaks first: a challenge with a fresh nonce, which the small peer's announcement
 *   signs with the private key of its peer key (`proof`), so that a certificate alone (shown
 *   to other peers) does not open a session.
 */
import type { SignedCertificate } from '../certificate.ts';
import type { SubscriptionSetShape } from '../subscriptions.ts';

export const OUTER_PROTOCOL_VERSION = 1;

/** The Big Peer's first frame on a new session: the nonce the announcement must sign. */
export interface AnnounceChallenge {
  readonly type: 'challenge';
  /** 32 random bytes, base64url. */
  readonly nonce: string;
}

/** A small peer's announcement, the first frame it sends (a JSON text frame). */
export interface PeerAnnouncement {
  readonly type: 'announce';
  /** The announcing peer's public key (base64url); it must be the one its certificate names. */
  readonly peerKey: string;
  readonly appID: string;
  readonly outer_protocol_version: number;
  readonly certificate: SignedCertificate;
  /**
   * The Ed25519 signature (base64url) of `announceProofText(appID, peerKey, nonce)`
   * (src/peer/auth/proof.ts) with the private key of `peerKey`, over the challenge's nonce.
   */
  readonly proof: string;
}

/** The Big Peer's answer once it accepted the small peer's announcement. */
export interface BigPeerAnnouncement {
  readonly type: 'announce';
  readonly peerKey: string;
  readonly appID: string;
  readonly outer_protocol_version: number;
  /** The Big Peer's subscription: everything, with no per-collection queries. */
  readonly subscription: SubscriptionSetShape;
}

/** WebSocket close codes of a refused session (4000–4999 is the application range). */
export const ANNOUNCE_CLOSE_CODES = {
  /** The frame is not an announcement, is malformed, or has an incompatible protocol version. */
  malformed: 4400,
  /** The certificate is missing, not issued by this Big Peer, expired, or for another app or peer. */
  unauthorized: 4401,
  /** The peer did not announce itself in time. */
  timeout: 4408,
  /** Another session of the same peer key was accepted: this older one is closed. */
  replaced: 4409,
  /** The Big Peer has too many sessions now; try again later (the standard "try again later"). */
  busy: 1013,
} as const;

export type AnnouncementCheck = { readonly ok: true; readonly value: PeerAnnouncement } | { readonly ok: false; readonly reason: string };

const MAX_FIELD_LENGTH = 4096;

function isShortString(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value.length <= MAX_FIELD_LENGTH;
}

/**
 * Checks the shape of a decoded announcement frame (not the certificate's signature, which the
 * receiver verifies against its trusted issuer). The reason names the first fault found.
 */
export function checkPeerAnnouncement(value: unknown): AnnouncementCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'the announcement is not a JSON object' };
  const v = value as Record<string, unknown>;
  if (v.type !== 'announce') return { ok: false, reason: 'the first message must be {"type": "announce", …}' };
  if (typeof v.outer_protocol_version !== 'number') return { ok: false, reason: 'outer_protocol_version is missing' };
  if (v.outer_protocol_version !== OUTER_PROTOCOL_VERSION) {
    return { ok: false, reason: `outer_protocol_version ${String(v.outer_protocol_version)} is not supported (this peer speaks ${OUTER_PROTOCOL_VERSION})` };
  }
  if (!isShortString(v.peerKey)) return { ok: false, reason: 'peerKey must be a non-empty string' };
  if (!isShortString(v.appID)) return { ok: false, reason: 'appID must be a non-empty string' };
  const cert = v.certificate as Record<string, unknown> | null | undefined;
  if (typeof cert !== 'object' || cert === null || typeof cert.claims !== 'string' || typeof cert.signature !== 'string') {
    return { ok: false, reason: 'certificate must be {"claims": "…", "signature": "…"}' };
  }
  if (!isShortString(v.proof)) return { ok: false, reason: 'proof must be the signature of the challenge, a non-empty string' };
  return {
    ok: true,
    value: {
      type: 'announce',
      peerKey: v.peerKey,
      appID: v.appID,
      outer_protocol_version: v.outer_protocol_version,
      certificate: { claims: cert.claims, signature: cert.signature },
      proof: v.proof,
    },
  };
}
