/**
 * The sync WebSocket endpoint `/_sync/ws` (spec 3.4, 4.4, 9), on the same HTTP(S) server (so
 * `wss` when it serves TLS). Each connection is handed to the Big Peer's Sync, which runs the
 * announcement exchange (the small peer's certificate and proof against this Big Peer's issuer
 * key; this Big Peer's proof with that key) and then the replication session. Here: the limits
 * (sessions waiting for their announcement, in all and per address; the bytes they may send;
 * sessions in all), a session's end when its certificate expires (4401), and the Big Peer's own
 * log lines. One session per peer key: the replicator elects the newer connection and closes the
 * older with 4409. How long a session may wait for its announcement is the Sync's handshake
 * bound (`announceTimeoutMs` of the configuration).
 */
import type { IncomingMessage, Server } from 'node:http';
import { isIPv6 } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BIG_PEER_PATHS } from '../shared/big-peer-api.ts';
import { LOG_EVENTS } from '../shared/log.ts';
import { ANNOUNCE_CLOSE_CODES } from '../shared/protocol/announce.ts';
import { MAX_SESSION_FRAME_BYTES } from '../shared/protocol/messages.ts';
import { SessionRefused, WsConnection, closeReason, type Logger, type Sync, type Timers } from '../peer/host.ts';

/** Sessions waiting for their announcement, in total; beyond that a new one is closed at once (1013). */
export const MAX_PENDING_SESSIONS = 256;
/**
 * Sessions waiting for their announcement from one address (an IPv4 address, an IPv6 /64);
 * beyond that a new one from there is closed at once (1013), so that one address that connects
 * and never announces cannot hold the places of MAX_PENDING_SESSIONS from the others.
 */
export const MAX_PENDING_SESSIONS_PER_ADDRESS = 16;
/**
 * Bytes received from sessions waiting for their announcement, in total (each may send one frame
 * of 1 MiB, MAX_ANNOUNCE_FRAME_BYTES); beyond that the session whose bytes went over is closed (1013).
 */
export const MAX_PENDING_BYTES = 64 * 1024 * 1024;
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
  /** Default MAX_PENDING_SESSIONS_PER_ADDRESS; 0: no limit per address (behind a proxy that hides the clients' addresses). */
  readonly maxPendingSessionsPerAddress?: number;
  /** Default MAX_PENDING_BYTES. */
  readonly maxPendingBytes?: number;
  /** Default MAX_SESSIONS. */
  readonly maxSessions?: number;
  readonly observer?: SessionObserver;
}

export class WebSocketEndpoint {
  readonly #options: WebSocketEndpointOptions;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_SESSION_FRAME_BYTES, perMessageDeflate: false });
  readonly #sessions = new Set<WebSocket>();
  /** Sessions that have not announced themselves yet, with the key of their address. */
  readonly #pending = new Map<WebSocket, string>();
  /** How many of them come from each address key. */
  readonly #pendingByAddress = new Map<string, number>();
  /** The bytes they received (what each may send is bounded by WsConnection's pre-authentication limits). */
  readonly #preAuth: { readonly limitBytes: number; usedBytes: number; peakBytes: number };
  /** Accepted sessions by peer key. */
  readonly #byPeer = new Map<string, WebSocket>();
  #closing = false;

  constructor(options: WebSocketEndpointOptions) {
    this.#options = options;
    this.#preAuth = { limitBytes: options.maxPendingBytes ?? MAX_PENDING_BYTES, usedBytes: 0, peakBytes: 0 };
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

  /** Bytes received from sessions that have not announced themselves yet, now. */
  get pendingBytes(): number {
    return this.#preAuth.usedBytes;
  }

  /** The most `pendingBytes` has been since the endpoint started. */
  get peakPendingBytes(): number {
    return this.#preAuth.peakBytes;
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

  /** Refuses at once (no challenge, no timer, not counted) a session beyond the places for sessions waiting for their announcement. */
  #noPlace(address: string): string | undefined {
    const perAddress = this.#options.maxPendingSessionsPerAddress ?? MAX_PENDING_SESSIONS_PER_ADDRESS;
    if (perAddress > 0 && (this.#pendingByAddress.get(address) ?? 0) >= perAddress) {
      return `too many sessions waiting for their announcement from ${address} (${perAddress}); try again later`;
    }
    const maxPending = this.#options.maxPendingSessions ?? MAX_PENDING_SESSIONS;
    if (this.#pending.size >= maxPending) return `too many sessions waiting for their announcement (${maxPending}); try again later`;
    return undefined;
  }

  /** The session announced itself, was refused, or closed: its place is free. */
  #settle(ws: WebSocket): void {
    const address = this.#pending.get(ws);
    if (address === undefined) return;
    this.#pending.delete(ws);
    const left = (this.#pendingByAddress.get(address) ?? 1) - 1;
    if (left > 0) this.#pendingByAddress.set(address, left);
    else this.#pendingByAddress.delete(address);
  }

  #session(ws: WebSocket, req: IncomingMessage): void {
    const { logger, sync, timers } = this.#options;
    const remote = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    const address = addressKey(req.socket.remoteAddress);
    ws.on('error', (error) => logger.debug(LOG_EVENTS.bigPeerSessionRefused, { code: 1002, reason: error.message, remote }));
    const busy = this.#noPlace(address);
    if (busy !== undefined) {
      logger.info(LOG_EVENTS.bigPeerSessionRefused, { code: ANNOUNCE_CLOSE_CODES.busy, reason: busy, remote });
      ws.close(ANNOUNCE_CLOSE_CODES.busy, closeReason(busy));
      return;
    }
    const connection = new WsConnection(ws, 'WsServer', remote, { preAuth: { socket: req.socket, budget: this.#preAuth, timers } });
    this.#sessions.add(ws);
    this.#pending.set(ws, address);
    this.#pendingByAddress.set(address, (this.#pendingByAddress.get(address) ?? 0) + 1);
    this.#options.observer?.opened();
    let peerKey: string | undefined;
    ws.on('close', (code, reason) => {
      this.#options.observer?.ended(code);
      this.#sessions.delete(ws);
      this.#settle(ws);
      if (peerKey !== undefined) {
        if (this.#byPeer.get(peerKey) === ws) this.#byPeer.delete(peerKey);
        logger.info(LOG_EVENTS.bigPeerSessionClosed, { peer_key: peerKey, code, reason: reason.toString('utf8') });
      }
    });
    sync.acceptSession(connection).then(
      (session) => {
        this.#settle(ws);
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
        this.#settle(ws);
        if (error instanceof SessionRefused && !error.byRemote)
          logger.info(LOG_EVENTS.bigPeerSessionRefused, { code: error.code, reason: error.reason, remote });
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

/**
 * Whom the limit per address counts a connection against: its IPv4 address (an IPv4-mapped IPv6
 * address as IPv4), or the /64 of an IPv6 address, the block one host or site usually gets.
 */
export function addressKey(remote: string | undefined): string {
  if (remote === undefined || remote === '') return '?';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(remote);
  if (mapped !== null) return mapped[1] as string;
  if (!isIPv6(remote)) return remote;
  const [left = '', right] = (remote.split('%')[0] as string).split('::');
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const groups = right === undefined ? head : [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
