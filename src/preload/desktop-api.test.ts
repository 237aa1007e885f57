/**
 * The preload's API with a stand-in ipcRenderer: calls checked against the contract before IPC,
 * answers always CallResult values, one event listener dispatching by name.
 */
import { describe, expect, it, vi } from 'vitest';
import { CALL_NAMES } from '../shared/inspector/contract.ts';
import { IPC_EVENT_CHANNEL, IPC_HELLO_CHANNEL, IPC_PEERS_FORGET_CHANNEL, IPC_PEERS_LIST_CHANNEL, IPC_PEERS_OPEN_CHANNEL } from '../shared/inspector/ipc.ts';
import { createDesktopApi, type IpcRendererLike } from './desktop-api.ts';

const VERSIONS = { app: '1.2.3', electron: '45.4.1', chrome: '140', node: '22.20.0' };

class StandInIpcRenderer implements IpcRendererLike {
  readonly invoked: unknown[][] = [];
  readonly listeners = new Map<string, ((event: unknown, ...args: unknown[]) => void)[]>();
  answer: (channel: string, ...args: unknown[]) => Promise<unknown> = async () => ({ ok: true, value: {} });
  invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    this.invoked.push([channel, ...args]);
    return this.answer(channel, ...args);
  }
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): this {
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
    return this;
  }
  /** What the main process's `webContents.send(channel, message)` does. */
  push(channel: string, message: unknown): void {
    for (const listener of this.listeners.get(channel) ?? []) listener({ sender: 'ipc-event-object' }, message);
  }
}

function setUp(): { ipc: StandInIpcRenderer; api: ReturnType<typeof createDesktopApi> } {
  const ipc = new StandInIpcRenderer();
  const api = createDesktopApi(ipc, VERSIONS);
  return { ipc, api };
}

describe('createDesktopApi', () => {
  it('exposes exactly the versions, the inspector bridge and the remembered peers, frozen', () => {
    const { api } = setUp();
    expect(Object.keys(api).sort()).toEqual(['inspector', 'peers', 'versions']);
    expect(Object.keys(api.peers).sort()).toEqual(['forget', 'list', 'open']);
    expect(Object.isFrozen(api.peers)).toBe(true);
    expect(Object.keys(api.inspector).sort()).toEqual(['call', 'on']);
    expect(api.versions).toEqual(VERSIONS);
    expect(Object.isFrozen(api) && Object.isFrozen(api.inspector) && Object.isFrozen(api.versions)).toBe(true);
  });

  it('says hello once at page load and listens on one event channel', () => {
    const { ipc } = setUp();
    expect(ipc.invoked).toEqual([[IPC_HELLO_CHANNEL]]);
    expect([...ipc.listeners.keys()]).toEqual([IPC_EVENT_CHANNEL]);
    expect(ipc.listeners.get(IPC_EVENT_CHANNEL)).toHaveLength(1);
  });

  it('invokes each contract channel with its input and hands back the result', async () => {
    const { ipc, api } = setUp();
    ipc.answer = async (channel, input) => ({ ok: true, value: { channel, input } });
    for (const channel of CALL_NAMES) {
      await expect(api.inspector.call(channel, {} as never)).resolves.toEqual({ ok: true, value: { channel, input: {} } });
    }
    expect(ipc.invoked.slice(1).map(([channel]) => channel)).toEqual([...CALL_NAMES]);
  });

  it('refuses a channel outside the contract with an error value, without touching IPC', async () => {
    const { ipc, api } = setUp();
    for (const channel of ['inspector:hello', 'inspector:event', 'documents:drop', '', 'constructor']) {
      await expect(api.inspector.call(channel as never, {} as never)).resolves.toMatchObject({ ok: false, error: { code: 'inspector/bad-request' } });
    }
    expect(ipc.invoked).toEqual([[IPC_HELLO_CHANNEL]]);
  });

  it('turns an IPC failure or an answer that is not a CallResult into internal/unexpected', async () => {
    const { ipc, api } = setUp();
    ipc.answer = async () => {
      throw new Error("Error invoking remote method 'overview:get': boom");
    };
    await expect(api.inspector.call('overview:get', {})).resolves.toMatchObject({
      ok: false,
      error: { code: 'internal/unexpected', message: expect.stringContaining('boom') },
    });
    ipc.answer = async () => 'nonsense';
    await expect(api.inspector.call('overview:get', {})).resolves.toMatchObject({ ok: false, error: { code: 'internal/unexpected' } });
    ipc.answer = async () => ({ ok: false, error: { code: 'query/invalid', message: 'bad' } });
    await expect(api.inspector.call('documents:query', { statement: 'x' } as never)).resolves.toEqual({
      ok: false,
      error: { code: 'query/invalid', message: 'bad' },
    });
  });

  it('dispatches events by name to their listeners only, without Electron’s event object', () => {
    const { ipc, api } = setUp();
    const logs = vi.fn();
    const mesh = vi.fn();
    api.inspector.on('logs:batch', logs);
    api.inspector.on('mesh:changed', mesh);
    ipc.push(IPC_EVENT_CHANNEL, { event: 'logs:batch', payload: { entries: [], dropped: 0 } });
    expect(logs.mock.calls).toEqual([[{ entries: [], dropped: 0 }]]);
    expect(mesh).not.toHaveBeenCalled();
  });

  it('ignores event messages that are not of the contract', () => {
    const { ipc, api } = setUp();
    const logs = vi.fn();
    api.inspector.on('logs:batch', logs);
    for (const message of [undefined, null, 'logs:batch', { event: 'nope', payload: 1 }, { payload: 1 }]) ipc.push(IPC_EVENT_CHANNEL, message);
    expect(logs).not.toHaveBeenCalled();
  });

  it('refuses to listen to an unknown event name or a non-function', () => {
    const { api } = setUp();
    expect(() => api.inspector.on('nope' as never, () => {})).toThrow(TypeError);
    expect(() => api.inspector.on('logs:batch', 'x' as never)).toThrow(TypeError);
  });

  it('stops calling a listener once unsubscribed, and keeps the others', () => {
    const { ipc, api } = setUp();
    const first = vi.fn();
    const second = vi.fn();
    const off = api.inspector.on('store:changed', first);
    api.inspector.on('store:changed', second);
    off();
    off();
    ipc.push(IPC_EVENT_CHANNEL, { event: 'store:changed', payload: { txnId: 1, collections: ['a'] } });
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
  });

  it('keeps dispatching to the other listeners when one throws', async () => {
    const { ipc, api } = setUp();
    const reported: unknown[] = [];
    const onError = (error: unknown): void => void reported.push(error);
    process.on('uncaughtException', onError);
    try {
      const after = vi.fn();
      api.inspector.on('subscriptions:changed', () => {
        throw new Error('listener bug');
      });
      api.inspector.on('subscriptions:changed', after);
      ipc.push(IPC_EVENT_CHANNEL, { event: 'subscriptions:changed', payload: {} });
      expect(after).toHaveBeenCalledTimes(1);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(reported).toEqual([new Error('listener bug')]);
    } finally {
      process.off('uncaughtException', onError);
    }
  });

  it('asks the app for the remembered peers, to open one and to forget one, and never throws', async () => {
    const { ipc, api } = setUp();
    const entry = { url: 'http://127.0.0.1:9/t/', label: 'register 2', lastOpenedAt: 1 };
    ipc.answer = async (channel) =>
      channel === IPC_PEERS_LIST_CHANNEL ? [entry] : channel === IPC_PEERS_OPEN_CHANNEL ? { ok: true, value: entry } : undefined;
    expect(await api.peers.list()).toEqual([entry]);
    expect(await api.peers.open('http://127.0.0.1:9/t/', 'register 2')).toEqual({ ok: true, value: entry });
    await api.peers.forget('http://127.0.0.1:9/t/');
    expect(ipc.invoked.slice(1)).toEqual([
      [IPC_PEERS_LIST_CHANNEL],
      [IPC_PEERS_OPEN_CHANNEL, { url: 'http://127.0.0.1:9/t/', label: 'register 2' }],
      [IPC_PEERS_FORGET_CHANNEL, { url: 'http://127.0.0.1:9/t/' }],
    ]);
    ipc.answer = async () => {
      throw new Error('no handler');
    };
    expect(await api.peers.list()).toEqual([]);
    expect(await api.peers.open('http://127.0.0.1:9/t/')).toMatchObject({ ok: false, error: { code: 'internal/unexpected' } });
    await expect(api.peers.forget('x')).resolves.toBeUndefined();
    expect(await api.peers.open(42 as unknown as string)).toMatchObject({ ok: false, error: { code: 'inspector/bad-request' } });
  });
});
