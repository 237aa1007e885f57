/**
 * What a remote may send to a listener before its announcement is accepted. Anyone can open a
 * WebSocket to a listener, so until the handshake accepts a certificate a connection may send
 * one frame of at most MAX_ANNOUNCE_FRAME_BYTES (more: 1009), and the bytes every such
 * connection of a listener received count against one budget (beyond it: 1013). Bytes are
 * counted as they arrive on the socket, before the WebSocket parser buffers them, so a frame
 * that announces 16 MiB is refused after 1 MiB of it, not once it is whole. A refused connection
 * that goes on sending, or does not finish its closing handshake in time, is cut.
 */
import { ANNOUNCE_CLOSE_CODES, MAX_ANNOUNCE_FRAME_BYTES } from '../../shared/protocol/announce.ts';
import { systemTimers, type TimerHandle, type Timers } from '../time.ts';

/** The largest header of a frame a client sends: 2 bytes, an 8-byte length, a 4-byte mask. */
const MAX_CLIENT_FRAME_HEADER = 14;
/** What a refused connection may still send (its close frame, what was already under way) before it is cut. */
const AFTER_REFUSAL_BYTES = 16 * 1024;
/** How long a refused connection has to finish its closing handshake before it is cut. */
export const REFUSED_CLOSE_GRACE_MS = 1_000;

/**
 * Shared by the connections of one listener: the bytes they received before their
 * announcement was accepted, now and at most, and the limit of that sum.
 */
export interface PreAuthBudget {
  readonly limitBytes: number;
  usedBytes: number;
  peakBytes: number;
}

/** The part of a socket the guard reads: its `data` events. */
export interface ByteSource {
  prependListener(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
}

export interface PreAuthLimits {
  /** The TCP (or TLS) socket under the WebSocket. */
  readonly socket: ByteSource;
  readonly budget: PreAuthBudget;
  /** Default the system's. */
  readonly timers?: Timers;
}

/** What the guard does to the connection. */
export interface PreAuthActions {
  /** Close with `code` and `reason` (a closing handshake). */
  refuse(code: number, reason: string): void;
  /** Cut the socket at once. */
  cut(): void;
}

/** `n` bytes as the reasons and docs say them: `2 MiB`, `640 KiB`, `1000 bytes`. */
export function bytesText(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

export class PreAuthGuard {
  readonly #limits: PreAuthLimits;
  readonly #actions: PreAuthActions;
  /** Bytes received and charged to the budget. */
  #received = 0;
  #refusedAt: number | undefined;
  #grace: TimerHandle | undefined;
  #ended = false;

  constructor(limits: PreAuthLimits, actions: PreAuthActions) {
    this.#limits = limits;
    this.#actions = actions;
    // First among the socket's listeners: the bytes are counted before the parser keeps them.
    limits.socket.prependListener('data', this.#count);
  }

  readonly #count = (chunk: Buffer): void => {
    const { budget } = this.#limits;
    this.#received += chunk.length;
    budget.usedBytes += chunk.length;
    budget.peakBytes = Math.max(budget.peakBytes, budget.usedBytes);
    if (this.#refusedAt !== undefined) {
      if (this.#received - this.#refusedAt > AFTER_REFUSAL_BYTES) this.#cut();
      return;
    }
    if (this.#received > MAX_ANNOUNCE_FRAME_BYTES + MAX_CLIENT_FRAME_HEADER) {
      this.#refuse(ANNOUNCE_CLOSE_CODES.tooBig, `more than ${bytesText(MAX_ANNOUNCE_FRAME_BYTES)} before the announcement`);
    } else if (budget.usedBytes > budget.limitBytes) {
      this.#refuse(ANNOUNCE_CLOSE_CODES.busy, `the budget of unannounced sessions (${bytesText(budget.limitBytes)}) is spent; try again later`);
    }
  };

  #refuse(code: number, reason: string): void {
    this.#refusedAt = this.#received;
    const timers = this.#limits.timers ?? systemTimers;
    this.#grace = timers.setTimeout(() => this.#cut(), REFUSED_CLOSE_GRACE_MS);
    this.#actions.refuse(code, reason);
  }

  #cut(): void {
    this.end();
    this.#actions.cut();
  }

  /** Stops counting and gives the bytes back: the remote was accepted, or the connection closed. Idempotent. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#limits.socket.off('data', this.#count);
    this.#limits.budget.usedBytes -= this.#received;
    this.#received = 0;
    if (this.#grace !== undefined) (this.#limits.timers ?? systemTimers).clearTimeout(this.#grace);
  }
}
