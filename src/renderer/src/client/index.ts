/**
 * The renderer's one way to its peer. In the Electron window the preload script has put the
 * bridge on `window.syncmesh.inspector`; in a browser the page talks to `syncmesh inspect` over
 * a WebSocket. Everything else in the renderer imports `inspector` (and `linkState`) from here.
 */
import type { CallInput, CallName, CallOutput, EventName, EventPayload, InspectorBridge } from '../../../shared/inspector/contract.ts';
import type { CallResult } from '../../../shared/inspector/result.ts';
import { WebSocketBridge, socketUrlFor, type LinkState } from './ws-bridge.ts';

export type { LinkState } from './ws-bridge.ts';

let bridge: InspectorBridge | undefined;
let webSocketBridge: WebSocketBridge | undefined;

function current(): InspectorBridge {
  if (bridge === undefined) {
    const desktop = window.syncmesh?.inspector;
    if (desktop !== undefined) {
      bridge = desktop;
    } else {
      webSocketBridge = new WebSocketBridge(socketUrlFor(window.location.href));
      bridge = webSocketBridge;
    }
  }
  return bridge;
}

/** Replaces the bridge (tests and benchmarks give an in-memory one). */
export function useBridge(replacement: InspectorBridge): void {
  bridge = replacement;
  webSocketBridge = undefined;
}

export const inspector: InspectorBridge = {
  call<C extends CallName>(channel: C, input: CallInput<C>): Promise<CallResult<CallOutput<C>>> {
    return current().call(channel, input);
  },
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    return current().on(event, listener);
  },
};

/** The link to the peer: always open in Electron; in a browser, the socket's state. */
export function linkState(): LinkState {
  current();
  return webSocketBridge?.state ?? 'open';
}

export function onLinkStateChange(listener: (state: LinkState) => void): () => void {
  current();
  return webSocketBridge?.onStateChange(listener) ?? (() => {});
}

/** Calls waiting for the link to the peer (browser mode): reads made while it was down. */
export function waitingCalls(): number {
  current();
  return webSocketBridge?.waiting ?? 0;
}

export function onWaitingCallsChange(listener: (waiting: number) => void): () => void {
  current();
  return webSocketBridge?.onWaitingChange(listener) ?? (() => {});
}

/** Answers every call waiting for the link with `inspector/cancelled`, unsent. */
export function cancelWaitingCalls(): void {
  webSocketBridge?.cancelWaiting();
}

/**
 * Is the page served read-only (`syncmesh inspect --read-only`, `serveInspector(sync, { readOnly:
 * true })`)? The server says so in a meta tag of the page; every change is refused by the server
 * (`inspector/read-only`) whatever the page does.
 */
export function isReadOnly(): boolean {
  return typeof document !== 'undefined' && document.querySelector('meta[name="syncmesh-read-only"][content="true"]') !== null;
}
