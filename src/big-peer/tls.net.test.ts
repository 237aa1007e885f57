/**
 * The Big Peer over TLS: https and wss with a self-signed certificate that openssl makes for
 * 127.0.0.1 in a temporary directory; the client trusts exactly that certificate.
 */
import { OUTER_PROTOCOL_VERSION } from '../shared/protocol/announce.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LOGIN_CORS_HEADERS } from '../shared/big-peer-api.ts';
import { announceProof, loginBody, PLAYGROUND_TOKEN, startTestPeer, TEST_APP, TEST_KEY, testKey, type TestPeer } from '../testing/big-peer/test-helpers.ts';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const OPENSSL = hasOpenssl();
if (!OPENSSL) console.warn('tls.net.test.ts: openssl is not installed, so the TLS tests are skipped');

interface HttpsAnswer {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly text: string;
}

function httpsCall(url: string, ca: Buffer | undefined, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, ca, headers: { 'Content-Type': 'application/json', ...headers }, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.setTimeout(5000, () => req.destroy(new Error('no answer in time')));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe.skipIf(!OPENSSL)('the Big Peer over TLS', () => {
  let dir: string;
  let ca: Buffer;
  let t: TestPeer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'big-peer-tls-'));
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ed25519',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore', timeout: 20_000 },
    );
    ca = readFileSync(cert);
    t = await startTestPeer({ tls: { keyFile: key, certFile: cert } });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves https and wss URLs', () => {
    expect(t.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(t.peer.wsUrl).toBe(`${t.url.replace('https', 'wss')}/_sync/ws`);
  });

  it('answers the reachability check and store calls over https', async () => {
    const check = await httpsCall(`${t.url}/_sync/auth/login`, ca, 'GET');
    expect(check.status).toBe(405);
    expect(check.text).toBe('method not allowed');
    expect(check.headers['access-control-max-age']).toBe(LOGIN_CORS_HEADERS['Access-Control-Max-Age']);
    const insert = await httpsCall(
      `${t.url}/api/v4/store/execute`,
      ca,
      'POST',
      { statement: "INSERT INTO t DOCUMENTS ({_id: 'x'})" },
      { Authorization: `Bearer ${TEST_KEY}` },
    );
    expect(insert.status).toBe(200);
    expect(JSON.parse(insert.text).mutatedDocumentIds).toEqual(['x']);
  });

  it('is refused by a client that does not trust the certificate', async () => {
    await expect(httpsCall(`${t.url}/_sync/auth/login`, undefined, 'GET')).rejects.toThrow(/self-signed|self signed/);
  });

  it('accepts a peer’s announcement over wss', async () => {
    const key = testKey();
    const login = await httpsCall(`${t.url}/_sync/auth/login`, ca, 'POST', loginBody(TEST_APP, PLAYGROUND_TOKEN, undefined, { key }));
    const { certificate } = JSON.parse(login.text) as { certificate: unknown };
    const ws = new WebSocket(t.peer.wsUrl, { ca });
    const answer = await new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer in time')), 5000);
      ws.once('error', reject);
      ws.on('message', (data) => {
        const message = JSON.parse(data.toString());
        if (message.type === 'challenge') {
          const proof = announceProof(key, TEST_APP, message.nonce);
          ws.send(
            JSON.stringify({
              type: 'announce',
              peerKey: key.peerKey,
              appID: TEST_APP,
              outer_protocol_version: OUTER_PROTOCOL_VERSION,
              certificate,
              proof,
              nonce: 'dialer-nonce',
            }),
          );
          return;
        }
        clearTimeout(timer);
        resolve(message);
      });
    });
    expect(answer).toMatchObject({ type: 'announce', peerKey: t.peer.sync.peerKey, appID: TEST_APP, role: 'big-peer' });
    ws.close();
  });
});
