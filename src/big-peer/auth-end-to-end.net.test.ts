/**
 * End to end over real sockets: a small peer's auth client logs in to a real Big Peer, which
 * calls a real webhook server; the certificate it gets is accepted by the Big Peer's sync
 * WebSocket. The small peer logs the spec's lines (section 5, 7) exactly.
 */
import { OUTER_PROTOCOL_VERSION } from '../shared/protocol/announce.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { LogHub, ManualTimers, Sync, onlinePlayground, onlineWithAuthentication, type SyncOptions } from '../peer/host.ts';
import { BIG_PEER_PATHS } from '../shared/big-peer-api.ts';
import {
  announceProof,
  call,
  loginBody,
  PLAYGROUND_TOKEN,
  TEST_APP,
  post,
  startTestPeer,
  startWebhook,
  testKey,
  type TestPeer,
} from '../testing/big-peer/test-helpers.ts';

describe('a small peer authenticating with a real Big Peer', () => {
  let bigPeer: TestPeer;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  let webhookAnswer: { status?: number; body: string };
  let dir: string;
  let hub: LogHub;
  const peers: Sync[] = [];

  beforeEach(async () => {
    webhookAnswer = { body: JSON.stringify({ authenticated: true, userID: 'clerk-7', expirationSeconds: 3600 }) };
    webhook = await startWebhook(() => webhookAnswer);
    bigPeer = await startTestPeer({ authProviders: { corp: { url: webhook.url } } });
    dir = mkdtempSync(join(tmpdir(), 'e2e-auth-'));
    hub = new LogHub({ minimumLogLevel: 'INFO' });
  });
  afterEach(async () => {
    for (const p of peers.splice(0)) p.close();
    await bigPeer.close();
    await webhook.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = (options: Partial<SyncOptions>): Sync => {
    const sync = new Sync({ persistenceDirectory: dir, logHub: hub, ...options });
    peers.push(sync);
    return sync;
  };
  const authLines = (): string[] =>
    hub
      .recentEntries()
      .filter((e) => e.component === 'auth')
      .map((e) => `[${e.level}] ${e.message}`);

  it('logs in with the playground token, gets every permission, and is not asked again after a reopen', async () => {
    const identity = onlinePlayground({ appID: TEST_APP, token: PLAYGROUND_TOKEN, bigPeerURL: bigPeer.url });
    const sync = open({ identity });
    await sync.auth.start();
    expect(authLines()).toEqual([
      `[INFO] AuthClient: starting; app_id = ${TEST_APP}`,
      '[INFO] AuthClient: authentication request succeeded',
      expect.stringMatching(/^\[INFO\] AuthClient: refreshing token in \d+ seconds$/),
    ]);
    expect(sync.auth.status).toMatchObject({
      authenticated: true,
      userID: 'playground',
      permissions: { read: { everything: true }, write: { everything: true } },
    });
    sync.close();
    peers.length = 0;
    const again = open({ identity });
    const before = authLines().length;
    await again.auth.start();
    expect(authLines().slice(before)).toEqual([
      `[INFO] AuthClient: starting; app_id = ${TEST_APP}`,
      expect.stringMatching(/^\[INFO\] AuthClient: refreshing token in \d+ seconds$/),
    ]);
  });

  it('logs the spec’s three lines for a wrong playground token, and for a wrong app id', async () => {
    const wrongToken = open({ identity: onlinePlayground({ appID: TEST_APP, token: 'nope', bigPeerURL: bigPeer.url }) });
    await wrongToken.auth.start();
    expect(authLines().slice(1)).toEqual([
      expect.stringMatching(/^\[ERROR\] AuthClient: failed to get JSON for auth response: decode error: missing field certificate \(HTTP 401: /),
      '[ERROR] No valid Web token present',
      '[ERROR] failed to obtain a certificate',
    ]);
    expect(wrongToken.auth.status.authenticated).toBe(false);
  });

  it('logs in through a webhook provider and takes the user and expiry the webhook gave', async () => {
    let required = 0;
    const sync = open({
      identity: onlineWithAuthentication({
        appID: TEST_APP,
        bigPeerURL: bigPeer.url,
        provider: 'corp',
        authHandler: {
          authenticationRequired: (auth) => {
            required++;
            void auth.login('jwt-from-the-app', 'corp');
          },
          authenticationExpiringSoon: (auth) => void auth.login('jwt-from-the-app', 'corp'),
        },
      }),
    });
    await sync.auth.start();
    for (let i = 0; i < 100 && !sync.auth.status.authenticated; i++) await new Promise((r) => setTimeout(r, 10));
    expect(required).toBe(1);
    expect(webhook.calls).toEqual([{ appID: TEST_APP, provider: 'corp', token: 'jwt-from-the-app' }]);
    expect(sync.auth.status).toMatchObject({ authenticated: true, userID: 'clerk-7' });
    expect(authLines()).toContain('[INFO] AuthClient: authentication request succeeded');
  });

  it('says the webhook’s answer could not be decoded, then that no certificate was obtained', async () => {
    webhookAnswer = { body: '<html>oops</html>' };
    const sync = open({
      identity: onlineWithAuthentication({
        appID: TEST_APP,
        bigPeerURL: bigPeer.url,
        provider: 'corp',
        authHandler: { authenticationRequired: (auth) => void auth.login('t', 'corp'), authenticationExpiringSoon: () => {} },
      }),
    });
    await sync.auth.start();
    for (let i = 0; i < 100 && !authLines().includes('[ERROR] failed to obtain a certificate'); i++) await new Promise((r) => setTimeout(r, 10));
    const errors = authLines().filter((l) => l.startsWith('[ERROR]'));
    expect(errors[0]).toMatch(/^\[ERROR\] Failed to authenticate: Internal server error/);
    expect(errors[0]).toMatch(/cannot be decoded as JSON/);
    expect(errors.at(-1)).toBe('[ERROR] failed to obtain a certificate');
  });

  it('has a certificate accepted by the Big Peer’s sync WebSocket, announced with a proof over its challenge', async () => {
    // The Sync does not expose its private key: a fresh key pair logs in with a raw, proven login.
    const key = testKey();
    const login = await call(`${bigPeer.url}${BIG_PEER_PATHS.login}`, { method: 'POST', body: loginBody(TEST_APP, PLAYGROUND_TOKEN, undefined, { key }) });
    expect(login.status).toBe(200);
    const socket = new WebSocket(bigPeer.url.replace(/^http/, 'ws') + BIG_PEER_PATHS.websocket);
    const answer = await new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer in 5 s')), 5000);
      socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        if (message.type === 'challenge') {
          const proof = announceProof(key, TEST_APP, message.nonce);
          socket.send(
            JSON.stringify({
              type: 'announce',
              peerKey: key.peerKey,
              appID: TEST_APP,
              outer_protocol_version: OUTER_PROTOCOL_VERSION,
              certificate: login.json.certificate,
              proof,
              nonce: 'dialer-nonce',
            }),
          );
          return;
        }
        clearTimeout(timer);
        resolve(message);
      });
      socket.on('close', (code, reason) => reject(new Error(`closed ${code} ${String(reason)}`)));
    });
    socket.close();
    expect(answer).toMatchObject({ type: 'announce', appID: TEST_APP, outer_protocol_version: OUTER_PROTOCOL_VERSION, role: 'big-peer' });
  });

  it('does not take a certificate as a bearer credential of the HTTP API', async () => {
    const key = testKey();
    const login = await call(`${bigPeer.url}${BIG_PEER_PATHS.login}`, { method: 'POST', body: loginBody(TEST_APP, PLAYGROUND_TOKEN, undefined, { key }) });
    const { claims, signature } = login.json.certificate;
    const res = await post(
      `${bigPeer.url}${BIG_PEER_PATHS.execute}`,
      { statement: 'SELECT * FROM orders' },
      { Authorization: `Bearer ${claims}.${signature}` },
    );
    expect([res.status, res.json.error.code]).toEqual([401, 'http/unauthorized']);
  });

  it('refreshes through the handler near expiry and asks again at expiry, on one injected clock with the Big Peer', async () => {
    const clock = new ManualTimers(Date.UTC(2026, 10, 21, 12, 0, 0));
    const timed = await startTestPeer({ authProviders: { corp: { url: webhook.url } } }, clock);
    try {
      const calls: string[] = [];
      const sync = open({
        timers: clock,
        identity: onlineWithAuthentication({
          appID: TEST_APP,
          bigPeerURL: timed.url,
          provider: 'corp',
          authHandler: {
            authenticationRequired: (auth) => {
              calls.push('required');
              void auth.login('jwt', 'corp');
            },
            authenticationExpiringSoon: () => {
              calls.push('expiring soon');
            },
          },
        }),
      });
      await sync.auth.start();
      const until = async (ok: () => boolean): Promise<void> => {
        for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
      };
      await until(() => sync.auth.status.authenticated);
      const firstExpiry = sync.auth.status.expiresAt as number;
      expect(firstExpiry).toBe(clock.now() + 3_600_000); // the webhook's expirationSeconds
      expect(calls).toEqual(['required']);
      clock.advance(30 * 60_000); // half the lifetime: nothing yet
      expect(calls).toEqual(['required']);
      clock.advance(26 * 60_000); // less than 5 minutes left
      expect(calls).toEqual(['required', 'expiring soon']);
      clock.advance(4 * 60_000); // expired: the handler is asked to log in again
      expect(calls).toEqual(['required', 'expiring soon', 'required']);
      await until(() => (sync.auth.status.expiresAt ?? 0) > firstExpiry);
      expect(sync.auth.status).toMatchObject({ authenticated: true, expiresAt: clock.now() + 3_600_000 });
      expect(webhook.calls).toHaveLength(2);
    } finally {
      await timed.close();
    }
  });
});
