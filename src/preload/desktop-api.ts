/**
 * The API the preload exposes on `window.syncmesh`, built from an `ipcRenderer` (or a stand-in
 * in tests). Calls are checked against the contract before anything touches IPC; answers are
 * `CallResult` values, also when IPC itself fails. Events arrive on one `inspector:event`
 * listener and are dispatched by name.
 */
import {
  isCallName,
  isEventName,
  type CallInput,
  type CallName,
  type CallOutput,
  type DesktopApi,
  type DesktopVersions,
  type EventName,
  type EventPayload,
} from '../shared/inspector/contract.ts';
import { IPC_EVENT_CHANNEL, IPC_HELLO_CHANNEL, IPC_PEERS_FORGET_CHANNEL, IPC_PEERS_LIST_CHANNEL, IPC_PEERS_OPEN_CHANNEL } from '../shared/inspector/ipc.ts';
import type { RemotePeerEntry, RemotePeersApi } from '../shared/inspector/remote-peers.ts';
import { errorResult, type CallResult } from '../shared/inspector/result.ts';
import { errorMessage } from '../shared/error-message.ts';

/** The part of Electron's `ipcRenderer` the API uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

type Listener = (payload: never) => void;

function isCallResult(value: unknown): value is CallResult<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const result = value as { ok?: unknown; error?: unknown };
  return result.ok === true || (result.ok === false && typeof result.error === 'object' && result.error !== null);
}

/** Reports a listener's exception without stopping the other listeners. */
function report(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}

export function createDesktopApi(ipc: IpcRendererLike, versions: DesktopVersions): DesktopApi {
  const listeners = new Map<EventName, Set<Listener>>();

  // The only IPC listener; the renderer never sees Electron's event object.
  ipc.on(IPC_EVENT_CHANNEL, (_event, message) => {
    if (typeof message !== 'object' || message === null) return;
    const { event, payload } = message as { event?: unknown; payload?: unknown };
    if (!isEventName(event)) return;
    for (const listener of [...(listeners.get(event) ?? [])]) {
      try {
        listener(payload as never);
      } catch (error) {
        report(error);
      }
    }
  });
  // A new page (first load or reload): the main process opens this window's session now.
  ipc.invoke(IPC_HELLO_CHANNEL).catch(() => undefined);

  const inspector: DesktopApi['inspector'] = {
    async call<C extends CallName>(channel: C, input: CallInput<C>): Promise<CallResult<CallOutput<C>>> {
      if (!isCallName(channel)) {
        return errorResult({ code: 'inspector/bad-request', message: `no inspector call is named ${JSON.stringify(String(channel)).slice(0, 100)}` });
      }
      let answer: unknown;
      try {
        answer = await ipc.invoke(channel, input);
      } catch (error) {
        return errorResult({ code: 'internal/unexpected', message: `the call ${channel} did not reach the peer: ${errorMessage(error)}` });
      }
      if (!isCallResult(answer))
        return errorResult({ code: 'internal/unexpected', message: `the peer answered ${channel} with something that is not a call result` });
      return answer as CallResult<CallOutput<C>>;
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
      if (!isEventName(event)) throw new TypeError(`no inspector event is named ${JSON.stringify(String(event)).slice(0, 100)}`);
      if (typeof listener !== 'function') throw new TypeError(`the listener of ${event} must be a function`);
      let set = listeners.get(event);
      if (set === undefined) {
        set = new Set();
        listeners.set(event, set);
      }
      // Each subscription is its own entry, so the same function subscribed twice is called twice
      // and each unsubscribe removes one.
      const entry: Listener = (payload) => listener(payload as EventPayload<E>);
      set.add(entry);
      const subscribed = set;
      return () => {
        subscribed.delete(entry);
      };
    },
  };
  const peers: RemotePeersApi = {
    async list() {
      try {
        const answer = await ipc.invoke(IPC_PEERS_LIST_CHANNEL);
        return Array.isArray(answer) ? (answer as RemotePeerEntry[]) : [];
      } catch {
        return [];
      }
    },
    async open(url: string, label?: string) {
      if (typeof url !== 'string' || (label !== undefined && typeof label !== 'string'))
        return errorResult({ code: 'inspector/bad-request', message: 'open takes a URL and an optional label, both text' });
      try {
        const answer = await ipc.invoke(IPC_PEERS_OPEN_CHANNEL, { url, ...(label === undefined ? {} : { label }) });
        if (!isCallResult(answer)) return errorResult({ code: 'internal/unexpected', message: 'the app answered with something that is not a call result' });
        return answer as CallResult<RemotePeerEntry>;
      } catch (error) {
        return errorResult({ code: 'internal/unexpected', message: `the app could not open the peer: ${errorMessage(error)}` });
      }
    },
    async forget(url: string) {
      if (typeof url !== 'string') return;
      await ipc.invoke(IPC_PEERS_FORGET_CHANNEL, { url }).catch(() => undefined);
    },
  };
  return Object.freeze({ versions: Object.freeze({ ...versions }), inspector: Object.freeze(inspector), peers: Object.freeze(peers) });
}
