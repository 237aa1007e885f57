/**
 * The Electron bridge, main side: every call of the contract is an `ipcMain.handle` channel of
 * its own name, answered with `serveCall(…)`'s `CallResult` (errors as values: Electron would keep
 * only an exception's message). Each window (each `webContents`) gets its own inspector session,
 * opened by the preload's `inspector:hello` at page load or by the window's first call, pushed
 * events go to that window only (`inspector:event`), and the session closes with the window.
 *
 * Electron-free: it takes the few members of `ipcMain` and `webContents` it uses, so that tests
 * run it in plain Node with stand-ins.
 */
import { CALL_NAMES, type InspectorSession } from '../shared/inspector/contract.ts';
import { IPC_EVENT_CHANNEL, IPC_HELLO_CHANNEL, type IpcEventMessage } from '../shared/inspector/ipc.ts';
import { errorResult, type CallResult } from '../shared/inspector/result.ts';
import { serveCall } from '../peer/host.ts';

/** The part of a `webContents` the bridge uses. */
export interface WebContentsLike {
  readonly id: number;
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): unknown;
}

/** The part of an `IpcMainInvokeEvent` the bridge uses. */
export interface IpcInvokeEventLike {
  readonly sender: WebContentsLike;
  /** The frame that called; Electron sets it (null once the frame is gone). */
  readonly senderFrame?: { readonly url: string } | null;
}

/** The part of Electron's `ipcMain` the bridge uses. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

/** What the bridge needs of the peer's inspector. */
export interface SessionSource {
  openSession(): InspectorSession;
}

export interface InspectorIpcOptions {
  readonly ipcMain: IpcMainLike;
  readonly inspector: SessionSource;
  /**
   * Whether a message comes from the app's own page. The main process passes a check of the
   * sender frame's URL; a refused sender gets `inspector/bad-request` and no session.
   */
  readonly isTrustedSender?: (event: IpcInvokeEventLike) => boolean;
}

export interface InspectorIpc {
  /** Windows with an open session. */
  readonly sessions: number;
  /** Removes every handler and closes every session. */
  dispose(): void;
}

interface Window {
  readonly sender: WebContentsLike;
  session: InspectorSession | undefined;
}

const REFUSED: CallResult<never> = errorResult({ code: 'inspector/bad-request', message: 'this window may not use the inspector' });

export function registerInspectorIpc(options: InspectorIpcOptions): InspectorIpc {
  const { ipcMain, inspector } = options;
  const trusted = options.isTrustedSender ?? (() => true);
  const windows = new Map<number, Window>();
  let disposed = false;

  const closeSession = (window: Window): void => {
    const session = window.session;
    window.session = undefined;
    session?.close();
  };

  /** The window of a message the bridge accepts; undefined for a gone or foreign sender. */
  const windowOf = (event: IpcInvokeEventLike): Window | undefined => {
    const sender = event.sender;
    if (disposed || sender.isDestroyed() || !trusted(event)) return undefined;
    let window = windows.get(sender.id);
    if (window === undefined) {
      const created: Window = { sender, session: undefined };
      window = created;
      windows.set(sender.id, created);
      sender.once('destroyed', () => {
        closeSession(created);
        if (windows.get(sender.id) === created) windows.delete(sender.id);
      });
    }
    return window;
  };

  const openSession = (window: Window): InspectorSession => {
    const session = inspector.openSession();
    window.session = session;
    const { sender } = window;
    session.onEvent((event, payload) => {
      // Only this window's page, and only while it exists.
      if (window.session !== session || sender.isDestroyed()) return;
      const message: IpcEventMessage = { event, payload };
      sender.send(IPC_EVENT_CHANNEL, message);
    });
    return session;
  };

  ipcMain.handle(IPC_HELLO_CHANNEL, (event) => {
    const window = windowOf(event);
    if (window === undefined) return REFUSED;
    // A new page in this window (a reload): what the previous page held is let go.
    closeSession(window);
    openSession(window);
    return { ok: true, value: {} } satisfies CallResult<Record<string, never>>;
  });

  for (const channel of CALL_NAMES) {
    ipcMain.handle(channel, async (event, input) => {
      const window = windowOf(event);
      if (window === undefined) return REFUSED;
      const session = window.session ?? openSession(window);
      // As over the WebSocket, a call sent without input takes `{}`.
      return serveCall(session.handlers, channel, input === undefined ? {} : input);
    });
  }

  return {
    get sessions() {
      return [...windows.values()].filter((window) => window.session !== undefined).length;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      ipcMain.removeHandler(IPC_HELLO_CHANNEL);
      for (const channel of CALL_NAMES) ipcMain.removeHandler(channel);
      for (const window of windows.values()) closeSession(window);
      windows.clear();
    },
  };
}
