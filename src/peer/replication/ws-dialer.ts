/**
 * Dials a peer's WebSocket address (the Big Peer's `{ws_url}`, or a small peer's) and keeps a
 * session with it: reconnects with capped exponential backoff after any failure, logging the
 * spec's peer events in order (3.4): `Discovered`, `ConnectionEstablished` (`WsClient`), then
 * the replicator's `phy started` and `VirtConnElectedNewConn`; `StreamFailed` and
 * `ConnectionEnded` when it fails.
 */
import WebSocket from 'ws';
import { LOG_EVENTS } from '../../shared/log.ts';
import { MAX_SESSION_FRAME_BYTES } from '../../shared/protocol/messages.ts';
import type { Logger } from '../log/log-hub.ts';
import type { Timers } from '../time.ts';
import type { MeshTracker } from './mesh-tracker.ts';
import type { Replicator } from './replicator.ts';
import { WsConnection } from './ws-connection.ts';

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
}

export class WebSocketDialer {
  readonly #options: DialerOptions;
  #stopped = true;
  #attempt = 0;
  #retry: ReturnType<Timers['setTimeout']> | undefined;
  #ws: WebSocket | undefined;

  constructor(options: DialerOptions) {
    this.#options = options;
    options.tracker?.dialWaiting(options.url, 'WsClient', options.bigPeer === true);
  }

  get url(): string {
    return this.#options.url;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#options.logger.info(LOG_EVENTS.peerDiscovered, { peer: 'WebSocketClientPeer', connect_address: this.#options.url });
    this.#connect();
  }

  stop(): void {
    this.#stopped = true;
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
    if (this.#stopped) return;
    const { url, logger, replicator } = this.#options;
    const ws = new WebSocket(url, { maxPayload: MAX_SESSION_FRAME_BYTES, handshakeTimeout: this.#options.connectTimeoutMs ?? 10_000, perMessageDeflate: false });
    this.#ws = ws;
    const connection = new WsConnection(ws, 'WsClient', url);
    const tracker = this.#options.tracker;
    tracker?.dialing(connection, this.#options.bigPeer === true);
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      if (this.#ws === ws) this.#ws = undefined;
      this.#scheduleRetry();
    };
    ws.on('error', (error: Error) => {
      if (this.#stopped) return;
      logger.warn(LOG_EVENTS.streamFailed, { connection: connection.id, remote_address: url, error: error.message });
      tracker?.closed(connection.id, `StreamFailed: ${error.message}`);
      if (ws.readyState !== ws.OPEN) end();
    });
    ws.on('close', (code: number, reason: Buffer) => {
      if (this.#stopped) return;
      const text = reason.toString('utf8');
      logger.info(LOG_EVENTS.connectionEnded, { connection: connection.id, code, reason: text });
      tracker?.closed(connection.id, `ConnectionEnded (${code})${text === '' ? '' : `: ${text}`}`);
      end();
    });
    ws.on('open', () => {
      logger.info(LOG_EVENTS.connectionEstablished, { connection_type: 'WsClient', connection: connection.id, remote_address: url });
      replicator.dial(connection).then(
        () => {
          this.#attempt = 0; // A session was made: the next failure starts the backoff again.
        },
        () => {
          // Refused (logged by the replicator); the close schedules the retry.
        },
      );
    });
  }

  #scheduleRetry(): void {
    if (this.#stopped || this.#retry !== undefined) return;
    const { timers, logger, url } = this.#options;
    const min = this.#options.minDelayMs ?? 500;
    const max = this.#options.maxDelayMs ?? 30_000;
    const base = Math.min(max, min * 2 ** Math.min(this.#attempt, 20));
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
