/**
 * `POST /_sync/auth/login` over real HTTP, against a real webhook server on 127.0.0.1: the
 * playground, a webhook that accepts, refuses, answers empty or malformed bodies, or is not
 * there at all; the certificate issued; the server's log lines.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EVERYTHING } from '../shared/permissions.ts';
import { ManualTimers, verifyCertificate } from '../peer/host.ts';
import {
  call,
  closedPort,
  keyNamed,
  loginBody,
  PLAYGROUND_TOKEN,
  proven,
  startTestPeer,
  startWebhook,
  TEST_APP,
  testKey,
  type TestPeer,
} from '../testing/big-peer/test-helpers.ts';

const LOGIN = '/_sync/auth/login';
const HOUR = 3_600_000;

describe('login', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function peerWith(webhookUrl?: string, timers?: ManualTimers): Promise<TestPeer> {
    const t = await startTestPeer(webhookUrl === undefined ? {} : { authProviders: { corp: { url: webhookUrl } }, webhookTimeoutMs: 2000 }, timers);
    cleanup.push(() => t.close());
    return t;
  }

  async function webhook(answer: Parameters<typeof startWebhook>[0]) {
    const hook = await startWebhook(answer);
    cleanup.push(() => hook.close());
    return hook;
  }

  /** A login; a body naming a peerKey gets that (named) key's valid proof, unless it has one. */
  const login = (t: TestPeer, body: unknown) =>
    call(`${t.url}${LOGIN}`, { method: 'POST', body: proven(body, t.now()), headers: { 'Content-Type': 'application/json' } });

  it('signs a playground certificate with every permission for 8 hours', async () => {
    const timers = new ManualTimers();
    const t = await peerWith(undefined, timers);
    const res = await login(t, { appID: TEST_APP, peerKey: 'peer-1', token: PLAYGROUND_TOKEN });
    expect(res.status).toBe(200);
    const now = timers.now();
    expect(res.json).toMatchObject({ issuerKey: t.peer.issuer.publicKey, expiresAt: now + 8 * HOUR, userID: 'playground', permissions: EVERYTHING });
    const claims = verifyCertificate(res.json.certificate, t.peer.issuer.publicKey, now, TEST_APP);
    expect(claims).toEqual({
      v: 1,
      appID: TEST_APP,
      peerKey: keyNamed('peer-1').peerKey,
      userID: 'playground',
      permissions: EVERYTHING,
      issuer: t.peer.issuer.publicKey,
      issuedAt: now,
      expiresAt: now + 8 * HOUR,
    });
    expect(t.logs.map((e) => e.message)).toContain(
      `Login succeeded; app_id = ${TEST_APP}; user_id = playground; provider = null; peer_key = ${keyNamed('peer-1').peerKey}; expires_at = ${new Date(now + 8 * HOUR).toISOString()}`,
    );
  });

  it('refuses an unknown app id with 401 naming it, and a wrong playground token with 401', async () => {
    const t = await peerWith();
    const app = await login(t, { appID: 'other-app', peerKey: 'pk', token: PLAYGROUND_TOKEN });
    expect(app.status).toBe(401);
    expect(app.json).toEqual({ error: { code: 'auth/failed', message: 'unknown app id other-app: this Big Peer does not serve it' } });
    const token = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 'wrong' });
    expect(token.status).toBe(401);
    expect(token.json).toEqual({ error: { code: 'auth/failed', message: `the playground token is not valid for app ${TEST_APP}` } });
    expect((await login(t, { appID: TEST_APP, peerKey: 'pk', token: 'x', provider: 'nobody' })).json.error.message).toBe(
      `unknown authentication provider nobody for app ${TEST_APP}`,
    );
  });

  it('answers a malformed login body with 400', async () => {
    const t = await peerWith();
    expect((await login(t, { appID: TEST_APP, token: 'x' })).json).toEqual({
      error: { code: 'http/bad-request', message: 'the login body needs "peerKey", a non-empty string' },
    });
    expect((await login(t, '[]')).status).toBe(400);
  });

  it('asks the provider’s webhook and issues what it grants', async () => {
    const hook = await webhook(() => ({
      body: JSON.stringify({
        authenticate: true,
        userID: 'u-42',
        expirationSeconds: 600,
        permissions: {
          read: { everything: true, queriesByCollection: {} },
          write: { everything: false, queriesByCollection: { orders: ["ownerId == 'u-42'"] } },
        },
      }),
    }));
    const timers = new ManualTimers();
    const t = await peerWith(hook.url, timers);
    const res = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 'jwt-1', provider: 'corp' });
    expect(res.status).toBe(200);
    expect(hook.calls).toEqual([{ appID: TEST_APP, provider: 'corp', token: 'jwt-1' }]);
    const permissions = {
      read: { everything: true, queries_by_collection: {} },
      write: { everything: false, queries_by_collection: { orders: ["ownerId == 'u-42'"] } },
    };
    expect(res.json).toMatchObject({ userID: 'u-42', expiresAt: timers.now() + 600_000, permissions });
    expect(verifyCertificate(res.json.certificate, t.peer.issuer.publicKey, timers.now(), TEST_APP).permissions).toEqual(permissions);
  });

  it('refuses with 401 when the webhook says not authenticated', async () => {
    const hook = await webhook(() => ({ body: JSON.stringify({ authenticated: false, reason: 'token expired' }) }));
    const t = await peerWith(hook.url);
    const res = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 'old', provider: 'corp' });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: { code: 'auth/failed', message: 'token expired' } });
  });

  it('answers 502 with the spec’s words when the webhook answers an empty body, and logs it', async () => {
    const hook = await webhook(() => ({ body: '' }));
    const t = await peerWith(hook.url);
    const res = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 't', provider: 'corp' });
    expect(res.status).toBe(502);
    const message = 'Failed to authenticate: Internal server error: response body cannot be decoded as JSON: Unexpected end of JSON input';
    expect(res.json).toEqual({ error: { code: 'auth/failed', message } });
    const logged = t.logs.find((e) => e.message.startsWith('Failed to authenticate'));
    expect(logged?.level).toBe('ERROR');
    expect(logged?.message).toBe(`${message}; provider = corp; url = ${hook.url}`);
  });

  it('answers 502 when the webhook answers something that is not JSON, or JSON of the wrong shape', async () => {
    let body = '<html>oops</html>';
    const hook = await webhook(() => ({ body }));
    const t = await peerWith(hook.url);
    const notJson = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 't', provider: 'corp' });
    expect(notJson.status).toBe(502);
    expect(notJson.json.error.message).toMatch(/^Failed to authenticate: Internal server error: response body cannot be decoded as JSON: Unexpected token/);
    body = JSON.stringify({ authenticated: true, permissions: {} });
    const noUser = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 't', provider: 'corp' });
    expect(noUser.json.error).toEqual({
      code: 'auth/failed',
      message: 'Failed to authenticate: Internal server error: response body is malformed: "userID" must be a non-empty string',
    });
    body = JSON.stringify({ authenticated: true, userID: 'u', permissions: { read: { queriesByCollection: { a: 'x' } } } });
    const badPermissions = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 't', provider: 'corp' });
    expect(badPermissions.json.error.message).toMatch(/response body is malformed: permissions\.read\.queriesByCollection\.a must be a list of query strings$/);
  });

  it('answers 502 "Could not connect to authentication server" when nothing listens, and logs why', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/auth`;
    const t = await peerWith(url);
    const res = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 't', provider: 'corp' });
    expect(res.status).toBe(502);
    expect(res.json).toEqual({ error: { code: 'auth/unreachable', message: 'Could not connect to authentication server' } });
    expect(t.logs.find((e) => e.event === 'big-peer.webhook-unreachable')?.message).toBe(
      `Could not connect to authentication server; provider = corp; url = ${url}; error = ECONNREFUSED`,
    );
  });

  it('gives up on a webhook that does not answer in time', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanup.push(async () => {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    });
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/auth`;
    const t = await startTestPeer({ authProviders: { corp: { url } }, webhookTimeoutMs: 200 });
    cleanup.push(() => t.close());
    const res = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 't', provider: 'corp' });
    expect(res.status).toBe(502);
    expect(res.json.error).toEqual({ code: 'auth/unreachable', message: 'Could not connect to authentication server' });
    expect(t.logs.find((e) => e.event === 'big-peer.webhook-unreachable')?.message).toMatch(/error = no answer within 200 ms$/);
  });

  it('refuses a login without a valid proof of the peer key before checking the token or calling the webhook', async () => {
    const hook = await webhook(() => ({ body: JSON.stringify({ authenticated: true, userID: 'u' }) }));
    const timers = new ManualTimers();
    const t = await peerWith(hook.url, timers);
    const raw = (body: unknown) => call(`${t.url}${LOGIN}`, { method: 'POST', body });
    const notAKey = await raw({ ...loginBody(TEST_APP, PLAYGROUND_TOKEN, undefined, { now: timers.now() }), peerKey: 'peer-1' });
    expect([notAKey.status, notAKey.json.error.code]).toEqual([400, 'http/bad-request']);
    const { proof: _proof, ...unproven } = loginBody(TEST_APP, 't', 'corp', { now: timers.now() });
    const missing = await raw(unproven);
    expect([missing.status, missing.json.error.code, missing.json.error.message]).toEqual([401, 'auth/failed', expect.stringMatching(/proof/)]);
    const key = testKey();
    const other = loginBody(TEST_APP, 't', 'corp', { now: timers.now() });
    const stolen = await raw({ ...loginBody(TEST_APP, 't', 'corp', { key, now: timers.now() }), proof: other.proof });
    expect([stolen.status, stolen.json.error.message]).toEqual([401, 'the login proof is not a valid signature of peerKey']);
    const stale = await raw(loginBody(TEST_APP, 't', 'corp', { now: timers.now() - 5 * 60_000 - 1 }));
    expect([stale.status, stale.json.error.message]).toEqual([401, expect.stringMatching(/timestamp/)]);
    const ahead = await raw(loginBody(TEST_APP, 't', 'corp', { now: timers.now() + 5 * 60_000 + 1 }));
    expect(ahead.status).toBe(401);
    expect(hook.calls).toEqual([]);
    const edge = await raw(loginBody(TEST_APP, 't', 'corp', { now: timers.now() - 5 * 60_000 }));
    expect(edge.status).toBe(200);
    expect(hook.calls).toHaveLength(1);
  });

  it('does not follow a webhook’s redirect, and caps the refusal reason the caller sees', async () => {
    let answer: { status: number; location?: string; body: string } = { status: 302, location: 'http://127.0.0.1:1/elsewhere', body: '' };
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(answer.status, answer.location === undefined ? { 'Content-Type': 'application/json' } : { Location: answer.location });
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth?secret=s3cr3t`;
    const t = await peerWith(url);
    const res = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 't', provider: 'corp' });
    expect([res.status, res.json.error]).toEqual([
      502,
      { code: 'auth/failed', message: 'Failed to authenticate: Internal server error: the webhook answered with a redirect' },
    ]);
    const logged = t.logs.find((e) => e.event === 'big-peer.webhook-failed')?.message ?? '';
    expect(logged).toContain(`url = http://127.0.0.1:${(server.address() as AddressInfo).port}/auth`);
    expect(logged).not.toContain('s3cr3t');
    answer = { status: 200, body: JSON.stringify({ authenticated: false, reason: 'x'.repeat(5000) }) };
    const refused = await login(t, { appID: TEST_APP, peerKey: 'pk', token: 't', provider: 'corp' });
    expect(refused.status).toBe(401);
    expect([...refused.json.error.message].length).toBe(200);
  });

  it('signs the certificate for the proven key', async () => {
    const t = await peerWith();
    const body = proven({ appID: TEST_APP, peerKey: 'named', token: PLAYGROUND_TOKEN }, t.now()) as { peerKey: string };
    expect(body.peerKey).toBe(keyNamed('named').peerKey);
    const res = await login(t, body);
    expect(verifyCertificate(res.json.certificate, t.peer.issuer.publicKey, t.now(), TEST_APP).peerKey).toBe(keyNamed('named').peerKey);
  });
});
