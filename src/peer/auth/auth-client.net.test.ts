/**
 * The auth client over real HTTP on 127.0.0.1, against the TEST FIXTURE login server (not the
 * Big Peer: see test-fixtures/login-server.ts). Each case checks the exact `auth` log lines of
 * the spec (sections 5 and 7), in order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../shared/permissions.ts';
import { verifyCertificate } from './certificate.ts';
import { onlinePlayground, onlineWithAuthentication, type AuthLogin, type LoginOutcome } from './identity.ts';
import { authTestKit, type AuthTestKit } from '../../testing/auth/auth-test-kit.ts';
import {
  closedPortUrl,
  MALFORMED_WEBHOOK_MESSAGE,
  startFixtureLoginServer,
  type FixtureLoginServer,
  type FixtureWebhook,
} from '../../testing/auth/login-server.ts';

const APP = 'app-1';
const TOKEN = 'playground-token';
/** 8 hours, less 10 % (48 minutes): 7 h 12 min. */
const REFRESH_AFTER_S = 25_920;

const webhooks: Record<string, FixtureWebhook> = {
  good: (token) => (token === 'jwt-ok' ? { kind: 'accept', userID: 'user-7' } : { kind: 'reject' }),
  down: () => ({ kind: 'unreachable' }),
  broken: () => ({ kind: 'malformed' }),
};

describe('the auth client against a login server over HTTP', () => {
  let kit: AuthTestKit;
  let server: FixtureLoginServer;

  beforeEach(async () => {
    kit = authTestKit();
    server = await startFixtureLoginServer({ appID: APP, playgroundToken: TOKEN, providers: webhooks, now: () => kit.clock.now() });
  });
  afterEach(async () => {
    kit.dispose();
    await server.close();
  });

  /** A handler that logs in at once with `token`, keeping the outcome for the test. */
  const handlerWith = (token: string): { handler: Parameters<typeof onlineWithAuthentication>[0]['authHandler']; logins: Promise<LoginOutcome>[] } => {
    const logins: Promise<LoginOutcome>[] = [];
    return {
      logins,
      handler: {
        authenticationRequired: (auth: AuthLogin) => {
          logins.push(auth.login(token));
        },
        authenticationExpiringSoon: () => {},
      },
    };
  };

  it('logs in with the playground token: starting, succeeded, refreshing token in 25920 seconds', async () => {
    const sync = kit.open({ identity: onlinePlayground({ appID: APP, token: TOKEN, bigPeerURL: server.url }) });
    await sync.auth.start();
    expect(kit.authLines()).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      '[INFO] AuthClient: authentication request succeeded',
      `[INFO] AuthClient: refreshing token in ${REFRESH_AFTER_S} seconds`,
    ]);
    expect(server.login.requests).toEqual([
      { appID: APP, peerKey: sync.peerKey, token: TOKEN, proof: { timestamp: kit.clock.now(), signature: expect.any(String) } },
    ]);
    expect(sync.auth.status).toEqual({
      authenticated: true,
      userID: 'playground',
      expiresAt: kit.clock.now() + 8 * 3600_000,
      permissions: EVERYTHING,
      lastError: undefined,
    });
    const cert = sync.auth.certificate;
    expect(cert).toBeDefined();
    expect(sync.auth.issuerKey).toBe(server.login.issuer.publicKey);
    expect(verifyCertificate(cert!, server.login.issuer.publicKey, kit.clock.now(), APP).peerKey).toBe(sync.peerKey);
  });

  it('logs the spec’s three lines for a wrong playground token, and does not retry a refusal', async () => {
    const sync = kit.open({ identity: onlinePlayground({ appID: APP, token: 'wrong', bigPeerURL: server.url }) });
    await sync.auth.start();
    expect(kit.authLines()).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      '[ERROR] AuthClient: failed to get JSON for auth response: decode error: missing field certificate (HTTP 401: auth/failed: Authentication failed: invalid playground token)',
      '[ERROR] No valid Web token present',
      '[ERROR] failed to obtain a certificate',
    ]);
    expect(sync.auth.status).toMatchObject({ authenticated: false, lastError: { code: 'auth/failed' } });
    expect(kit.clock.pending).toBe(0);
  });

  it('logs the same three lines for a wrong app id', async () => {
    const sync = kit.open({ identity: onlinePlayground({ appID: 'app-typo', token: TOKEN, bigPeerURL: server.url }) });
    await sync.auth.start();
    expect(kit.authLines()).toEqual([
      '[INFO] AuthClient: starting; app_id = app-typo',
      '[ERROR] AuthClient: failed to get JSON for auth response: decode error: missing field certificate (HTTP 401: auth/failed: Authentication failed: unknown app id app-typo)',
      '[ERROR] No valid Web token present',
      '[ERROR] failed to obtain a certificate',
    ]);
  });

  it('logs in through the handler and the provider’s webhook', async () => {
    const { handler, logins } = handlerWith('jwt-ok');
    const sync = kit.open({ identity: onlineWithAuthentication({ appID: APP, bigPeerURL: server.url, provider: 'good', authHandler: handler }) });
    await sync.auth.start();
    expect(await Promise.all(logins)).toEqual([{ ok: true, userID: 'user-7', expiresAt: kit.clock.now() + 8 * 3600_000 }]);
    expect(server.login.requests).toEqual([
      { appID: APP, peerKey: sync.peerKey, token: 'jwt-ok', provider: 'good', proof: { timestamp: kit.clock.now(), signature: expect.any(String) } },
    ]);
    expect(kit.authLines()).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      '[INFO] AuthClient: authentication required (no valid certificate); calling authenticationRequired',
      '[INFO] AuthClient: authentication request succeeded',
      `[INFO] AuthClient: refreshing token in ${REFRESH_AFTER_S} seconds`,
    ]);
  });

  it('logs the three lines when the webhook refuses the token', async () => {
    const { handler, logins } = handlerWith('jwt-bad');
    const sync = kit.open({ identity: onlineWithAuthentication({ appID: APP, bigPeerURL: server.url, provider: 'good', authHandler: handler }) });
    await sync.auth.start();
    expect(await Promise.all(logins)).toMatchObject([{ ok: false, error: { code: 'auth/failed' } }]);
    expect(kit.authLines().slice(2)).toEqual([
      '[ERROR] AuthClient: failed to get JSON for auth response: decode error: missing field certificate (HTTP 401: auth/failed: Authentication failed: the webhook refused the token)',
      '[ERROR] No valid Web token present',
      '[ERROR] failed to obtain a certificate',
    ]);
  });

  it('logs `Could not connect to authentication server` when the webhook is unreachable', async () => {
    const { handler, logins } = handlerWith('jwt-ok');
    const sync = kit.open({ identity: onlineWithAuthentication({ appID: APP, bigPeerURL: server.url, provider: 'down', authHandler: handler }) });
    await sync.auth.start();
    expect(await Promise.all(logins)).toEqual([{ ok: false, error: { code: 'auth/unreachable', message: 'Could not connect to authentication server' } }]);
    expect(kit.authLines()).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      '[INFO] AuthClient: authentication required (no valid certificate); calling authenticationRequired',
      '[ERROR] Could not connect to authentication server',
      '[ERROR] failed to obtain a certificate',
    ]);
    // The handler decides when to try again; the client does not.
    expect(kit.clock.pending).toBe(0);
  });

  it('logs `Failed to authenticate: Internal server error` with the decode message when the webhook answers malformed JSON', async () => {
    const { handler, logins } = handlerWith('jwt-ok');
    const sync = kit.open({ identity: onlineWithAuthentication({ appID: APP, bigPeerURL: server.url, provider: 'broken', authHandler: handler }) });
    await sync.auth.start();
    await Promise.all(logins);
    expect(kit.authLines().slice(2)).toEqual([`[ERROR] ${MALFORMED_WEBHOOK_MESSAGE}`, '[ERROR] failed to obtain a certificate']);
    expect(MALFORMED_WEBHOOK_MESSAGE).toMatch(/^Failed to authenticate: Internal server error: response body cannot be decoded as JSON: /);
  });

  it('names the URL when the Big Peer itself refuses the connection, and retries the playground login', async () => {
    const url = await closedPortUrl();
    const sync = kit.open({ identity: onlinePlayground({ appID: APP, token: TOKEN, bigPeerURL: url }) });
    await sync.auth.start();
    const { port } = new URL(url);
    expect(kit.authLines()).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      `[ERROR] AuthClient: could not connect to the Big Peer at ${url}/_sync/auth/login: connect ECONNREFUSED 127.0.0.1:${port}`,
      '[ERROR] failed to obtain a certificate',
      '[INFO] AuthClient: retrying authentication in 5 seconds',
    ]);
    expect(sync.auth.status).toMatchObject({ authenticated: false, lastError: { code: 'auth/unreachable' } });
  });

  it('keeps the certificate across a reopen: no second login, and the time left until the refresh', async () => {
    const identity = onlinePlayground({ appID: APP, token: TOKEN, bigPeerURL: server.url });
    const first = kit.open({ identity });
    await first.auth.start();
    const cert = first.auth.certificate;
    first.close();
    kit.newAuthLines();

    kit.clock.advance(3600_000);
    const second = kit.open({ identity });
    await second.auth.start();
    expect(kit.newAuthLines()).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      `[INFO] AuthClient: refreshing token in ${REFRESH_AFTER_S - 3600} seconds`,
    ]);
    expect(server.login.requests).toHaveLength(1);
    expect(second.auth.certificate).toEqual(cert);
    expect(second.auth.status).toMatchObject({ authenticated: true, userID: 'playground' });
  });
});
