/**
 * `serveInspector(sync)` over real HTTP and WebSocket connections: the inspector attached to a
 * peer the application runs itself, read-only when asked, on another local address when told.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { LogHub } from '../log/log-hub.ts';
import { Sync } from '../sync/sync.ts';
import { READ_ONLY_META } from './inspector-server.ts';
import { serveInspector, type ServedInspector } from './serve-inspector.ts';

const WAIT_MS = 5_000;

interface Answer {
  readonly ok: boolean;
  readonly value?: any;
  readonly error?: { readonly code: string; readonly message: string };
}

/** One call on a fresh socket with the page's own Origin, as the page makes it. */
async function call(served: ServedInspector, channel: string, input: unknown = {}): Promise<Answer> {
  const socket = new WebSocket(`${served.url}ws`.replace(/^http/, 'ws'), { headers: { origin: served.origin }, handshakeTimeout: WAIT_MS });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const answer = new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${channel} within ${WAIT_MS} ms`)), WAIT_MS);
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { type: string; id?: number; result?: Answer };
        if (frame.type !== 'result' || frame.id !== 1) return;
        clearTimeout(timer);
        resolve(frame.result as Answer);
      });
    });
    socket.send(JSON.stringify({ type: 'call', id: 1, channel, input }));
    return await answer;
  } finally {
    socket.terminate();
  }
}

describe('serveInspector', () => {
  let dir: string;
  let hub: LogHub;
  let sync: Sync;
  const served: ServedInspector[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'serve-inspector-'));
    hub = new LogHub({ minimumLogLevel: 'INFO' });
    sync = new Sync({ persistenceDirectory: join(dir, 'store'), logHub: hub });
  });

  afterEach(async () => {
    for (const s of served.splice(0)) await s.close();
    sync.close();
    hub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const build = (): string => {
    const folder = mkdtempSync(join(dir, 'renderer-'));
    writeFileSync(join(folder, 'index.html'), '<!doctype html><title>SyncMesh</title>');
    return folder;
  };

  const serve = async (options: Parameters<typeof serveInspector>[1] = {}): Promise<ServedInspector> => {
    const s = await serveInspector(sync, { rendererDir: build(), ...options });
    served.push(s);
    return s;
  };

  it('serves the page of the app’s own peer behind a token on 127.0.0.1, and closing it leaves the peer running', async () => {
    const s = await serve();
    expect(s.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${s.port}/[A-Za-z0-9_-]{43}/$`));
    expect(await (await fetch(s.url)).text()).toBe('<!doctype html><title>SyncMesh</title>');
    expect((await fetch(s.origin)).status).toBe(404);
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'o1', total: 3 } });
    const answer = await call(s, 'documents:query', { statement: 'SELECT * FROM orders' });
    expect(answer).toMatchObject({ ok: true, value: { total: 1 } });
    expect((await call(s, 'overview:get')).value.peerKey).toBe(sync.peerKey);

    await s.close();
    await expect(fetch(s.url)).rejects.toThrow();
    // The Sync is the application's: it still writes and reads.
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'o2', total: 4 } });
    expect((await sync.store.execute('SELECT * FROM orders')).items).toHaveLength(2);
  });

  it('read-only, shows the peer and refuses every change with inspector/read-only, running none of it', async () => {
    const s = await serve({ readOnly: true });
    expect(s.readOnly).toBe(true);
    // The page learns it from its own HTML.
    expect(await (await fetch(s.url)).text()).toBe('<!doctype html><title>SyncMesh</title>'.replace('<title>', `${READ_ONLY_META}<title>`));
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'o1', total: 3 } });
    expect(await call(s, 'documents:query', { statement: '-- look\nSELECT * FROM orders' })).toMatchObject({ ok: true, value: { total: 1 } });
    expect(await call(s, 'documents:query', { statement: 'EXPLAIN DELETE FROM orders' })).toMatchObject({ ok: true });
    expect((await call(s, 'transactions:list')).ok).toBe(true);
    for (const [channel, input] of [
      ['documents:query', { statement: "DELETE FROM orders WHERE _id = 'o1'" }],
      ['documents:query', { statement: 'UPDATE orders SET total = 0' }],
      ['documents:query', { statement: 'CREATE INDEX by_total ON orders (total)' }],
      ['transactions:hold', { ms: 60_000 }],
      ['sync:stop', {}],
      ['subscriptions:register', { statement: 'SELECT * FROM orders', args: {} }],
      ['logs:set-level', { level: 'DEBUG' }],
      ['prefs:set', { prefs: { theme: 'dark' } }],
    ] as const) {
      const answer = await call(s, channel, input);
      expect([channel, answer.ok, answer.error?.code]).toEqual([channel, false, 'inspector/read-only']);
    }
    expect((await sync.store.execute('SELECT * FROM orders')).items).toEqual([expect.objectContaining({ _id: 'o1', total: 3 })]);
    // Only the peer's own presence subscription: none was registered.
    expect(sync.store.subscriptions.map((sub) => sub.collection)).toEqual(['__presence']);
    expect((await call(s, 'transactions:slot')).value.holder).toBeUndefined();
    expect(sync.isSyncActive).toBe(false);
  });

  it('listens on another local address when told, and answers only to that address as Host', async () => {
    const s = await serve({ host: '127.0.0.2' });
    expect(s.url.startsWith(`http://127.0.0.2:${s.port}/`)).toBe(true);
    expect((await fetch(s.url)).status).toBe(200);
    expect((await call(s, 'overview:get')).ok).toBe(true);
    await expect(fetch(s.url.replace('127.0.0.2', '127.0.0.1'))).rejects.toThrow();
  });

  it('refuses a wildcard or a name as host, and a missing page, with inspector/bad-option and nothing left listening', async () => {
    for (const host of ['0.0.0.0', '::', 'localhost', 'example.com'])
      await expect(serveInspector(sync, { rendererDir: build(), host })).rejects.toMatchObject({ code: 'inspector/bad-option' });
    await expect(serveInspector(sync, { rendererDir: join(dir, 'no-build') })).rejects.toMatchObject({
      code: 'inspector/bad-option',
      message: expect.stringContaining('npm run build'),
    });
  });
});
