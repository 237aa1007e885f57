/**
 * The inspector contract over a WebSocket, for the browser mode (`syncmesh inspect`). The page is
 * served under `/<token>/`; its socket is `/<token>/ws` on the same host, so the token in the
 * page's own URL is all it needs. It reconnects with backoff. While it is down, a call that only
 * reads waits for it (and may be cancelled); a call that may change the peer is refused at once,
 * never sent later without the user seeing it (`mayChangePeer`).
 */
import type { BridgeServerFrame, CallInput, CallName, CallOutput, EventName, EventPayload, InspectorBridge } from '../../../shared/inspector/contract.ts';
import type { CallResult } from '../../../shared/inspector/result.ts';
import { mayChangePeer } from '../../../shared/inspector/call-effects.ts';

export type LinkState = 'connecting' | 'open' | 'closed';

interface Pending {
  readonly resolve: (result: CallResult<unknown>) => void;
  readonly frame: string;
  /** The socket the frame went out on; undefined while it waits for the link. */
  sentOn: WebSocket | undefined;
}

/**
 * The answer of a call whose socket closed before its result came. It is not sent again: the
 * peer may have run it (a mutation would run twice), and its session's results are gone.
 */
export const LINK_LOST: CallResult<never> = {
  ok: false,
  error: {
    code: 'internal/unexpected',
    message: 'The link to the peer dropped before the answer came; the call may or may not have run on the peer.',
  },
};

/** The answer of a call that may change the peer, made while the link is down: not sent, now or later. */
export const LINK_DOWN: CallResult<never> = {
  ok: false,
  error: {
    code: 'inspector/link-down',
    message: 'The link to the peer is down: this was not sent, and will not be sent later. Run it again once the link is back.',
  },
};

/** The answer of a waiting call the user cancelled: it was never sent. */
export const CANCELLED: CallResult<never> = {
  ok: false,
  error: { code: 'inspector/cancelled', message: 'Cancelled while waiting for the link to the peer; it was not sent.' },
};

export class WebSocketBridge implements InspectorBridge {
  readonly #url: string;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Map<EventName, Set<(payload: never) => void>>();
  readonly #stateListeners = new Set<(state: LinkState) => void>();
  readonly #waitingListeners = new Set<(waiting: number) => void>();
  #socket: WebSocket | undefined;
  #nextId = 1;
  #state: LinkState = 'connecting';
  #retryMs = 250;

  constructor(url: string) {
    this.#url = url;
    this.#open();
  }

  get state(): LinkState {
    return this.#state;
  }

  onStateChange(listener: (state: LinkState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  /** Calls waiting for the link (made while it was down; each only reads). */
  get waiting(): number {
    let n = 0;
    for (const pending of this.#pending.values()) if (pending.sentOn === undefined) n++;
    return n;
  }

  onWaitingChange(listener: (waiting: number) => void): () => void {
    this.#waitingListeners.add(listener);
    return () => this.#waitingListeners.delete(listener);
  }

  /** Answers every call waiting for the link with `inspector/cancelled`; none of them was sent. */
  cancelWaiting(): void {
    for (const [id, pending] of this.#pending) {
      if (pending.sentOn !== undefined) continue;
      this.#pending.delete(id);
      pending.resolve(CANCELLED);
    }
    this.#waitingChanged();
  }

  #waitingChanged(): void {
    const waiting = this.waiting;
    for (const listener of this.#waitingListeners) listener(waiting);
  }

  call<C extends CallName>(channel: C, input: CallInput<C>): Promise<CallResult<CallOutput<C>>> {
    // A change is never sent later, when the user may no longer expect it.
    if (this.#socket?.readyState !== WebSocket.OPEN && mayChangePeer(channel, input)) return Promise.resolve(LINK_DOWN);
    const id = this.#nextId++;
    const frame = JSON.stringify({ type: 'call', id, channel, input });
    return new Promise((resolve) => {
      const pending: Pending = { resolve: resolve as (result: CallResult<unknown>) => void, frame, sentOn: undefined };
      this.#pending.set(id, pending);
      const socket = this.#socket;
      if (socket?.readyState === WebSocket.OPEN) {
        socket.send(frame);
        pending.sentOn = socket;
      } else this.#waitingChanged();
    });
  }

  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    let set = this.#listeners.get(event);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    const entry = listener as (payload: never) => void;
    set.add(entry);
    return () => set.delete(entry);
  }

  #setState(state: LinkState): void {
    if (this.#state === state) return;
    this.#state = state;
    for (const listener of this.#stateListeners) listener(state);
  }

  #open(): void {
    const socket = new WebSocket(this.#url);
    this.#socket = socket;
    this.#setState('connecting');
    socket.onopen = () => {
      this.#retryMs = 250;
      this.#setState('open');
      // Calls made while the link was down go out now, in order.
      for (const pending of this.#pending.values()) {
        if (pending.sentOn !== undefined) continue;
        socket.send(pending.frame);
        pending.sentOn = socket;
      }
      this.#waitingChanged();
    };
    socket.onmessage = (message) => {
      if (typeof message.data === 'string') this.#receive(message.data);
    };
    socket.onclose = () => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      for (const [id, pending] of this.#pending) {
        if (pending.sentOn !== socket) continue;
        this.#pending.delete(id);
        pending.resolve(LINK_LOST);
      }
      this.#setState('closed');
      setTimeout(() => this.#open(), this.#retryMs);
      this.#retryMs = Math.min(this.#retryMs * 2, 5_000);
    };
  }

  #receive(text: string): void {
    let frame: BridgeServerFrame;
    try {
      frame = JSON.parse(text) as BridgeServerFrame;
    } catch {
      return;
    }
    if (frame.type === 'result') {
      const pending = this.#pending.get(frame.id);
      if (pending === undefined) return;
      this.#pending.delete(frame.id);
      pending.resolve(frame.result);
    } else if (frame.type === 'event') {
      for (const listener of this.#listeners.get(frame.event) ?? []) listener(frame.payload as never);
    }
  }
}

/** The socket URL of the page at `pageUrl` (`http://host:port/<token>/…` → `ws://host:port/<token>/ws`). */
export function socketUrlFor(pageUrl: string): string {
  const url = new URL(pageUrl);
  const token = url.pathname.split('/').find((segment) => segment !== '') ?? '';
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = `/${token}/ws`;
  url.search = '';
  url.hash = '';
  return url.toString();
}
