/**
 * A `ws` WebSocket as a replication connection: text frames; a binary frame is passed on as
 * text that fails to decode, so the session closes as for any malformed frame. On a listener's
 * side, what the remote may send before the handshake accepts it is limited (pre-auth-guard.ts).
 */
import type { RawData, WebSocket } from 'ws';
import { Inbox, connectionId, type Connection, type ConnectionEvents } from './connection.ts';
import { PreAuthGuard, type PreAuthLimits } from './pre-auth-guard.ts';

/** Close reasons are at most 123 bytes of UTF-8 (RFC 6455). */
export function closeReason(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= 123) return text;
  let cut = bytes.subarray(0, 120).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return `${cut}…`;
}

function text(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/**
 * A ping goes out this often; a connection from which nothing at all arrived for two intervals
 * is cut, so a peer that vanished (a pulled cable, a sleeping laptop) ends its session within
 * 30–45 s instead of leaving it hanging on a half-open TCP connection.
 */
export const KEEPALIVE_INTERVAL_MS = 15_000;

export interface WsConnectionOptions {
  /** How the connection was found, for the mesh (default `WebSocket`). */
  readonly transport?: 'WebSocket' | 'LAN';
  /** Ping interval; 0 turns the keepalive off. Default KEEPALIVE_INTERVAL_MS. */
  readonly keepAliveMs?: number;
  /** A listener's side: the limits until `authenticated()` (none: no limits but the WebSocket server's `maxPayload`). */
  readonly preAuth?: PreAuthLimits;
}

export class WsConnection implements Connection {
  readonly id: string;
  readonly type: 'WsClient' | 'WsServer';
  readonly dialed: boolean;
  readonly remoteAddress: string;
  readonly transport: 'WebSocket' | 'LAN';
  readonly #ws: WebSocket;
  readonly #inbox = new Inbox();
  readonly #guard: PreAuthGuard | undefined;
  #refusal: { readonly code: number; readonly reason: string } | undefined;

  constructor(ws: WebSocket, type: 'WsClient' | 'WsServer', remoteAddress: string, options: WsConnectionOptions = {}) {
    this.#ws = ws;
    this.type = type;
    this.dialed = type === 'WsClient';
    this.remoteAddress = remoteAddress;
    this.transport = options.transport ?? 'WebSocket';
    this.id = connectionId(type);
    this.#guard =
      options.preAuth === undefined
        ? undefined
        : new PreAuthGuard(options.preAuth, {
            refuse: (code, reason) => {
              this.#refusal = { code, reason };
              this.close(code, reason);
              // The handshake learns of it now; frames that still come, and the socket's close, are not passed on.
              this.#inbox.close(code, reason);
            },
            cut: () => ws.terminate(),
          });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (this.#refusal === undefined) this.#inbox.message(isBinary ? '\u0000a binary frame' : text(data));
    });
    const keepAliveMs = options.keepAliveMs ?? KEEPALIVE_INTERVAL_MS;
    let pinger: ReturnType<typeof setInterval> | undefined;
    if (keepAliveMs > 0) {
      // Any byte received proves the other side alive, not only a pong: on a slow link a pong
      // waits behind the chunks the other side still sends. A tick is not counted silent while
      // this side's own data (and so its ping) is still queued. Two silent ticks in a row cut it.
      let heard = true;
      let silent = 0;
      const hear = (): void => {
        heard = true;
      };
      ws.on('pong', hear);
      ws.on('ping', hear);
      ws.on('message', hear);
      const start = (): void => {
        // ws 8 keeps the TCP socket in `_socket` (pinned version); without it, frames still count.
        (ws as unknown as { _socket?: { on(event: 'data', listener: () => void): void } })._socket?.on('data', hear);
        pinger = setInterval(() => {
          if (ws.readyState !== ws.OPEN) return;
          if (heard) silent = 0;
          else if (ws.bufferedAmount === 0) silent++;
          if (silent >= 2) {
            ws.terminate(); // Closes with 1006: the session ends and a dialer redials.
            return;
          }
          heard = false;
          ws.ping();
        }, keepAliveMs);
        pinger.unref?.();
      };
      if (ws.readyState === ws.OPEN) start();
      else ws.once('open', start);
    }
    ws.on('close', (code: number, reason: Buffer) => {
      if (pinger !== undefined) clearInterval(pinger);
      this.#guard?.end();
      if (this.#refusal === undefined) this.#inbox.close(code, reason.toString('utf8'));
    });
  }

  get refusal(): { readonly code: number; readonly reason: string } | undefined {
    return this.#refusal;
  }

  /** The handshake accepted the remote: what it sends is no longer counted against the listener's budget. */
  authenticated(): void {
    this.#guard?.end();
  }

  get isOpen(): boolean {
    return this.#ws.readyState === this.#ws.OPEN;
  }

  send(frame: string): void {
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.send(frame);
  }

  /** A text frame as its UTF-8 bytes: `ws` writes them without copying or encoding them again. */
  sendEncoded(frame: Buffer): void {
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.send(frame, { binary: false });
  }

  close(code: number, reason: string): void {
    if (this.#ws.readyState === this.#ws.CLOSED || this.#ws.readyState === this.#ws.CLOSING) return;
    this.#ws.close(code, closeReason(reason));
  }

  /** Cuts the socket without a closing handshake. */
  terminate(): void {
    this.#ws.terminate();
  }

  listen(events: ConnectionEvents): void {
    this.#inbox.listen(events);
  }
}
