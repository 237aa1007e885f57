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
 * - 2: replication (messages.ts: subscription, update chunks, acks, errors). Both sides prove
 *   who they are: the dialer's announcement carries a nonce of its own, which the acceptor's
 *   answer signs (a Big Peer with its issuer key, a small peer with its peer key and
 *   certificate). The Big Peer's subscription moves from its announcement to a subscription
 *   message, as every peer's does.
 *   Compatible additions within 2: the Big Peer's reap horizon (`subscription.reaped`, which a
 *   peer that does not know it ignores), and `reconcile` / `reconciled` (messages.ts), sent
 *   only to a peer whose subscription carried `reaped`. Each side's device name (`deviceName`
 *   in both announcements, optional, at most DEVICE_NAME_MAX_LENGTH characters), so that a
 *   direct remote is named from its first session, before its presence document arrives; a
 *   peer that does not know it ignores it.
 */
import type { SignedCertificate } from '../certificate.ts';

export const OUTER_PROTOCOL_VERSION = 2;

/** The longest device name an announcement carries (as a presence document's, presence-document.ts). */
export const DEVICE_NAME_MAX_LENGTH = 100;

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
  /** 32 random bytes (base64url) the acceptor's answer must sign. */
  readonly nonce: string;
  /** The name the peer shows others (its presence document's), when it has one. */
  readonly deviceName?: string;
}

/**
 * The acceptor's answer once it accepted the announcement. A Big Peer proves it holds the
 * issuer key (`proof` signed with it); a small peer shows its certificate and signs with its
 * peer key. Either way over `announceProofText(appID, peerKey, <the dialer's nonce>)`.
 */
export interface AcceptorAnnouncement {
  readonly type: 'announce';
  readonly role: 'big-peer' | 'small-peer';
  readonly peerKey: string;
  readonly appID: string;
  readonly outer_protocol_version: number;
  /** A small peer's certificate; a Big Peer has none (it is the issuer). */
  readonly certificate?: SignedCertificate;
  readonly proof: string;
  /** The name the peer shows others, when it has one. */
  readonly deviceName?: string;
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
  /** More than MAX_ANNOUNCE_FRAME_BYTES came before the announcement was accepted (the standard "message too big"). */
  tooBig: 1009,
} as const;

/**
 * The most a peer may send before its announcement is accepted: one frame of at most this many
 * bytes (the announcement; its certificate is a few KiB). A session accepts frames of up to
 * MAX_SESSION_FRAME_BYTES (messages.ts, 16 MiB) once the announcement is accepted.
 */
export const MAX_ANNOUNCE_FRAME_BYTES = 1024 * 1024;

export type AnnouncementCheck = { readonly ok: true; readonly value: PeerAnnouncement } | { readonly ok: false; readonly reason: string };

const MAX_FIELD_LENGTH = 4096;

function isShortString(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value.length <= MAX_FIELD_LENGTH;
}

/** An announcement's device name, trimmed; undefined when absent or empty. */
function deviceNameOf(v: Record<string, unknown>): { readonly ok: true; readonly value: string | undefined } | { readonly ok: false; readonly reason: string } {
  if (v.deviceName === undefined) return { ok: true, value: undefined };
  if (typeof v.deviceName !== 'string' || v.deviceName.length > DEVICE_NAME_MAX_LENGTH) {
    return { ok: false, reason: `deviceName must be a string of at most ${DEVICE_NAME_MAX_LENGTH} characters` };
  }
  const trimmed = v.deviceName.trim();
  return { ok: true, value: trimmed === '' ? undefined : trimmed };
}

/**
 * Checks the shape of a decoded announcement frame (not the certificate's signature, which the
 * receiver verifies against its trusted issuer). The reason names the first fault found.
 */
export function checkPeerAnnouncement(value: unknown): AnnouncementCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'the announcement is not a JSON object' };
  const v = value as Record<string, unknown>;
  if (v.type !== 'announce') return { ok: false, reason: 'the first message must be {"type": "announce", …}' };
  const version = versionFault(v);
  if (version !== undefined) return { ok: false, reason: version };
  if (!isShortString(v.peerKey)) return { ok: false, reason: 'peerKey must be a non-empty string' };
  if (!isShortString(v.appID)) return { ok: false, reason: 'appID must be a non-empty string' };
  const cert = v.certificate as Record<string, unknown> | null | undefined;
  if (typeof cert !== 'object' || cert === null || typeof cert.claims !== 'string' || typeof cert.signature !== 'string') {
    return { ok: false, reason: 'certificate must be {"claims": "…", "signature": "…"}' };
  }
  if (!isShortString(v.proof)) return { ok: false, reason: 'proof must be the signature of the challenge, a non-empty string' };
  if (!isShortString(v.nonce)) return { ok: false, reason: 'nonce must be a non-empty string for the answer to sign' };
  const deviceName = deviceNameOf(v);
  if (!deviceName.ok) return deviceName;
  return {
    ok: true,
    value: {
      type: 'announce',
      peerKey: v.peerKey,
      appID: v.appID,
      outer_protocol_version: OUTER_PROTOCOL_VERSION,
      certificate: { claims: cert.claims, signature: cert.signature },
      proof: v.proof,
      nonce: v.nonce,
      ...(deviceName.value === undefined ? {} : { deviceName: deviceName.value }),
    },
  };
}

function versionFault(v: Record<string, unknown>): string | undefined {
  if (typeof v.outer_protocol_version !== 'number') return 'outer_protocol_version is missing';
  if (v.outer_protocol_version !== OUTER_PROTOCOL_VERSION) {
    return `outer_protocol_version ${String(v.outer_protocol_version)} is not supported (this peer speaks ${OUTER_PROTOCOL_VERSION})`;
  }
  return undefined;
}

export type AnswerCheck =
  { readonly ok: true; readonly value: AcceptorAnnouncement } | { readonly ok: false; readonly reason: string; readonly version?: true };

/** Checks the shape of the acceptor's answer (its proof is verified by the dialer). */
export function checkAcceptorAnnouncement(value: unknown): AnswerCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'the answer is not a JSON object' };
  const v = value as Record<string, unknown>;
  if (v.type !== 'announce') return { ok: false, reason: 'the answer must be {"type": "announce", …}' };
  const version = versionFault(v);
  if (version !== undefined) return { ok: false, reason: version, version: true };
  if (v.role !== 'big-peer' && v.role !== 'small-peer') return { ok: false, reason: 'role must be "big-peer" or "small-peer"' };
  if (!isShortString(v.peerKey)) return { ok: false, reason: 'peerKey must be a non-empty string' };
  if (!isShortString(v.appID)) return { ok: false, reason: 'appID must be a non-empty string' };
  if (!isShortString(v.proof)) return { ok: false, reason: 'proof must be a non-empty string' };
  let certificate: SignedCertificate | undefined;
  if (v.role === 'small-peer') {
    const cert = v.certificate as Record<string, unknown> | null | undefined;
    if (typeof cert !== 'object' || cert === null || typeof cert.claims !== 'string' || typeof cert.signature !== 'string') {
      return { ok: false, reason: 'a small peer must show its certificate {"claims": "…", "signature": "…"}' };
    }
    certificate = { claims: cert.claims, signature: cert.signature };
  }
  const deviceName = deviceNameOf(v);
  if (!deviceName.ok) return deviceName;
  return {
    ok: true,
    value: {
      type: 'announce',
      role: v.role,
      peerKey: v.peerKey,
      appID: v.appID,
      outer_protocol_version: OUTER_PROTOCOL_VERSION,
      ...(certificate === undefined ? {} : { certificate }),
      proof: v.proof,
      ...(deviceName.value === undefined ? {} : { deviceName: deviceName.value }),
    },
  };
}
