/**
 * A connection to one remote peer, as replication sees it: text frames in order, and a close
 * with a code and a reason. Transports (WebSocket client and server, the in-memory twin; later
 * the LAN) adapt to this; everything above is transport-agnostic.
 */

/** How the connection was made (spec 3.4: `WsClient` is a small peer dialing the Big Peer). */
export type ConnectionType = 'WsClient' | 'WsServer' | 'Memory';

export interface ConnectionEvents {
  message(text: string): void;
  close(code: number, reason: string): void;
}

export interface Connection {
  /** Unique in this process, for logs: `WsClient#3`. */
  readonly id: string;
  readonly type: ConnectionType;
  /** Did this side dial (rather than accept) the connection? */
  readonly dialed: boolean;
  /** Where the other end is (a URL or an address), for logs. */
  readonly remoteAddress: string;
  /** How it was found: a configured address or listener (`WebSocket`), or LAN discovery. Default `WebSocket`. */
  readonly transport?: 'WebSocket' | 'LAN';
  /** Sends one text frame; ignored once the connection is closing. */
  send(text: string): void;
  /**
   * Sends one text frame already encoded as UTF-8, as is: the same bytes go to many sessions
   * (shared-updates.ts). Optional: without it, the session sends the frame's text.
   */
  sendEncoded?(frame: Buffer): void;
  /** Closes with a WebSocket close code (4000–4999: ours) and a reason both sides log. */
  close(code: number, reason: string): void;
  /** Sets the receiver of frames and of the close, once; frames that came before it are held. */
  listen(events: ConnectionEvents): void;
  readonly isOpen: boolean;
  /**
   * Called by the accepting side's handshake once it accepted the remote (its certificate and
   * proof): a transport that limits what an unauthenticated remote may send (a listener's
   * WebSocket) lifts those limits.
   */
  authenticated?(): void;
  /**
   * Set when the transport itself closed the connection before `authenticated()`, for breaking
   * those limits: the handshake reports it as this side's refusal, not the remote's.
   */
  readonly refusal?: { readonly code: number; readonly reason: string };
}

let nextConnection = 1;

/** A process-wide connection number for ids. */
export function connectionId(type: ConnectionType): string {
  return `${type}#${nextConnection++}`;
}

/**
 * Holds frames and the close until a listener is set, then delivers them in order. Transports
 * build on it so that nothing arriving between connect and `listen` is lost.
 */
export class Inbox {
  #events: ConnectionEvents | undefined;
  readonly #held: (() => void)[] = [];

  listen(events: ConnectionEvents): void {
    if (this.#events !== undefined) throw new Error('a connection has one listener');
    this.#events = events;
    for (const deliver of this.#held.splice(0)) deliver();
  }

  message(text: string): void {
    if (this.#events === undefined) this.#held.push(() => this.#events?.message(text));
    else this.#events.message(text);
  }

  close(code: number, reason: string): void {
    if (this.#events === undefined) this.#held.push(() => this.#events?.close(code, reason));
    else this.#events.close(code, reason);
  }
}
