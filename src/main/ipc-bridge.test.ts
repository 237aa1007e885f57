/**
 * The Electron bridge's main side against a real Sync and a real inspector, with stand-ins for
 * Electron's ipcMain and webContents (the Electron binary is absent here). The stand-in ipcMain
 * behaves as Electron's does where it matters: one handler per channel, and answers pass through
 * the structured clone algorithm.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALL_NAMES, type InspectorSession } from '../shared/inspector/contract.ts';
import { IPC_EVENT_CHANNEL, IPC_HELLO_CHANNEL, type IpcEventMessage } from '../shared/inspector/ipc.ts';
import type { CallResult } from '../shared/inspector/result.ts';
import { LogHub, Sync, createInspector, type Inspector } from '../peer/host.ts';
import { registerInspectorIpc, type InspectorIpc, type IpcInvokeEventLike, type IpcMainLike, type WebContentsLike } from './ipc-bridge.ts';

const APP_URL = 'file:///opt/syncmesh/out/renderer/index.html';

type Listener = (event: IpcInvokeEventLike, ...args: unknown[]) => unknown;

class StandInIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, Listener>();
  handle(channel: string, listener: Listener): void {
    // Electron refuses a second handler for a channel.
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** What `ipcRenderer.invoke(channel, …args)` in `sender`'s page would get. */
  async invoke(sender: StandInWebContents, channel: string, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (handler === undefined) throw new Error(`No handler registered for '${channel}'`);
    const answer = await handler({ sender, senderFrame: sender.isDestroyed() ? null : { url: sender.url } }, ...args.map((a) => structuredClone(a)));
    return structuredClone(answer);
  }
}

let nextWebContentsId = 1;

class StandInWebContents extends EventEmitter implements WebContentsLike {
  readonly id = nextWebContentsId++;
  readonly url: string;
  readonly sent: IpcEventMessage[] = [];
  #destroyed = false;
  constructor(url = APP_URL) {
    super();
    this.url = url;
  }
  send(channel: string, ...args: unknown[]): void {
    if (this.#destroyed) throw new Error('Object has been destroyed');
    if (channel !== IPC_EVENT_CHANNEL) throw new Error(`unexpected channel ${channel}`);
    this.sent.push(structuredClone(args[0]) as IpcEventMessage);
  }
  isDestroyed(): boolean {
    return this.#destroyed;
  }
  destroy(): void {
    this.#destroyed = true;
    this.emit('destroyed');
  }
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

describe('registerInspectorIpc', () => {
  let hub: LogHub;
  let sync: Sync;
  let inspector: Inspector;
  let ipcMain: StandInIpcMain;
  let bridge: InspectorIpc;
  let sessions: { session: InspectorSession; closed: boolean }[];

  beforeEach(() => {
    hub = new LogHub({ minimumLogLevel: 'DEBUG' });
    sync = new Sync({ inMemory: true, logHub: hub });
    inspector = createInspector(sync);
    sessions = [];
    ipcMain = new StandInIpcMain();
    bridge = registerInspectorIpc({
      ipcMain,
      inspector: {
        openSession: () => {
          const session = inspector.openSession();
          const record = { session, closed: false };
          sessions.push(record);
          return { handlers: session.handlers, onEvent: (send) => session.onEvent(send), close: () => ((record.closed = true), session.close()) };
        },
      },
      isTrustedSender: (event) => event.senderFrame?.url === APP_URL,
    });
  });

  afterEach(() => {
    bridge.dispose();
    inspector.close();
    sync.close();
    hub.close();
  });

  const eventsOf = (window: StandInWebContents, marker: string): IpcEventMessage[] =>
    window.sent.filter((m) => m.event === 'logs:batch' && JSON.stringify(m.payload).includes(marker));

  it('registers a handler for every call of the contract, and the hello channel, and nothing else', () => {
    expect([...ipcMain.handlers.keys()].sort()).toEqual([...CALL_NAMES, IPC_HELLO_CHANNEL].sort());
  });

  it('answers every channel with a CallResult that survives IPC', async () => {
    const window = new StandInWebContents();
    for (const channel of CALL_NAMES) {
      const answer = (await ipcMain.invoke(window, channel, {})) as CallResult<unknown>;
      expect([channel, typeof answer.ok]).toEqual([channel, 'boolean']);
      if (!answer.ok) expect([channel, typeof answer.error.code, typeof answer.error.message]).toEqual([channel, 'string', 'string']);
    }
    const overview = (await ipcMain.invoke(window, 'overview:get', {})) as CallResult<{ peerKey: string }>;
    expect(overview).toMatchObject({ ok: true, value: { peerKey: sync.peerKey } });
  });

  it('returns errors as values with their codes, never as rejections', async () => {
    const window = new StandInWebContents();
    await expect(ipcMain.invoke(window, 'logs:set-level', { level: 'LOUD' })).resolves.toMatchObject({ ok: false, error: { code: 'inspector/bad-request' } });
    // An offline peer has nowhere to sync.
    await expect(ipcMain.invoke(window, 'sync:start', {})).resolves.toMatchObject({ ok: false, error: { code: 'sync/not-configured' } });
    await expect(ipcMain.invoke(window, 'logs:set-level', 'not an object')).resolves.toMatchObject({ ok: false, error: { code: 'inspector/bad-request' } });
  });

  it('serves a call sent without input with {}', async () => {
    const window = new StandInWebContents();
    await expect(ipcMain.invoke(window, 'overview:get')).resolves.toMatchObject({ ok: true });
  });

  it('opens one session per window, on hello or on its first call', async () => {
    const first = new StandInWebContents();
    const second = new StandInWebContents();
    await ipcMain.invoke(first, IPC_HELLO_CHANNEL);
    await ipcMain.invoke(second, 'overview:get', {});
    await ipcMain.invoke(second, 'logs:recent', {});
    await ipcMain.invoke(first, 'overview:get', {});
    expect(sessions).toHaveLength(2);
    expect(bridge.sessions).toBe(2);
  });

  it('ignores input from a destroyed window: nothing runs and no session opens', async () => {
    const window = new StandInWebContents();
    window.destroy();
    const answer = (await ipcMain.invoke(window, 'logs:set-level', { level: 'ERROR' })) as CallResult<unknown>;
    expect(answer.ok).toBe(false);
    expect(hub.minimumLogLevel).toBe('DEBUG');
    await ipcMain.invoke(window, IPC_HELLO_CHANNEL);
    expect(sessions).toHaveLength(0);
  });

  it('refuses a sender that is not the app page, without a session', async () => {
    const foreign = new StandInWebContents('https://evil.example/');
    const answer = (await ipcMain.invoke(foreign, 'logs:set-level', { level: 'ERROR' })) as CallResult<unknown>;
    expect(answer).toMatchObject({ ok: false, error: { code: 'inspector/bad-request' } });
    expect(hub.minimumLogLevel).toBe('DEBUG');
    expect(sessions).toHaveLength(0);
  });

  it('sends events to the windows that have a session, each through its own webContents', async () => {
    const first = new StandInWebContents();
    const second = new StandInWebContents();
    const silent = new StandInWebContents();
    await ipcMain.invoke(first, IPC_HELLO_CHANNEL);
    await ipcMain.invoke(second, IPC_HELLO_CHANNEL);
    hub.emit('INFO', 'test', 'ipc_event_one', {});
    await expect.poll(() => [eventsOf(first, 'ipc_event_one').length, eventsOf(second, 'ipc_event_one').length]).toEqual([1, 1]);
    expect(silent.sent).toEqual([]);
    expect(eventsOf(first, 'ipc_event_one')[0]).toMatchObject({ event: 'logs:batch', payload: { entries: [{ event: 'ipc_event_one' }] } });
  });

  it('closes a window’s session when the window is destroyed, and sends it nothing more', async () => {
    const first = new StandInWebContents();
    const second = new StandInWebContents();
    await ipcMain.invoke(first, IPC_HELLO_CHANNEL);
    await ipcMain.invoke(second, IPC_HELLO_CHANNEL);
    first.destroy();
    expect(sessions.map((s) => s.closed)).toEqual([true, false]);
    expect(bridge.sessions).toBe(1);
    const before = first.sent.length;
    hub.emit('INFO', 'test', 'after_close', {});
    await expect.poll(() => eventsOf(second, 'after_close').length).toBe(1);
    await settle();
    expect(first.sent.length).toBe(before);
  });

  it('gives a reloaded page (a second hello) a fresh session and closes the old one', async () => {
    const window = new StandInWebContents();
    await ipcMain.invoke(window, IPC_HELLO_CHANNEL);
    await ipcMain.invoke(window, IPC_HELLO_CHANNEL);
    expect(sessions.map((s) => s.closed)).toEqual([true, false]);
    hub.emit('INFO', 'test', 'after_reload', {});
    await expect.poll(() => eventsOf(window, 'after_reload').length).toBe(1);
    await settle();
    // The old session sends nothing more: one batch, not two.
    expect(eventsOf(window, 'after_reload')).toHaveLength(1);
  });

  it('removes every handler and closes every session on dispose', async () => {
    const window = new StandInWebContents();
    await ipcMain.invoke(window, IPC_HELLO_CHANNEL);
    bridge.dispose();
    expect(ipcMain.handlers.size).toBe(0);
    expect(sessions.map((s) => s.closed)).toEqual([true]);
    await expect(ipcMain.invoke(window, 'overview:get', {})).rejects.toThrow(/No handler registered/);
    // A window destroyed after dispose is harmless.
    window.destroy();
  });
});
