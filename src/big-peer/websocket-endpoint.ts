/**
 * The sync WebSocket endpoint `/_sync/ws` (spec 3.4, 4.4, 9), on the same HTTP(S) server (so
 * `wss` when it serves TLS). A session begins with the small peer's announcement: its peer key,
 * app id, outer protocol version and certificate. The Big Peer verifies the certificate against
 * its own issuer key, the app and the peer key, answers with its announcement and keeps the
 * session open (replication runs on it later). A refused session is closed with 4400 (malformed
 * or incompatible) or 4401 (certificate), and a reason; a malformed frame ends only its session.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { BIG_PEER_PATHS } from '../shared/big-peer-api.ts';
import { LOG_EVENTS } from '../shared/log.ts';
import { ANNOUNCE_CLOSE_CODES, OUTER_PROTOCOL_VERSION, checkPeerAnnouncement, type BigPeerAnnouncement } from '../shared/protocol/announce.ts';
import { CertificateError, verifyCertificate, type Logger, type Timers } from '../peer/index.ts';

/** The largest frame a peer may send. */
export const MAX_FRAME_BYTES = 1024 * 1024;
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
    this.#sessions.add(ws);
    let peerKey: string | undefined;
    const refuse = (code: number, reason: string): void => {
      logger.info(LOG_EVENTS.bigPeerSessionRefused, { code, reason, remote });
      ws.close(code, closeReason(reason));
    };
    const timeoutMs = this.#options.announceTimeoutMs ?? 10_000;
    const timer = timers.setTimeout(() => refuse(ANNOUNCE_CLOSE_CODES.timeout, `no announcement within ${timeoutMs} ms`), timeoutMs);
    // A malformed frame: ws reports it here and closes this session (1002 and the like).
    ws.on('error', (error) => logger.debug(LOG_EVENTS.bigPeerSessionRefused, { code: 1002, reason: error.message, remote }));
    ws.on('close', (code, reason) => {
      timers.clearTimeout(timer);
      this.#sessions.delete(ws);
      if (peerKey !== undefined) logger.info(LOG_EVENTS.bigPeerSessionClosed, { peer_key: peerKey, code, reason: reason.toString('utf8') });
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
      const accepted = this.#check(message);
      if ('code' in accepted) return refuse(accepted.code, accepted.reason);
      const answer: BigPeerAnnouncement = {
        type: 'announce',
        peerKey: this.#options.peerKey,
        appID: this.#options.appID,
        outer_protocol_version: OUTER_PROTOCOL_VERSION,
        subscription: { everything: true, queries: {} },
      };
      ws.send(JSON.stringify(answer));
      peerKey = accepted.peerKey;
      logger.info(LOG_EVENTS.bigPeerSessionAccepted, { peer_key: accepted.peerKey, user_id: accepted.userID, remote });
    });
  }

  /** Checks an announcement: the peer it names, or why the session is refused. */
  #check(message: unknown): { peerKey: string; userID: string } | { code: number; reason: string } {
    const { appID, issuerKey, timers } = this.#options;
    const check = checkPeerAnnouncement(message);
    if (!check.ok) return { code: ANNOUNCE_CLOSE_CODES.malformed, reason: check.reason };
    const announcement = check.value;
    const unauthorized = (reason: string): { code: number; reason: string } => ({ code: ANNOUNCE_CLOSE_CODES.unauthorized, reason });
    if (announcement.appID !== appID) return unauthorized(`app ${announcement.appID} is not served here`);
    try {
      const claims = verifyCertificate(announcement.certificate, issuerKey, timers.now(), appID);
      if (claims.peerKey !== announcement.peerKey) return unauthorized('bad certificate: it was issued to another peer key');
      return { peerKey: announcement.peerKey, userID: claims.userID };
    } catch (error) {
      return unauthorized(error instanceof CertificateError ? `bad certificate (${error.fault}): ${error.message}` : 'bad certificate: it cannot be read');
    }
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
