/**
 * The Electron bridge's own IPC channels, besides the calls (each call travels on the channel of
 * its name, `documents:query`, …, with `ipcRenderer.invoke`). `src/main/ipc-bridge.ts` and
 * `src/preload/desktop-api.ts` both use these, so they live here (preload may not import main).
 */
import type { EventName } from './contract.ts';

/**
 * Invoked by the preload once per page load: the main process opens a fresh inspector session
 * for that window (closing the one of the page before, after a reload), so that events flow
 * before the page's first call.
 */
export const IPC_HELLO_CHANNEL = 'inspector:hello';

/** Main → window: one pushed event, `{ event, payload }`. */
export const IPC_EVENT_CHANNEL = 'inspector:event';

/** The message on `IPC_EVENT_CHANNEL`. */
export interface IpcEventMessage {
  readonly event: EventName;
  readonly payload: unknown;
}

/** Window → main: the remembered peers (`RemotePeerEntry[]`). */
export const IPC_PEERS_LIST_CHANNEL = 'desktop:peers-list';
/** Window → main: open `{ url, label? }` in a window of its own and remember it (`CallResult<RemotePeerEntry>`). */
export const IPC_PEERS_OPEN_CHANNEL = 'desktop:peers-open';
/** Window → main: forget `{ url }`. */
export const IPC_PEERS_FORGET_CHANNEL = 'desktop:peers-forget';
