/**
 * The sync WebSocket endpoint `/_sync/ws` (spec 3.4, 4.4, 9), on the same HTTP(S) server (so
 * `wss` when it serves TLS). A session begins with the small peer's announcement: its peer key,
 * app id, outer protocol version and certificate. The Big Peer verifies the certificate against
 * its own issuer key, the app and the peer key, answers with its announcement and keeps the
 * session open (replication runs on it later). The Big Peer speaks first, a challenge with a
 * nonce that the announcement must sign with the peer key's private key. A refused session is
 * closed with 4400 (malformed or incompatible) or 4401 (certificate or proof), and a reason; a
 * malformed frame ends only its session. One session per peer key: a newer one closes the
 * older with 4409. A session is closed (4401) when its certificate expires.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { BIG_PEER_PATHS } from '../shared/big-peer-api.ts';
import { LOG_EVENTS } from '../shared/log.ts';
import { ANNOUNCE_CLOSE_CODES, OUTER_PROTOCOL_VERSION, checkPeerAnnouncement, type AnnounceChallenge, type BigPeerAnnouncement } from '../shared/protocol/announce.ts';
import { CertificateError, announceProofText, verifyCertificate, verifyProof, type Logger, type Timers } from '../peer/index.ts';
type TimerHandle = ReturnType<Timers['setTimeout']>;

/** The largest frame a peer may send. */
export const MAX_FRAME_BYTES = 1024 * 1024;
/** Sessions waiting for their announcement, in total; beyond that a new one is closed at once (1013). */
export const MAX_PENDING_SESSIONS = 256;
/** Accepted sessions; beyond that an announcement is refused (1013). */
export const MAX_SESSIONS = 10_000;
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Close reasons are at most 123 bytes of UTF-8 (RFC 6455). */
const MAX_REASON_BYTES = 123;

export interface WebSocketEndpointOptions {
  readonly server: Server;
  readonly appID: string;
  /** The Big Peer's own peer key, announced to each small peer. */
  readonly peerKey: string;
  /** The issuer key certificates must be signed with. */
  readonly issuerKey: string;
  readonly timers: Timers;
  readonly logger: Logger;
  /** A peer that has not announced itself by then is closed (default 10 s). */
  readonly announceTimeoutMs?: number;
  /** Default MAX_PENDING_SESSIONS. */
  readonly maxPendingSessions?: number;
  /** Default MAX_SESSIONS. */
  readonly maxSessions?: number;
}

export function closeReason(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_REASON_BYTES) return text;
  // Cut on a character boundary, leaving room for the ellipsis (3 bytes).
  let cut = bytes.subarray(0, MAX_REASON_BYTES - 3).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return `${cut}…`;
}

export class WebSocketEndpoint {
  readonly #options: WebSocketEndpointOptions;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  readonly #sessions = new Set<WebSocket>();
  /** Sessions that have not announced themselves yet. */
  readonly #pending = new Set<WebSocket>();
  /** The accepted session of each peer key. */
  readonly #byPeer = new Map<string, WebSocket>();
  #closing = false;

  constructor(options: WebSocketEndpointOptions) {
    this.#options = options;
    options.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.#upgrade(req, socket, head));
  }

  /** Sessions open now. */
  get sessions(): number {
    return this.#sessions.size;
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const path = URL.parse(req.url ?? '/', 'http://big-peer.invalid')?.pathname ?? '/';
    if (path !== BIG_PEER_PATHS.websocket || this.#closing) {
      const status = this.#closing ? '503 Service Unavailable' : '404 Not Found';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#session(ws, req));
  }

  #session(ws: WebSocket, req: IncomingMessage): void {
    const { timers, logger } = this.#options;
    const remote = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    const refuse = (code: number, reason: string): void => {
      logger.info(LOG_EVENTS.bigPeerSessionRefused, { code, reason, remote });
      ws.close(code, closeReason(reason));
    };
    ws.on('error', (error) => logger.debug(LOG_EVENTS.bigPeerSessionRefused, { code: 1002, reason: error.message, remote }));
    const maxPending = this.#options.maxPendingSessions ?? MAX_PENDING_SESSIONS;
    if (this.#pending.size >= maxPending) {
      // At once: no challenge, no timer, not counted.
      refuse(ANNOUNCE_CLOSE_CODES.busy, `too many sessions waiting for their announcement (${maxPending}); try again later`);
      return;
    }
    this.#sessions.add(ws);
    this.#pending.add(ws);
    let peerKey: string | undefined;
    let expiry: TimerHandle | undefined;
    const nonce = randomBytes(32).toString('base64url');
    const timeoutMs = this.#options.announceTimeoutMs ?? 10_000;
    const timer = timers.setTimeout(() => refuse(ANNOUNCE_CLOSE_CODES.timeout, `no announcement within ${timeoutMs} ms`), timeoutMs);
    ws.on('close', (code, reason) => {
      timers.clearTimeout(timer);
      if (expiry !== undefined) timers.clearTimeout(expiry);
      this.#sessions.delete(ws);
      this.#pending.delete(ws);
      if (peerKey !== undefined) {
        if (this.#byPeer.get(peerKey) === ws) this.#byPeer.delete(peerKey);
        logger.info(LOG_EVENTS.bigPeerSessionClosed, { peer_key: peerKey, code, reason: reason.toString('utf8') });
      }
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (ws.readyState !== ws.OPEN) return;
      let message: unknown;
      try {
        if (isBinary) throw new Error('a binary frame');
        message = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
      } catch {
        refuse(ANNOUNCE_CLOSE_CODES.malformed, peerKey === undefined ? 'the announcement must be a JSON text frame' : 'malformed message: not a JSON text frame');
        return;
      }
      if (peerKey !== undefined) return; // Replication messages: handled once replication exists.
      timers.clearTimeout(timer);
      this.#pending.delete(ws);
      const accepted = this.#check(message, nonce);
      if ('code' in accepted) return refuse(accepted.code, accepted.reason);
      const maxSessions = this.#options.maxSessions ?? MAX_SESSIONS;
      const older = this.#byPeer.get(accepted.peerKey);
      if (older === undefined && this.#byPeer.size >= maxSessions) {
        return refuse(ANNOUNCE_CLOSE_CODES.busy, `too many sessions (${maxSessions}); try again later`);
      }
      if (older !== undefined) {
        logger.info(LOG_EVENTS.bigPeerSessionRefused, { code: ANNOUNCE_CLOSE_CODES.replaced, reason: 'replaced by a newer session', remote });
        older.close(ANNOUNCE_CLOSE_CODES.replaced, 'replaced by a newer session of the same peer key');
      }
      const answer: BigPeerAnnouncement = {
        type: 'announce',
        peerKey: this.#options.peerKey,
        appID: this.#options.appID,
        outer_protocol_version: OUTER_PROTOCOL_VERSION,
        subscription: { everything: true, queries: {} },
      };
      ws.send(JSON.stringify(answer));
      peerKey = accepted.peerKey;
      this.#byPeer.set(peerKey, ws);
      // The session lives no longer than the certificate that opened it.
      const expireAt = accepted.expiresAt;
      const watch = (): void => {
        const left = expireAt - timers.now();
        if (left <= 0) return refuse(ANNOUNCE_CLOSE_CODES.unauthorized, 'certificate expired');
        expiry = timers.setTimeout(watch, Math.min(left, MAX_TIMER_MS)); // Node's timers stop at 2^31 - 1 ms.
      };
      watch();
      logger.info(LOG_EVENTS.bigPeerSessionAccepted, { peer_key: accepted.peerKey, user_id: accepted.userID, remote });
    });
    const challenge: AnnounceChallenge = { type: 'challenge', nonce };
    ws.send(JSON.stringify(challenge));
  }

  /** Checks an announcement: the peer it names, or why the session is refused. */
  #check(message: unknown, nonce: string): { peerKey: string; userID: string; expiresAt: number } | { code: number; reason: string } {
    const { appID, issuerKey, timers } = this.#options;
    const check = checkPeerAnnouncement(message);
    if (!check.ok) return { code: ANNOUNCE_CLOSE_CODES.malformed, reason: check.reason };
    const announcement = check.value;
    const unauthorized = (reason: string): { code: number; reason: string } => ({ code: ANNOUNCE_CLOSE_CODES.unauthorized, reason });
    if (announcement.appID !== appID) return unauthorized(`app ${announcement.appID} is not served here`);
    let claims: ReturnType<typeof verifyCertificate>;
    try {
      claims = verifyCertificate(announcement.certificate, issuerKey, timers.now(), appID);
    } catch (error) {
      return unauthorized(error instanceof CertificateError ? `bad certificate (${error.fault}): ${error.message}` : 'bad certificate: it cannot be read');
    }
    if (claims.peerKey !== announcement.peerKey) return unauthorized('bad certificate: it was issued to another peer key');
    if (!verifyProof(announcement.peerKey, announceProofText(appID, announcement.peerKey, nonce), announcement.proof)) {
      return unauthorized('bad proof: not the signature of the challenge with the private key of peerKey');
    }
    return { peerKey: announcement.peerKey, userID: claims.userID, expiresAt: claims.expiresAt };
  }

  /** Closes every session (1001, going away) and refuses new ones; cuts those still open after `graceMs`. */
  async close(graceMs: number): Promise<void> {
    this.#closing = true;
    const open = [...this.#sessions];
    const { timers } = this.#options;
    await Promise.all(
      open.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            ws.once('close', () => resolve());
            const cut = timers.setTimeout(() => ws.terminate(), graceMs);
            ws.once('close', () => timers.clearTimeout(cut));
            ws.close(1001, 'Big Peer shutting down');
          }),
      ),
    );
    this.#wss.close();
  }
}
