/**
 * The announcement exchange that opens a session (protocol in src/shared/protocol/announce.ts).
 * The acceptor challenges; the dialer announces its peer key, app, protocol version and
 * certificate, signs the challenge and sends a challenge of its own; the acceptor answers,
 * signing that one: a Big Peer with its issuer key, a small peer with its peer key beside its
 * certificate. Each side checks the other against the issuer key it trusts, offline. A refusal
 * closes the connection with a code and a reason that both sides log.
 */
import { randomBytes } from 'node:crypto';
import { EVERYTHING, type Permissions } from '../../shared/permissions.ts';
import type { SignedCertificate } from '../../shared/certificate.ts';
import {
  ANNOUNCE_CLOSE_CODES,
  OUTER_PROTOCOL_VERSION,
  checkAcceptorAnnouncement,
  checkPeerAnnouncement,
  type AcceptorAnnouncement,
  type AnnounceChallenge,
  type PeerAnnouncement,
} from '../../shared/protocol/announce.ts';
import { CertificateError, verifyCertificate } from '../auth/certificate.ts';
import { announceProofText, verifyProof } from '../auth/proof.ts';
import type { Timers } from '../time.ts';
import type { Connection } from './connection.ts';
import { ConnectionClosed, FrameQueue } from './frame-queue.ts';

/** Who this peer is, to the peers it meets. */
export interface LocalCredentials {
  readonly appID: string;
  readonly peerKey: string;
  readonly role: 'big-peer' | 'small-peer';
  /** Signs a proof: a small peer with its peer key, a Big Peer with its issuer key. */
  sign(text: string): string;
  /** A small peer's certificate (none before its first login). */
  readonly certificate: SignedCertificate | undefined;
  /** The issuer whose certificates this peer trusts (a Big Peer: its own). */
  readonly issuerKey: string;
  /** The name this peer shows others, sent in its announcement; undefined: none. */
  readonly deviceName?: string | undefined;
}

/** The peer at the other end, once it proved who it is. */
export interface RemotePeer {
  readonly peerKey: string;
  readonly role: 'big-peer' | 'small-peer';
  readonly appID: string;
  /** What the remote may read from and write to this peer. */
  readonly permissions: Permissions;
  readonly userID: string | undefined;
  /** When its certificate expires (ms); a Big Peer's proof does not expire. */
  readonly expiresAt: number | undefined;
  /** The name it announced (unverified, as its presence document is); undefined: none. */
  readonly deviceName?: string | undefined;
}

/** The session was refused, by this side (`byRemote` false) or by the other. */
export class SessionRefused extends Error {
  readonly code: number;
  readonly reason: string;
  readonly byRemote: boolean;
  constructor(code: number, reason: string, byRemote: boolean) {
    super(`${byRemote ? 'refused by the remote peer' : 'refused'} (${code}): ${reason}`);
    this.code = code;
    this.reason = reason;
    this.byRemote = byRemote;
  }
}

export interface HandshakeOptions {
  readonly connection: Connection;
  readonly local: LocalCredentials;
  readonly timers: Timers;
  /** Bound on the whole exchange (default 10 s). */
  readonly timeoutMs?: number;
}

export interface Handshaken {
  readonly remote: RemotePeer;
  /** The connection's later frames, to hand to the session. */
  readonly frames: FrameQueue;
}

function nonce(): string {
  return randomBytes(32).toString('base64url');
}

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function withTimeout<T>(options: HandshakeOptions, work: Promise<T>): Promise<T> {
  const ms = options.timeoutMs ?? 10_000;
  let timer: ReturnType<Timers['setTimeout']> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = options.timers.setTimeout(() => reject(new SessionRefused(ANNOUNCE_CLOSE_CODES.timeout, `no announcement within ${ms} ms`, false)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    if (timer !== undefined) options.timers.clearTimeout(timer);
  }
}

/** Runs `exchange`; a refusal of ours closes the connection, one of the remote's is reported as such. */
async function guarded(options: HandshakeOptions, frames: FrameQueue, exchange: () => Promise<RemotePeer>): Promise<Handshaken> {
  try {
    const remote = await withTimeout(options, exchange());
    return { remote, frames };
  } catch (error) {
    // The transport closed it for what the remote sent before it was accepted: our refusal.
    const own = options.connection.refusal;
    if (error instanceof ConnectionClosed && own !== undefined) throw new SessionRefused(own.code, own.reason, false);
    if (error instanceof ConnectionClosed)
      throw new SessionRefused(error.code, error.reason === '' ? 'the connection closed during the announcement' : error.reason, true);
    if (error instanceof SessionRefused) {
      options.connection.close(error.code, error.reason);
      throw error;
    }
    options.connection.close(ANNOUNCE_CLOSE_CODES.malformed, 'internal error during the announcement');
    throw error;
  }
}

const refuse = (code: number, reason: string): never => {
  throw new SessionRefused(code, reason, false);
};

/** An Ed25519 public key as an issuer key id: 32 bytes, base64url. */
const KEY_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * What is wrong with the issuer of a certificate, said so that it fits a close reason with the
 * issuer's key id: claims that cannot be read, no issuer, one that is no key id, another key
 * than `trusted`. Undefined when it names `trusted`.
 */
function issuerFault(certificate: SignedCertificate, trusted: string): string | undefined {
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(certificate.claims, 'base64url').toString('utf8'));
  } catch {
    return 'bad certificate (invalid): its claims are not base64url-encoded JSON';
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return 'bad certificate (invalid): its claims are not a JSON object';
  const issuer = (claims as { issuer?: unknown }).issuer;
  if (issuer === undefined || issuer === null || issuer === '') return 'bad certificate (invalid): it names no issuer';
  if (typeof issuer !== 'string' || !KEY_ID.test(issuer)) return 'bad certificate (invalid): its issuer is not a key id (43 characters of base64url)';
  if (issuer !== trusted) return `bad certificate (UnknownIssuer): issued by ${issuer}, not by the issuer this peer trusts`;
  return undefined;
}

/** Checks a small peer's certificate and proof; what it may do, or a refusal. */
function verifySmallPeer(local: LocalCredentials, now: number, peerKey: string, certificate: SignedCertificate, text: string, proof: string): RemotePeer {
  const fault = issuerFault(certificate, local.issuerKey);
  if (fault !== undefined) return refuse(ANNOUNCE_CLOSE_CODES.unauthorized, fault);
  let claims;
  try {
    claims = verifyCertificate(certificate, local.issuerKey, now, local.appID);
  } catch (error) {
    return refuse(
      ANNOUNCE_CLOSE_CODES.unauthorized,
      error instanceof CertificateError ? `bad certificate (${error.fault}): ${error.message}` : 'bad certificate: it cannot be read',
    );
  }
  if (claims.peerKey !== peerKey) return refuse(ANNOUNCE_CLOSE_CODES.unauthorized, 'bad certificate: it was issued to another peer key');
  if (!verifyProof(peerKey, text, proof))
    return refuse(ANNOUNCE_CLOSE_CODES.unauthorized, 'bad proof: not the signature of the challenge with the private key of peerKey');
  return { peerKey, role: 'small-peer', appID: claims.appID, permissions: claims.permissions, userID: claims.userID, expiresAt: claims.expiresAt };
}

/** The accepting side: challenge, check the announcement, answer. */
export function acceptHandshake(options: HandshakeOptions): Promise<Handshaken> {
  const { connection, local, timers } = options;
  const frames = new FrameQueue(connection);
  return guarded(options, frames, async () => {
    const challenge = nonce();
    connection.send(JSON.stringify({ type: 'challenge', nonce: challenge } satisfies AnnounceChallenge));
    const frame = json(await frames.next());
    if (frame === undefined) return refuse(ANNOUNCE_CLOSE_CODES.malformed, 'the announcement must be a JSON text frame');
    const check = checkPeerAnnouncement(frame);
    if (!check.ok) return refuse(ANNOUNCE_CLOSE_CODES.malformed, check.reason);
    const a = check.value;
    if (a.appID !== local.appID) return refuse(ANNOUNCE_CLOSE_CODES.unauthorized, `app ${a.appID} is not served here`);
    if (a.peerKey === local.peerKey) return refuse(ANNOUNCE_CLOSE_CODES.malformed, 'a peer cannot connect to itself');
    const verified = verifySmallPeer(local, timers.now(), a.peerKey, a.certificate, announceProofText(local.appID, a.peerKey, challenge), a.proof);
    const remote: RemotePeer = a.deviceName === undefined ? verified : { ...verified, deviceName: a.deviceName };
    if (local.role === 'small-peer' && local.certificate === undefined) {
      return refuse(ANNOUNCE_CLOSE_CODES.unauthorized, 'this peer has no certificate yet: it must reach the Big Peer once');
    }
    // Accepted: from here the remote may send what a session may (the transport's limits lift).
    connection.authenticated?.();
    const answer: AcceptorAnnouncement = {
      type: 'announce',
      role: local.role,
      peerKey: local.peerKey,
      appID: local.appID,
      outer_protocol_version: OUTER_PROTOCOL_VERSION,
      ...(local.role === 'small-peer' && local.certificate !== undefined ? { certificate: local.certificate } : {}),
      proof: local.sign(announceProofText(local.appID, local.peerKey, a.nonce)),
      ...(local.deviceName === undefined ? {} : { deviceName: local.deviceName }),
    };
    connection.send(JSON.stringify(answer));
    return remote;
  });
}

/** The dialing side: answer the challenge with the announcement, then check the acceptor's answer. */
export function dialHandshake(options: HandshakeOptions): Promise<Handshaken> {
  const { connection, local, timers } = options;
  const frames = new FrameQueue(connection);
  return guarded(options, frames, async () => {
    const first = json(await frames.next()) as Partial<AnnounceChallenge> | undefined;
    if (first?.type !== 'challenge' || typeof first.nonce !== 'string' || first.nonce === '' || first.nonce.length > 4096) {
      return refuse(ANNOUNCE_CLOSE_CODES.malformed, 'the first message must be {"type": "challenge", "nonce": "…"}');
    }
    if (local.certificate === undefined) return refuse(ANNOUNCE_CLOSE_CODES.unauthorized, 'this peer has no certificate yet');
    const mine = nonce();
    const announcement: PeerAnnouncement = {
      type: 'announce',
      peerKey: local.peerKey,
      appID: local.appID,
      outer_protocol_version: OUTER_PROTOCOL_VERSION,
      certificate: local.certificate,
      proof: local.sign(announceProofText(local.appID, local.peerKey, first.nonce)),
      nonce: mine,
      ...(local.deviceName === undefined ? {} : { deviceName: local.deviceName }),
    };
    connection.send(JSON.stringify(announcement));
    const check = checkAcceptorAnnouncement(json(await frames.next()));
    if (!check.ok) return refuse(ANNOUNCE_CLOSE_CODES.malformed, check.reason);
    const answer = check.value;
    if (answer.appID !== local.appID) return refuse(ANNOUNCE_CLOSE_CODES.unauthorized, `the remote serves app ${answer.appID}, not ${local.appID}`);
    const text = announceProofText(local.appID, answer.peerKey, mine);
    if (answer.role === 'big-peer') {
      if (!verifyProof(local.issuerKey, text, answer.proof)) {
        return refuse(ANNOUNCE_CLOSE_CODES.unauthorized, 'UnknownIssuer: the Big Peer did not prove it holds the issuer key this peer trusts');
      }
      return {
        peerKey: answer.peerKey,
        role: 'big-peer',
        appID: answer.appID,
        permissions: EVERYTHING,
        userID: undefined,
        expiresAt: undefined,
        ...(answer.deviceName === undefined ? {} : { deviceName: answer.deviceName }),
      };
    }
    const verified = verifySmallPeer(local, timers.now(), answer.peerKey, answer.certificate as SignedCertificate, text, answer.proof);
    return answer.deviceName === undefined ? verified : { ...verified, deviceName: answer.deviceName };
  });
}
