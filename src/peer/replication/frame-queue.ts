/**
 * The frames of a connection while its handshake reads them one at a time, then handed over
 * whole (what is queued, and a close that already came) to the session that follows.
 */
import type { Connection, ConnectionEvents } from './connection.ts';

export class ConnectionClosed extends Error {
  readonly code: number;
  readonly reason: string;
  constructor(code: number, reason: string) {
    super(`the connection closed (${code}${reason === '' ? '' : `: ${reason}`})`);
    this.code = code;
    this.reason = reason;
  }
}

export class FrameQueue {
  readonly #queue: string[] = [];
  #closed: ConnectionClosed | undefined;
  #waiter: { resolve: (text: string) => void; reject: (error: Error) => void } | undefined;
  #target: ConnectionEvents | undefined;

  constructor(connection: Connection) {
    connection.listen({
      message: (text) => {
        if (this.#target !== undefined) return this.#target.message(text);
        const waiter = this.#waiter;
        this.#waiter = undefined;
        if (waiter !== undefined) waiter.resolve(text);
        else this.#queue.push(text);
      },
      close: (code, reason) => {
        if (this.#target !== undefined) return this.#target.close(code, reason);
        this.#closed = new ConnectionClosed(code, reason);
        const waiter = this.#waiter;
        this.#waiter = undefined;
        waiter?.reject(this.#closed);
      },
    });
  }

  /** The next frame; rejects with ConnectionClosed once the connection is closed. */
  next(): Promise<string> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    return new Promise((resolve, reject) => (this.#waiter = { resolve, reject }));
  }

  /** Gives every later frame (and those queued) to `events`. */
  handoff(events: ConnectionEvents): void {
    this.#target = events;
    for (const text of this.#queue.splice(0)) events.message(text);
    if (this.#closed !== undefined) events.close(this.#closed.code, this.#closed.reason);
  }
}
