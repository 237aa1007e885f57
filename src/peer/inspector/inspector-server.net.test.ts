/**
 * The browser mode's server over real HTTP and WebSocket connections on 127.0.0.1, in front of a
 * real Sync and a real inspector, serving a stand-in build of the renderer from a temporary folder.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { InspectorSession } from '../../shared/inspector/contract.ts';
import { LogHub } from '../log/log-hub.ts';
import { Sync } from '../sync/sync.ts';
import { createInspector, type Inspector } from './inspector.ts';
import { contentSecurityPolicy } from '../../shared/content-security-policy.ts';
import { startInspectorServer, type InspectorServer } from './inspector-server.ts';

const WAIT_MS = 5_000;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One raw HTTP request: the path is sent exactly as given (no normalisation), Host as given. */
function get(server: InspectorServer, path: string, options: { host?: string; method?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? `127.0.0.1:${server.port}` },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(WAIT_MS, () => req.destroy(new Error(`no answer to ${path} in time`)));
    req.on('error', reject);
    req.end();
  });
}

type Frame =
  | { type: 'result'; id: number; result: { ok: boolean; value?: any; error?: { code: string; message: string } } }
  | { type: 'event'; event: string; payload: any };

interface Client {
  readonly socket: WebSocket;
  readonly frames: Frame[];
  /** Sends a call and resolves with its result frame. */
  call(channel: string, input?: unknown): Promise<Frame & { type: 'result' }>;
  /** Resolves with the first frame (already received or coming) that satisfies `test`. */
  next(test: (frame: Frame) => boolean, what: string): Promise<Frame>;
  readonly closed: Promise<{ code: number; reason: string }>;
}

let nextId = 1;

/** Opens a socket; resolves with the client, or with the HTTP status of a refused upgrade. */
function connect(url: string, headers: Record<string, string | undefined>): Promise<Client | { refused: number }> {
  return new Promise((resolve, reject) => {
    const defined = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>;
    const socket = new WebSocket(url, { headers: defined, handshakeTimeout: WAIT_MS });
    const frames: Frame[] = [];
    const waiters = new Set<() => void>();
    socket.on('message', (data) => {
      frames.push(JSON.parse(String(data)) as Frame);
      for (const w of [...waiters]) w();
    });
    const closed = new Promise<{ code: number; reason: string }>((done) => socket.on('close', (code, reason) => done({ code, reason: String(reason) })));
    const next = (test: (frame: Frame) => boolean, what: string): Promise<Frame> =>
      new Promise((done, fail) => {
        const check = (): boolean => {
          const found = frames.find(test);
          if (found === undefined) return false;
          waiters.delete(onFrame);
          clearTimeout(timer);
          done(found);
          return true;
        };
        const onFrame = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(onFrame);
          fail(new Error(`${what}: not within ${WAIT_MS} ms; frames: ${JSON.stringify(frames).slice(0, 500)}`));
        }, WAIT_MS);
        if (!check()) waiters.add(onFrame);
      });
    const client: Client = {
      socket,
      frames,
      closed,
      next,
      async call(channel, input) {
        const id = nextId++;
        socket.send(JSON.stringify({ type: 'call', id, channel, ...(input === undefined ? {} : { input }) }));
        return (await next((f) => f.type === 'result' && f.id === id, `the answer to ${channel}`)) as Frame & { type: 'result' };
      },
    };
    socket.once('open', () => resolve(client));
    socket.once('unexpected-response', (_req, res) => {
      resolve({ refused: res.statusCode ?? 0 });
      res.resume();
      socket.terminate();
    });
    socket.once('error', (error) => {
      if (socket.readyState !== WebSocket.CLOSED && socket.readyState !== WebSocket.CLOSING) reject(error);
    });
  });
}

function isClient(value: Client | { refused: number }): value is Client {
  return 'socket' in value;
}

describe('the inspector server', () => {
  let dir: string;
  let hub: LogHub;
  let sync: Sync;
  let inspector: Inspector;
  let server: InspectorServer;
  let sessions: { session: InspectorSession; closed: boolean }[];
  const clients: WebSocket[] = [];

  const socketUrl = (token = server.token): string => `ws://127.0.0.1:${server.port}/${token}/ws`;
  const open = async (headers: Record<string, string | undefined> = {}): Promise<Client> => {
    const client = await connect(socketUrl(), { origin: server.origin, ...headers });
    if (!isClient(client)) throw new Error(`the socket was refused with ${client.refused}`);
    clients.push(client.socket);
    return client;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inspector-server-'));
    const renderer = join(dir, 'renderer');
    mkdirSync(join(renderer, 'assets'), { recursive: true });
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>SyncMesh</title><script type="module" src="./assets/app.js"></script>');
    writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log("app");');
    writeFileSync(join(renderer, 'assets', 'app.css'), 'body{}');
    writeFileSync(join(renderer, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(renderer, 'assets', 'data.bin'), 'x');
    writeFileSync(join(dir, 'secret.txt'), 'SECRET');
    symlinkSync(dir, join(renderer, 'assets', 'outside'));
    symlinkSync(join(dir, 'secret.txt'), join(renderer, 'secret-link.txt'));

    hub = new LogHub({ minimumLogLevel: 'DEBUG' });
    sync = new Sync({ inMemory: true, logHub: hub });
    inspector = createInspector(sync);
    sessions = [];
    const source = {
      openSession: (): InspectorSession => {
        const session = inspector.openSession();
        const record = { session, closed: false };
        sessions.push(record);
        return {
          handlers: session.handlers,
          onEvent: (send) => session.onEvent(send),
          close: () => {
            record.closed = true;
            session.close();
          },
        };
      },
    };
    server = await startInspectorServer({ inspector: source, rendererDir: renderer, maxFrameBytes: 64 * 1024 });
  });

  afterEach(async () => {
    for (const socket of clients.splice(0)) socket.terminate();
    await server.close();
    inspector.close();
    sync.close();
    hub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('over HTTP', () => {
    it('prints a URL of 127.0.0.1 with a token of 32 random bytes in base64url', () => {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}/${server.token}/`);
      expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(server.token, 'base64url')).toHaveLength(32);
    });

    it('serves the page under the token with its policy and security headers', async () => {
      const page = await get(server, `/${server.token}/`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('<title>SyncMesh</title>');
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toBe(`${contentSecurityPolicy('production')}; frame-ancestors 'none'`);
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.headers['cache-control']).toBe('no-store');
      // A query string does not change what is served.
      expect((await get(server, `/${server.token}/?panel=logs`)).body).toBe(page.body);
    });

    it('serves the assets of the build with their content types', async () => {
      const expected: [string, string][] = [
        ['assets/app.js', 'text/javascript; charset=utf-8'],
        ['assets/app.css', 'text/css; charset=utf-8'],
        ['assets/logo.svg', 'image/svg+xml'],
        ['assets/data.bin', 'application/octet-stream'],
        ['index.html', 'text/html; charset=utf-8'],
      ];
      for (const [file, type] of expected) {
        const answer = await get(server, `/${server.token}/${file}`);
        expect([file, answer.status, answer.headers['content-type'], answer.headers['x-content-type-options']]).toEqual([file, 200, type, 'nosniff']);
      }
      expect((await get(server, `/${server.token}/assets/app.js`)).body).toBe('console.log("app");');
    });

    it('answers HEAD with the headers only', async () => {
      const head = await get(server, `/${server.token}/assets/app.js`, { method: 'HEAD' });
      expect([head.status, head.body, head.headers['content-length']]).toEqual([200, '', String('console.log("app");'.length)]);
    });

    it('redirects the bare token to the page with its trailing slash', async () => {
      const answer = await get(server, `/${server.token}`);
      expect([answer.status, answer.headers.location, answer.body]).toEqual([308, `/${server.token}/`, '']);
    });

    it('serves nothing without the right token: 404 with an empty body', async () => {
      const wrong = `${server.token.slice(0, -1)}${server.token.endsWith('A') ? 'B' : 'A'}`;
      const paths = [
        '/',
        '/index.html',
        '/assets/app.js',
        '/ws',
        `/${wrong}/`,
        `/${wrong}/assets/app.js`,
        `/${server.token}x/`,
        `/${server.token.slice(0, 20)}/`,
        `/x/${server.token}/`,
        `//${server.token}/`,
        `/${encodeURIComponent(server.token).replace(/[A-Z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)}/`,
        'http://127.0.0.1/',
        '*',
      ];
      for (const path of paths) {
        const answer = await get(server, path);
        expect([path, answer.status, answer.body, answer.headers['content-type']]).toEqual([path, 404, '', undefined]);
      }
    });

    it('answers 404 with an empty body for files the build does not have', async () => {
      for (const path of ['missing.js', 'assets/', 'assets', 'assets//app.js', 'assets/app.js/', 'ws/x']) {
        const answer = await get(server, `/${server.token}/${path}`);
        expect([path, answer.status, answer.body]).toEqual([path, 404, '']);
      }
    });

    it('refuses every path that leaves the build, encoded or through a symbolic link', async () => {
      const paths = [
        '../secret.txt',
        'assets/../../secret.txt',
        '%2e%2e/secret.txt',
        '%2E%2E%2Fsecret.txt',
        'assets/..%2f..%2fsecret.txt',
        '..%5csecret.txt',
        'assets/%2e%2e/%2e%2e/secret.txt',
        '.%2f..%2fsecret.txt',
        './index.html',
        'assets/outside/secret.txt',
        'secret-link.txt',
        '%00',
        'assets/app.js%00.html',
        '%E0%A4%A',
      ];
      for (const path of paths) {
        const answer = await get(server, `/${server.token}/${path}`);
        expect([path, answer.status, answer.body]).toEqual([path, 404, '']);
      }
    });

    it('refuses a Host that is not its own 127.0.0.1:port (DNS rebinding) with an empty body', async () => {
      for (const host of [
        'evil.example',
        `evil.example:${server.port}`,
        `localhost:${server.port}`,
        `127.0.0.1:${server.port + 1}`,
        '127.0.0.1',
        `[::1]:${server.port}`,
      ]) {
        const answer = await get(server, `/${server.token}/`, { host });
        expect([host, answer.status, answer.body]).toEqual([host, 421, '']);
      }
    });

    it('takes only GET and HEAD', async () => {
      const answer = await get(server, `/${server.token}/`, { method: 'POST' });
      expect([answer.status, answer.headers.allow, answer.body]).toEqual([405, 'GET, HEAD', '']);
      // Without the token, even the method is not discussed.
      expect((await get(server, '/', { method: 'DELETE' })).status).toBe(404);
    });

    it('answers 426 to a plain GET of the socket path', async () => {
      expect((await get(server, `/${server.token}/ws`)).status).toBe(426);
    });
  });

  describe('over the WebSocket', () => {
    it('refuses a socket without the right token, on another path, from another Origin or Host', async () => {
      const wrong = `${server.token.slice(0, -1)}${server.token.endsWith('A') ? 'B' : 'A'}`;
      const cases: [string, Record<string, string | undefined>, number][] = [
        [socketUrl(wrong), { origin: server.origin }, 404],
        [`ws://127.0.0.1:${server.port}/ws`, { origin: server.origin }, 404],
        [`ws://127.0.0.1:${server.port}/${server.token}/`, { origin: server.origin }, 404],
        [`ws://127.0.0.1:${server.port}/${server.token}/ws/x`, { origin: server.origin }, 404],
        [socketUrl(), { origin: 'http://evil.example' }, 403],
        [socketUrl(), { origin: `http://localhost:${server.port}` }, 403],
        [socketUrl(), { origin: 'null' }, 403],
        [socketUrl(), {}, 403],
        [socketUrl(), { origin: server.origin, host: `evil.example:${server.port}` }, 421],
      ];
      for (const [url, headers, status] of cases) {
        const outcome = await connect(url, headers);
        if (isClient(outcome)) outcome.socket.terminate();
        expect([url, headers, isClient(outcome) ? 'open' : outcome.refused]).toEqual([url, headers, status]);
      }
      expect(sessions).toHaveLength(0);
    });

    it('answers a call with its CallResult', async () => {
      const client = await open();
      const answer = await client.call('overview:get', {});
      expect(answer.result.ok).toBe(true);
      expect(answer.result.value.peerKey).toBe(sync.peerKey);
      // A frame without input calls with {}.
      expect((await client.call('logs:recent')).result.ok).toBe(true);
    });

    it('answers errors as values with their codes', async () => {
      const client = await open();
      const answer = await client.call('logs:set-level', { level: 'LOUD' });
      expect(answer.result.ok).toBe(false);
      expect(answer.result.error?.code).toBe('inspector/bad-request');
    });

    it('pushes events to the socket', async () => {
      const client = await open();
      // The session exists once the socket is open: wait for a round trip, then log.
      await client.call('overview:get', {});
      hub.emit('INFO', 'test', 'inspector_server_test', { n: 1 });
      const event = await client.next(
        (f) => f.type === 'event' && f.event === 'logs:batch' && JSON.stringify(f.payload).includes('inspector_server_test'),
        'the log event',
      );
      expect(event.type).toBe('event');
    });

    it('answers a malformed frame that has an id with inspector/bad-request, ignores one without, and goes on', async () => {
      const client = await open();
      client.socket.send('not json');
      client.socket.send('{"type":"call","channel":"overview:get"}');
      client.socket.send(JSON.stringify([1, 2]));
      client.socket.send(Buffer.from('{"type":"call","id":5,"channel":"overview:get"}'), { binary: true });
      client.socket.send(JSON.stringify({ type: 'call', id: 900_001, channel: 'nope:never' }));
      client.socket.send(JSON.stringify({ id: 900_002, channel: 'sync:stop' }));
      client.socket.send(JSON.stringify({ type: 'call', id: 1.5, channel: 'overview:get' }));
      const unknown = await client.next((f) => f.type === 'result' && f.id === 900_001, 'the unknown channel');
      const shapeless = await client.next((f) => f.type === 'result' && f.id === 900_002, 'the frame without type');
      expect(unknown).toMatchObject({ result: { ok: false, error: { code: 'inspector/bad-request' } } });
      expect((unknown as { result: { error: { message: string } } }).result.error.message).toContain('nope:never');
      expect(shapeless).toMatchObject({ result: { ok: false, error: { code: 'inspector/bad-request' } } });
      // A good call after them is answered, and nothing else was.
      expect((await client.call('overview:get', {})).result.ok).toBe(true);
      expect(client.frames.filter((f) => f.type === 'result').map((f) => (f as { id: number }).id)).toEqual([900_001, 900_002, nextId - 1]);
      expect(client.socket.readyState).toBe(WebSocket.OPEN);
    });

    it('closes a socket that sends a frame over the limit, and its session', async () => {
      const client = await open();
      await client.call('overview:get', {});
      client.socket.send(JSON.stringify({ type: 'call', id: 1, channel: 'overview:get', input: { pad: 'x'.repeat(70 * 1024) } }));
      expect((await client.closed).code).toBe(1009);
      await expect.poll(() => sessions[0]?.closed, { timeout: WAIT_MS }).toBe(true);
    });

    it('gives each socket its own session, closed with its socket', async () => {
      const first = await open();
      const second = await open();
      await first.call('overview:get', {});
      await second.call('overview:get', {});
      expect(sessions).toHaveLength(2);
      expect(server.sockets).toBe(2);
      first.socket.close();
      await first.closed;
      await expect.poll(() => sessions.map((s) => s.closed), { timeout: WAIT_MS }).toEqual([true, false]);
      // The other socket still answers and still gets events.
      expect((await second.call('overview:get', {})).result.ok).toBe(true);
      hub.emit('INFO', 'test', 'after_first_closed', {});
      await second.next((f) => f.type === 'event' && JSON.stringify(f.payload).includes('after_first_closed'), 'the event on the second socket');
    });

    it('closes every socket and session when it stops', async () => {
      const client = await open();
      await client.call('overview:get', {});
      await server.close();
      expect((await client.closed).code).toBe(1001);
      expect(sessions.every((s) => s.closed)).toBe(true);
      await expect(get(server, `/${server.token}/`)).rejects.toThrow();
    });
  });
});
