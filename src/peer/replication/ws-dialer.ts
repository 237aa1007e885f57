/**
 * Dials a peer's WebSocket address (the Big Peer's `{ws_url}`, or a small peer's) and keeps a
 * session with it: reconnects with capped exponential backoff after any failure, logging the
 * spec's peer events in order (3.4): `Discovered`, `ConnectionEstablished` (`WsClient`), then
 * the replicator's `phy started` and `VirtConnElectedNewConn`; `StreamFailed` and
 * `ConnectionEnded` when it fails. A TLS failure is named as the spec names it (section 7:
 * `UnknownIssuer`, `webpki error: UnsupportedCriticalExtension`) in each StreamFailed line, and
 * logged once with the spec's cause and fix (`TLS connect failure: …`) until the next success.
 */
import WebSocket from 'ws';
import { LOG_EVENTS } from '../../shared/log.ts';
import { MAX_SESSION_FRAME_BYTES } from '../../shared/protocol/messages.ts';
import type { Logger } from '../log/log-hub.ts';
import type { Timers } from '../time.ts';
import type { MeshTracker } from './mesh-tracker.ts';
import type { Replicator } from './replicator.ts';
import { ANNOUNCE_CLOSE_CODES } from '../../shared/protocol/announce.ts';
import { SessionRefused } from './handshake.ts';
import { WsConnection } from './ws-connection.ts';
import { shortTlsFailure, tlsFailureOf } from '../auth/tls-failure.ts';

/**
 * How long a close waits for the remote's answer before the socket is cut (ws's default is
 * 30 s): a peer stopping sync while the remote has stopped answering must not stay alive for it.
 */
export const CLOSE_HANDSHAKE_TIMEOUT_MS = 1_000;

export interface DialerOptions {
  readonly url: string;
  readonly replicator: Replicator;
  readonly logger: Logger;
  readonly timers: Timers;
  /** First retry delay (default 500 ms); it doubles up to `maxDelayMs` (default 30 s). */
  readonly minDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Bound on opening the WebSocket (default 10 s). */
  readonly connectTimeoutMs?: number;
  /** A number in [0, 1) for jitter (default Math.random). */
  readonly random?: () => number;
  /** Told of each attempt, failure, retry and stop (the inspector's mesh). */
  readonly tracker?: MeshTracker;
  /** Is this the Big Peer's address? (for the tracker) */
  readonly bigPeer?: boolean;
  /** How the address was found, for the log and the tracker (default `WebSocket`: configured). */
  readonly transport?: 'WebSocket' | 'LAN';
  /** The remote's peer key when known before dialing (LAN discovery says it). */
  readonly remotePeerKey?: string;
  /** Wait this long before the first attempt (the LAN's tie-break: the larger key lets the smaller dial first). */
  readonly firstDialDelayMs?: number;
  /** After a refused handshake (4400, 4401), wait at least this long (default: the longest backoff). */
  readonly refusedDelayMs?: number;
  /**
   * Why this peer cannot show a valid certificate now (it expired and the login that renews it
   * has not happened yet), or undefined when it can. Asked before every attempt, so that the
   * peer never announces a certificate it knows has expired (the remote would refuse it, 4401).
   * While it says why, the dialer does not dial (it logs why, once); `certificateChanged()`
   * makes it try again.
   */
  readonly certificateProblem?: () => string | undefined;
}

export class WebSocketDialer {
  readonly #options: DialerOptions;
  #stopped = true;
  #attempt = 0;
  #retry: ReturnType<Timers['setTimeout']> | undefined;
  #ws: WebSocket | undefined;
  /** The remote's peer key, once known (given, or told by a handshake). */
  #remoteKey: string | undefined;
  /** Set while parked: waiting for the session that runs over another connection to end. */
  #offSessionEnd: (() => void) | undefined;
  /** Dial again after a failure? False once the address is gone (its LAN advertisement left). */
  #redial = true;
  /** The last attempt's handshake was refused (4400, 4401): the next waits longer. */
  #refused = false;
  /** The TLS failure last logged with its fix: the same one again is not (until a connection opens). */
  #tlsLogged: string | undefined;
  /** Not dialing until `certificateProblem` says the certificate is valid again. */
  #waitingForCertificate = false;

  constructor(options: DialerOptions) {
    this.#options = options;
    this.#remoteKey = options.remotePeerKey;
    options.tracker?.dialWaiting(options.url, 'WsClient', options.bigPeer === true, options.transport ?? 'WebSocket');
  }

  get url(): string {
    return this.#options.url;
  }

  /** The remote's peer key, once known. */
  get remotePeerKey(): string | undefined {
    return this.#remoteKey;
  }

  /** Is a connection of this dialer open (or opening)? */
  get isConnected(): boolean {
    return this.#ws !== undefined;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#tlsLogged = undefined;
    const { logger, url, firstDialDelayMs, timers } = this.#options;
    if (this.#options.transport === 'LAN') logger.info(LOG_EVENTS.peerDiscovered, { peer: 'LanPeer', connect_address: url, remote: this.#remoteKey ?? '' });
    else logger.info(LOG_EVENTS.peerDiscovered, { peer: 'WebSocketClientPeer', connect_address: url });
    if (firstDialDelayMs !== undefined && firstDialDelayMs > 0) {
      this.#options.tracker?.dialDelayed(url, `waiting ${Math.round(firstDialDelayMs / 100) / 10} s for the peer to dial first (its key is smaller)`);
      this.#retry = timers.setTimeout(() => {
        this.#retry = undefined;
        this.#connect();
      }, firstDialDelayMs);
      return;
    }
    this.#connect();
  }

  /**
   * Whether to dial again after the current connection ends (a LAN peer whose advertisement
   * left: its open session is kept, but it is not redialed until it is seen again).
   */
  setRedial(redial: boolean): void {
    this.#redial = redial;
    if (!redial && this.#retry !== undefined) {
      this.#options.timers.clearTimeout(this.#retry);
      this.#retry = undefined;
      if (this.#ws === undefined) this.#options.tracker?.dialStopped(this.#options.url, 'the peer left the LAN');
    } else if (redial && !this.#stopped && this.#ws === undefined && this.#retry === undefined && this.#offSessionEnd === undefined) {
      this.#connect();
    }
  }

  /**
   * The certificate may have changed (a login, an expiry): a dialer that waits for a valid one
   * dials now if it may, without waiting for a backoff.
   */
  certificateChanged(): void {
    if (!this.#waitingForCertificate || this.#stopped || this.#retry !== undefined || this.#ws !== undefined) return;
    this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    this.#waitingForCertificate = false;
    this.#offSessionEnd?.();
    this.#offSessionEnd = undefined;
    if (this.#retry !== undefined) this.#options.timers.clearTimeout(this.#retry);
    this.#retry = undefined;
    const ws = this.#ws;
    this.#ws = undefined;
    if (ws !== undefined && ws.readyState !== ws.CLOSED) {
      if (ws.readyState === ws.CONNECTING) ws.terminate();
      else ws.close(1001, 'sync stopped');
    }
    this.#options.tracker?.dialStopped(this.#options.url);
  }

  #connect(): void {
    if (this.#stopped || this.#parkWhileElsewhere()) return;
    if (!this.#redial) {
      // Its LAN advertisement left before this dialer could dial (it waited for a login or its turn).
      this.#options.tracker?.dialStopped(this.#options.url, 'the peer left the LAN');
      return;
    }
    const { url, logger, replicator } = this.#options;
    const problem = this.#options.certificateProblem?.();
    if (problem !== undefined) {
      if (!this.#waitingForCertificate) {
        this.#waitingForCertificate = true;
        logger.info(LOG_EVENTS.dialWaiting, { connect_address: url, reason: problem });
        this.#options.tracker?.dialParked(url, `not dialed until this peer holds a valid certificate: ${problem}`);
      }
      return;
    }
    this.#waitingForCertificate = false;
    // `closeTimeout` is ws's (8.23, pinned), not yet in its type definitions.
    const wsOptions: WebSocket.ClientOptions & { readonly closeTimeout: number } = {
      maxPayload: MAX_SESSION_FRAME_BYTES,
      handshakeTimeout: this.#options.connectTimeoutMs ?? 10_000,
      closeTimeout: CLOSE_HANDSHAKE_TIMEOUT_MS,
      perMessageDeflate: false,
    };
    const ws = new WebSocket(url, wsOptions);
    this.#ws = ws;
    const connection = new WsConnection(ws, 'WsClient', url, { transport: this.#options.transport ?? 'WebSocket' });
    const tracker = this.#options.tracker;
    tracker?.dialing(connection, this.#options.bigPeer === true);
    let ended = false;
    let opened = false;
    /** The replicator's handshake and session start, once open: the retry waits for its verdict. */
    let dialed: Promise<unknown> | undefined;
    const end = (): void => {
      if (ended) return;
      ended = true;
      if (this.#ws === ws) this.#ws = undefined;
      // After the replicator told the tracker why (and whether the peer refused this one).
      if (dialed === undefined) this.#scheduleRetry();
      else void dialed.finally(() => this.#scheduleRetry());
    };
    ws.on('error', (error: Error) => {
      if (this.#stopped) return;
      const tls = tlsFailureOf(error);
      const text = tls === undefined ? error.message : shortTlsFailure(tls);
      logger.warn(LOG_EVENTS.streamFailed, { connection: connection.id, remote_address: url, error: text });
      if (tls !== undefined && this.#tlsLogged !== text) {
        this.#tlsLogged = text;
        logger.error(LOG_EVENTS.tlsConnectFailed, { url, name: tls.name, code: tls.code, error: tls.error, fix: tls.fix });
      }
      tracker?.closed(connection.id, `StreamFailed: ${text}`);
      if (ws.readyState !== ws.OPEN) end();
    });
    ws.on('close', (code: number, reason: Buffer) => {
      if (this.#stopped) return;
      const text = reason.toString('utf8');
      logger.info(LOG_EVENTS.connectionEnded, { connection: connection.id, code, reason: text });
      // Once open, the connection is the replicator's: it tells the tracker why it ended, in full
      // (a refusal with who refused and why; the close reason here is cut at 123 bytes).
      if (!opened) tracker?.closed(connection.id, `ConnectionEnded (${code})${text === '' ? '' : `: ${text}`}`);
      end();
    });
    ws.on('open', () => {
      opened = true;
      this.#tlsLogged = undefined;
      logger.info(LOG_EVENTS.connectionEstablished, { connection_type: 'WsClient', connection: connection.id, remote_address: url });
      dialed = replicator.dial(connection).then(
        (session) => {
          this.#remoteKey = session.remote.peerKey;
          // A session was made: the next failure starts the backoff again. One closed at once
          // (another connection to the peer was elected) parks this dialer when it closes.
          if (!session.isEnding) this.#attempt = 0;
        },
        (error: unknown) => {
          // Refused (logged by the replicator); the close schedules the retry. A peer that refused
          // this one's certificate, or whose certificate or protocol this peer refused, will not
          // change its mind soon: wait the longest backoff, or `refusedDelayMs`.
          if (error instanceof SessionRefused && (error.code === ANNOUNCE_CLOSE_CODES.unauthorized || error.code === ANNOUNCE_CLOSE_CODES.malformed))
            this.#refused = true;
        },
      );
    });
  }

  /**
   * While a session with the remote runs over another connection (it dialed this peer, or it is
   * reached at another address), this dialer does not dial: it waits for that session to end.
   * Without this, the loser of an election would redial and be closed with 4409 forever.
   */
  #parkWhileElsewhere(): boolean {
    const key = this.#remoteKey;
    const { replicator, tracker, url } = this.#options;
    if (key === undefined || !replicator.hasSession(key)) return false;
    if (this.#offSessionEnd === undefined) {
      tracker?.dialParked(url, `not dialed while another connection to this peer is elected`);
      this.#offSessionEnd = replicator.onSessionEnd((remote) => {
        if (remote.peerKey !== key || replicator.hasSession(key)) return;
        this.#offSessionEnd?.();
        this.#offSessionEnd = undefined;
        this.#attempt = 0;
        this.#scheduleRetry();
      });
    }
    return true;
  }

  #scheduleRetry(): void {
    if (this.#stopped || this.#retry !== undefined) return;
    if (this.#parkWhileElsewhere()) return;
    if (!this.#redial) {
      this.#options.tracker?.dialStopped(this.#options.url, 'the peer left the LAN');
      return;
    }
    const { timers, logger, url } = this.#options;
    const min = this.#options.minDelayMs ?? 500;
    const max = this.#options.maxDelayMs ?? 30_000;
    const base = this.#refused ? Math.max(max, this.#options.refusedDelayMs ?? 0) : Math.min(max, min * 2 ** Math.min(this.#attempt, 20));
    this.#refused = false;
    const delay = Math.round(base / 2 + (base / 2) * (this.#options.random ?? Math.random)());
    this.#attempt++;
    logger.info(LOG_EVENTS.reconnectScheduled, { seconds: Math.round(delay / 100) / 10, connect_address: url });
    this.#options.tracker?.retryScheduled(url, delay);
    this.#retry = timers.setTimeout(() => {
      this.#retry = undefined;
      this.#connect();
    }, delay);
  }
}
