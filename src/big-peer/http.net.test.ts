/**
 * The Big Peer's HTTP server over real sockets on 127.0.0.1: routing, body limits, deadlines,
 * error bodies, and the login path's exact CORS headers.
 */
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOGIN_CORS_HEADERS } from '../shared/big-peer-api.ts';
import { call, loginBody, post, startTestPeer, TEST_KEY, type TestPeer } from '../testing/big-peer/test-helpers.ts';

/** The response's headers whose names start with access-control-, with the contract's spelling of names. */
function corsHeadersOf(headers: Record<string, unknown>): Record<string, unknown> {
  const byLowerName = new Map(Object.keys(LOGIN_CORS_HEADERS).map((name) => [name.toLowerCase(), name]));
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name]) => name.startsWith('access-control-'))
      .map(([name, value]) => [byLowerName.get(name) ?? name, value]),
  );
}

describe('the Big Peer HTTP server', () => {
  let t: TestPeer;
  beforeEach(async () => {
    t = await startTestPeer({ requestTimeoutMs: 300 });
  });
  afterEach(() => t.close());

  it('answers GET on the login path with 405, plain text and exactly the spec’s CORS headers', async () => {
    const res = await call(`${t.url}/_sync/auth/login`);
    expect(res.status).toBe(405);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('method not allowed');
    expect(corsHeadersOf(res.headers)).toEqual(LOGIN_CORS_HEADERS);
    expect(res.headers['access-control-allow-headers']).toBe(
      'X-SYNC-ENSURE-INSERT, X-SYNC-CLIENT-ID, X-HYDRA-ENSURE-INSERT, X-HYDRA-CLIENT-ID, Accept, Referer, Keep-Alive, User-Agent, X-Requested-With, If-Modified-Since, Cache-Control, Content-Type, Authorization, X-Forwarded-For',
    );
    expect(res.headers['access-control-max-age']).toBe('1728000');
  });

  it('answers the CORS preflight on the login path with 204 and the same headers', async () => {
    const res = await call(`${t.url}/_sync/auth/login`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(corsHeadersOf(res.headers)).toEqual(LOGIN_CORS_HEADERS);
  });

  it('puts the CORS headers on login answers too, errors included', async () => {
    const res = await call(`${t.url}/_sync/auth/login`, { method: 'POST', body: loginBody('nope', 't') });
    expect(res.status).toBe(401);
    expect(corsHeadersOf(res.headers)).toEqual(LOGIN_CORS_HEADERS);
    const put = await call(`${t.url}/_sync/auth/login`, { method: 'PUT', body: '{}' });
    expect(put.status).toBe(405);
    expect(put.text).toBe('method not allowed');
  });

  it('answers an unknown path with 404 and a JSON error', async () => {
    const res = await call(`${t.url}/api/v4/nothing`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json).toEqual({ error: { code: 'http/not-found', message: 'no endpoint /api/v4/nothing' } });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await call(`${t.url}/api/v4/store/write`, { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json.error.code).toBe('http/method-not-allowed');
  });

  it('refuses a body over 1 MiB with 413, by its declared length or as it streams', async () => {
    const big = JSON.stringify({ args: { pad: 'x'.repeat(1024 * 1024) }, commands: [] });
    const declared = await post(`${t.url}/api/v4/store/write`, big);
    expect(declared.status).toBe(413);
    expect(declared.json.error.code).toBe('http/payload-too-large');
    const streamed = await call(`${t.url}/api/v4/store/write`, {
      method: 'POST',
      body: big,
      headers: { Authorization: `Bearer ${TEST_KEY}`, 'Transfer-Encoding': 'chunked' },
    });
    expect(streamed.status).toBe(413);
  });

  it('refuses a body that is not JSON with 400 naming the parse error', async () => {
    const res = await post(`${t.url}/api/v4/store/write`, '{"commands": [');
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('http/bad-request');
    expect(res.json.error.message).toMatch(/^the request body is not JSON: /);
    const empty = await post(`${t.url}/api/v4/store/write`, '');
    expect(empty.json.error.message).toBe('the request body is empty; send a JSON object');
  });

  it('answers 408 when a request is not done within its deadline, and keeps serving', async () => {
    const socket = connect(t.peer.port, '127.0.0.1');
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (d) => (text += d.toString('utf8')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      setTimeout(() => reject(new Error('no 408 in time')), 5000).unref();
      // Headers and a first part of the body, then nothing more.
      socket.write(`POST /api/v4/store/write HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\nContent-Length: 100\r\n\r\n{"commands":`);
    });
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"http/timeout"');
    expect((await call(`${t.url}/nothing`)).status).toBe(404);
  });

  it('never answers with a stack trace', async () => {
    const answers = await Promise.all([
      post(`${t.url}/api/v4/store/write`, '[1, 2'),
      post(`${t.url}/api/v4/store/execute`, { statement: 42 }),
      post(`${t.url}/api/v4/store/write`, { commands: [{ method: 'update', collection: 'c', query: '((', commands: [] }] }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.text).not.toMatch(/\n\s+at |\.ts:\d+/);
    }
  });

  /** Sends `head` then up to `bodyBytes` of chunked body; resolves with what came back and how much was written. */
  function raw(head: string, bodyBytes: number): Promise<{ answer: string; written: number }> {
    return new Promise((resolve) => {
      const socket = connect(t.peer.port, '127.0.0.1');
      let answer = '';
      let written = 0;
      const timer = setTimeout(() => socket.destroy(), 8000);
      socket.on('data', (d) => (answer += d.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ answer, written });
      });
      socket.write(head);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = (): void => {
        while (written < bodyBytes && !socket.destroyed) {
          written += chunk.length;
          if (!socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString('latin1')}\r\n`)) return void socket.once('drain', pump);
        }
        if (!socket.destroyed) socket.end('0\r\n\r\n');
      };
      pump();
    });
  }

  it('closes the connection after answering before the body was read, instead of reading a large body', async () => {
    const { answer, written } = await raw(
      'POST /api/v4/store/execute HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n',
      5 * 1024 * 1024,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    // The server cut the connection: the client could not write the whole 5 MB.
    expect(written).toBeLessThan(5 * 1024 * 1024);
    expect((await post(`${t.url}/api/v4/store/execute`, { statement: 'SELECT * FROM t' })).status).toBe(200);
  });

  it('answers a request Node cannot parse with a JSON error, and closes the connection', async () => {
    const bad = await raw('NOT HTTP\r\n\r\n', 0);
    expect(bad.answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(bad.answer).toMatch(/\r\nConnection: close\r\n/);
    expect(JSON.parse(bad.answer.split('\r\n\r\n')[1] as string).error.code).toBe('http/bad-request');
    const big = await raw(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 0);
    expect(big.answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(big.answer.split('\r\n\r\n')[1] as string).error.message).toBe('the request headers are too large');
  });
});
