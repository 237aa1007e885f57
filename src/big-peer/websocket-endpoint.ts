/**
 * The sync WebSocket endpoint `/_sync/ws` (spec 3.4, 4.4, 9), on the same HTTP(S) server (so
 * `wss` when it serves TLS). Each connection is handed to the Big Peer's Sync, which runs the
 * announcement exchange (the small peer's certificate and proof against this Big Peer's issuer
 * key; this Big Peer's proof with that key) and then the replication session. Here: the limits
 * (sessions waiting for their announcement, sessions in all), a session's end when its
 * certificate expires (4401), and the Big Peer's own log lines. One session per peer key: the
 * replicator elects the newer connection and closes the older with 4409.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BIG_PEER_PATHS } from '../shared/big-peer-api.ts';
import { LOG_EVENTS } from '../shared/log.ts';
import { ANNOUNCE_CLOSE_CODES } from '../shared/protocol/announce.ts';
import { MAX_SESSION_FRAME_BYTES } from '../shared/protocol/messages.ts';
import { SessionRefused, WsConnection, closeReason, type Logger, type Sync, type Timers } from '../peer/index.ts';


/** Sessions waiting for their announcement, in total; beyond that a new one is closed at once (1013). */
export const MAX_PENDING_SESSIONS = 256;
/** Accepted sessions; beyond that an announcement is refused (1013). */
export const MAX_SESSIONS = 10_000;

/** Told of every session the endpoint opens, and of its end (the Big Peer's metrics). */
export interface SessionObserver {
  opened(): void;
  ended(code: number): void;
}

/** The reason of the 1001 that closes the sessions when the Big Peer stops. */
export const SHUTDOWN_CLOSE_REASON = 'Big Peer shutting down';

export interface WebSocketEndpointOptions {
  readonly server: Server;
  /** The Big Peer's Sync, serving as the Big Peer (`serveAsBigPeer`). */
  readonly sync: Sync;
  readonly timers: Timers;
  readonly logger: Logger;
  /** Default MAX_PENDING_SESSIONS. */
  readonly maxPendingSessions?: number;
  /** Default MAX_SESSIONS. */
  readonly maxSessions?: number;
  readonly observer?: SessionObserver;
}

export class WebSocketEndpoint {
  readonly #options: WebSocketEndpointOptions;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_SESSION_FRAME_BYTES, perMessageDeflate: false });
  readonly #sessions = new Set<WebSocket>();
  /** Sessions that have not announced themselves yet. */
  readonly #pending = new Set<WebSocket>();
  /** Accepted sessions by peer key. */
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

  /** Peers with an accepted session (announced) now. */
  get peers(): number {
    return this.#byPeer.size;
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
    const { logger, sync } = this.#options;
    const remote = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    const connection = new WsConnection(ws, 'WsServer', remote);
    ws.on('error', (error) => logger.debug(LOG_EVENTS.bigPeerSessionRefused, { code: 1002, reason: error.message, remote }));
    const maxPending = this.#options.maxPendingSessions ?? MAX_PENDING_SESSIONS;
    if (this.#pending.size >= maxPending) {
      // At once: no challenge, no timer, not counted.
      const reason = `too many sessions waiting for their announcement (${maxPending}); try again later`;
      logger.info(LOG_EVENTS.bigPeerSessionRefused, { code: ANNOUNCE_CLOSE_CODES.busy, reason, remote });
      ws.close(ANNOUNCE_CLOSE_CODES.busy, closeReason(reason));
      return;
    }
    this.#sessions.add(ws);
    this.#pending.add(ws);
    this.#options.observer?.opened();
    let peerKey: string | undefined;
    ws.on('close', (code, reason) => {
      this.#options.observer?.ended(code);
      this.#sessions.delete(ws);
      this.#pending.delete(ws);
      if (peerKey !== undefined) {
        if (this.#byPeer.get(peerKey) === ws) this.#byPeer.delete(peerKey);
        logger.info(LOG_EVENTS.bigPeerSessionClosed, { peer_key: peerKey, code, reason: reason.toString('utf8') });
      }
    });
    sync.acceptSession(connection).then(
      (session) => {
        this.#pending.delete(ws);
        if (session.isClosed) return; // Lost the election to a connection of the same peer.
        const accepted = session.remote;
        const maxSessions = this.#options.maxSessions ?? MAX_SESSIONS;
        if (!this.#byPeer.has(accepted.peerKey) && this.#byPeer.size >= maxSessions) {
          const reason = `too many sessions (${maxSessions}); try again later`;
          logger.info(LOG_EVENTS.bigPeerSessionRefused, { code: ANNOUNCE_CLOSE_CODES.busy, reason, remote });
          session.close(ANNOUNCE_CLOSE_CODES.busy, reason);
          return;
        }
        peerKey = accepted.peerKey;
        this.#byPeer.set(peerKey, ws);
        // The session lives no longer than the certificate that opened it: the replicator ends it
        // (4401 `certificate expired`), as on every peer.
        logger.info(LOG_EVENTS.bigPeerSessionAccepted, { peer_key: accepted.peerKey, user_id: accepted.userID ?? '', remote });
      },
      (error: unknown) => {
        this.#pending.delete(ws);
        if (error instanceof SessionRefused && !error.byRemote) logger.info(LOG_EVENTS.bigPeerSessionRefused, { code: error.code, reason: error.reason, remote });
      },
    );
  }

  /**
   * Closes every session (1001, going away, with `reason`) and refuses new ones; cuts those still
   * open after `graceMs`.
   */
  async close(graceMs: number, reason: string = SHUTDOWN_CLOSE_REASON): Promise<void> {
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
            ws.close(1001, reason);
          }),
      ),
    );
    this.#wss.close();
  }

  /** Cuts every session still open now, without waiting for its closing handshake (a drain cut short). */
  cutNow(): void {
    for (const ws of this.#sessions) ws.terminate();
  }
}
