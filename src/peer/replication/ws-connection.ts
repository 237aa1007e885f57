/**
 * A `ws` WebSocket as a replication connection: text frames; a binary frame is passed on as
 * text that fails to decode, so the session closes as for any malformed frame.
 */
import type { RawData, WebSocket } from 'ws';
import { Inbox, connectionId, type Connection, type ConnectionEvents } from './connection.ts';

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

export class WsConnection implements Connection {
  readonly id: string;
  readonly type: 'WsClient' | 'WsServer';
  readonly dialed: boolean;
  readonly remoteAddress: string;
  readonly #ws: WebSocket;
  readonly #inbox = new Inbox();

  constructor(ws: WebSocket, type: 'WsClient' | 'WsServer', remoteAddress: string) {
    this.#ws = ws;
    this.type = type;
    this.dialed = type === 'WsClient';
    this.remoteAddress = remoteAddress;
    this.id = connectionId(type);
    ws.on('message', (data: RawData, isBinary: boolean) => this.#inbox.message(isBinary ? '\u0000a binary frame' : text(data)));
    ws.on('close', (code: number, reason: Buffer) => this.#inbox.close(code, reason.toString('utf8')));
  }

  get isOpen(): boolean {
    return this.#ws.readyState === this.#ws.OPEN;
  }

  send(frame: string): void {
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.send(frame);
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
