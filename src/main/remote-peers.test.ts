/**
 * "Connect to a running peer", main side, with real files in a temporary user-data folder and a
 * stand-in ipcMain and window opener (Electron itself cannot run here).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IPC_PEERS_FORGET_CHANNEL, IPC_PEERS_LIST_CHANNEL, IPC_PEERS_OPEN_CHANNEL } from '../shared/inspector/ipc.ts';
import type { IpcInvokeEventLike, IpcMainLike } from './ipc-bridge.ts';
import { REMOTE_PEERS_FILE, RemotePeerList, registerRemotePeersIpc } from './remote-peers.ts';

const TOKEN = 'WxKsXVqIqR5lq_hsw2HC7IMWe2ZHGfW3BaAQxiNNnNY';
const URL_A = `http://127.0.0.1:41237/${TOKEN}/`;
const URL_B = 'http://127.0.0.1:41238/other-token/';

class StandInIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, (event: IpcInvokeEventLike, ...args: unknown[]) => unknown>();
  handle(channel: string, listener: (event: IpcInvokeEventLike, ...args: unknown[]) => unknown): void {
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  invoke(channel: string, from: 'app' | 'other', ...args: unknown[]): Promise<unknown> {
    const event = { sender: { id: 1, send: () => {}, isDestroyed: () => false, once: () => {} }, senderFrame: { url: from } } as unknown as IpcInvokeEventLike;
    return Promise.resolve((this.handlers.get(channel) as (event: IpcInvokeEventLike, ...args: unknown[]) => unknown)(event, ...args));
  }
}

describe('connecting to a running peer', () => {
  let dir: string;
  let ipc: StandInIpcMain;
  let opened: [string, string][];
  let failing: boolean;
  let clock: number;
  let dispose: () => void;

  const start = (): void => {
    dispose = registerRemotePeersIpc({
      ipcMain: ipc,
      list: new RemotePeerList(dir),
      openWindow: async (url, label) => {
        if (failing) throw new Error('ERR_CONNECTION_REFUSED (-102) loading ' + url);
        opened.push([url, label]);
      },
      isTrustedSender: (event) => event.senderFrame?.url === 'app',
      now: () => clock,
    });
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'remote-peers-'));
    ipc = new StandInIpcMain();
    opened = [];
    failing = false;
    clock = 1_000;
    start();
  });
  afterEach(() => {
    dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens the URL a peer printed in its own window and remembers it, normalised, across restarts of the app', async () => {
    expect(await ipc.invoke(IPC_PEERS_OPEN_CHANNEL, 'app', { url: `  ${URL_A.slice(0, -1)}#/documents `, label: 'Register 2' })).toEqual({
      ok: true,
      value: { url: URL_A, label: 'Register 2', lastOpenedAt: 1_000 },
    });
    expect(opened).toEqual([[URL_A, 'Register 2']]);
    clock = 2_000;
    await ipc.invoke(IPC_PEERS_OPEN_CHANNEL, 'app', { url: URL_B });
    expect(opened[1]).toEqual([URL_B, '127.0.0.1:41238']);

    // The app restarts: the list comes back from the user-data folder, the most recent first.
    dispose();
    start();
    expect(await ipc.invoke(IPC_PEERS_LIST_CHANNEL, 'app')).toEqual([
      { url: URL_B, label: '127.0.0.1:41238', lastOpenedAt: 2_000 },
      { url: URL_A, label: 'Register 2', lastOpenedAt: 1_000 },
    ]);
    // Opened again without a label: it keeps its name and moves first.
    clock = 3_000;
    await ipc.invoke(IPC_PEERS_OPEN_CHANNEL, 'app', { url: URL_A });
    expect(opened[2]).toEqual([URL_A, 'Register 2']);
    expect(((await ipc.invoke(IPC_PEERS_LIST_CHANNEL, 'app')) as { url: string }[]).map((e) => e.url)).toEqual([URL_A, URL_B]);

    await ipc.invoke(IPC_PEERS_FORGET_CHANNEL, 'app', { url: URL_B });
    expect(JSON.parse(readFileSync(join(dir, REMOTE_PEERS_FILE), 'utf8'))).toEqual({ peers: [{ url: URL_A, label: 'Register 2', lastOpenedAt: 3_000 }] });
  });

  it('refuses a URL no inspector serves, and remembers none that did not open', async () => {
    expect(await ipc.invoke(IPC_PEERS_OPEN_CHANNEL, 'app', { url: 'http://localhost:1/abc/' })).toMatchObject({
      ok: false,
      error: { code: 'inspector/bad-request', message: expect.stringContaining('IP address') },
    });
    expect(await ipc.invoke(IPC_PEERS_OPEN_CHANNEL, 'app', { url: 42 })).toMatchObject({ ok: false, error: { code: 'inspector/bad-request' } });
    failing = true;
    expect(await ipc.invoke(IPC_PEERS_OPEN_CHANNEL, 'app', { url: URL_A })).toMatchObject({
      ok: false,
      error: { code: 'inspector/not-found', message: expect.stringContaining('ERR_CONNECTION_REFUSED') },
    });
    expect(opened).toEqual([]);
    expect(await ipc.invoke(IPC_PEERS_LIST_CHANNEL, 'app')).toEqual([]);
  });

  it('answers only the app’s own page', async () => {
    await ipc.invoke(IPC_PEERS_OPEN_CHANNEL, 'app', { url: URL_A });
    expect(await ipc.invoke(IPC_PEERS_LIST_CHANNEL, 'other')).toEqual([]);
    expect(await ipc.invoke(IPC_PEERS_OPEN_CHANNEL, 'other', { url: URL_B })).toMatchObject({ ok: false, error: { code: 'inspector/bad-request' } });
    await ipc.invoke(IPC_PEERS_FORGET_CHANNEL, 'other', { url: URL_A });
    expect(opened).toEqual([[URL_A, '127.0.0.1:41237']]);
    expect(await ipc.invoke(IPC_PEERS_LIST_CHANNEL, 'app')).toHaveLength(1);
  });

  it('starts empty from a damaged file, drops entries that are not inspector URLs, and keeps at most 20', async () => {
    writeFileSync(join(dir, REMOTE_PEERS_FILE), '{ not json');
    expect(new RemotePeerList(dir).list()).toEqual([]);
    writeFileSync(
      join(dir, REMOTE_PEERS_FILE),
      JSON.stringify({ peers: [{ url: 'http://evil.example/x/', label: 'x', lastOpenedAt: 1 }, { url: URL_A, label: 'ok', lastOpenedAt: 2 }, { url: URL_A }] }),
    );
    expect(new RemotePeerList(dir).list()).toEqual([{ url: URL_A, label: 'ok', lastOpenedAt: 2 }]);
    const list = new RemotePeerList(dir);
    for (let port = 1; port <= 25; port++) list.remember(`http://127.0.0.1:${port}/t/`, `127.0.0.1:${port}`, undefined, port);
    expect(list.list()).toHaveLength(20);
    expect(list.list()[0]?.url).toBe('http://127.0.0.1:25/t/');
  });
});
