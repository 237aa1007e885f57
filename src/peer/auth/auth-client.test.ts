/**
 * The auth client's life over time, on a manual clock and an in-process TEST FIXTURE login
 * (no sockets): when the handler's callbacks fire (and when they do not), the playground's own
 * refresh and retries, logout, a cached certificate of another issuer, and shutting down.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { generateIssuerKeys, readClaims, signCertificate } from './certificate.ts';
import { CERTIFICATE_SETTING } from './certificate-cache.ts';
import { onlinePlayground, onlineWithAuthentication, type AuthenticationHandler, type AuthLogin, type LoginOutcome } from './identity.ts';
import type { FetchLike } from './login-request.ts';
import { EVERYTHING } from '../../shared/permissions.ts';
import { authTestKit, type AuthTestKit } from '../../testing/auth/auth-test-kit.ts';
import { FixtureLogin } from '../../testing/auth/login-server.ts';

const APP = 'app-1';
const TOKEN = 'playground-token';
const URL_ = 'https://big-peer.test';
const HOUR = 3600_000;
/** An 8-hour certificate expires soon 48 minutes (10 %) before its end. */
const SOON = 8 * HOUR - 48 * 60_000;

/** Lets the in-process fetch and the settings write finish. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A handler that records its calls and logs in with `token` when `loginOn` says so. */
function recordingHandler(options: { token?: string; loginOn?: ReadonlySet<'required' | 'soon'> } = {}) {
  const calls: string[] = [];
  const logins: Promise<LoginOutcome>[] = [];
  const loginOn = options.loginOn ?? new Set(['required', 'soon']);
  const handler: AuthenticationHandler = {
    authenticationRequired(auth: AuthLogin) {
      calls.push('required');
      if (loginOn.has('required')) logins.push(auth.login(options.token ?? 'jwt-ok'));
    },
    authenticationExpiringSoon(auth: AuthLogin, secondsRemaining: number) {
      calls.push(`soon ${secondsRemaining}`);
      if (loginOn.has('soon')) logins.push(auth.login(options.token ?? 'jwt-ok'));
    },
  };
  return { handler, calls, logins };
}

describe('the auth client over time', () => {
  let kit: AuthTestKit;
  let fixture: FixtureLogin;

  beforeEach(() => {
    kit = authTestKit();
    fixture = new FixtureLogin({
      appID: APP,
      playgroundToken: TOKEN,
      providers: { jwt: (token) => (token === 'jwt-ok' ? { kind: 'accept', userID: 'user-7' } : { kind: 'reject' }) },
      now: () => kit.clock.now(),
    });
  });
  afterEach(() => kit.dispose());

  const playground = () => onlinePlayground({ appID: APP, token: TOKEN, bigPeerURL: URL_ });
  const withHandler = (handler: AuthenticationHandler) => onlineWithAuthentication({ appID: APP, bigPeerURL: URL_, provider: 'jwt', authHandler: handler });

  describe('with a handler', () => {
    it('calls authenticationExpiringSoon once near expiry, authenticationRequired once past it, and nothing in between', async () => {
      const { handler, calls, logins } = recordingHandler({ loginOn: new Set(['required']) });
      const sync = kit.open({ identity: withHandler(handler), fetch: fixture.fetch });
      await sync.auth.start();
      await Promise.all(logins);
      expect(calls).toEqual(['required']);

      kit.clock.advance(SOON - 1);
      expect(calls).toEqual(['required']);
      kit.clock.advance(1);
      expect(calls).toEqual(['required', 'soon 2880']);

      kit.clock.advance(48 * 60_000 - 1);
      expect(calls).toEqual(['required', 'soon 2880']);
      expect(sync.auth.status.authenticated).toBe(true);
      // The handler logged in again when required at start only: this expiry asks again.
      logins.length = 0;
      kit.newAuthLines();
      kit.clock.advance(1);
      expect(calls).toEqual(['required', 'soon 2880', 'required']);
      expect(kit.newAuthLines()).toEqual([
        '[WARN] AuthClient: the certificate expired at 2026-11-21T20:00:00.000Z',
        '[INFO] AuthClient: authentication required (the certificate expired); calling authenticationRequired',
      ]);
      expect(sync.auth.status.authenticated).toBe(false);
      await Promise.all(logins);
      expect(sync.auth.status.authenticated).toBe(true);
      expect(fixture.requests).toHaveLength(2);
    });

    it('moves both moments when the handler refreshes on authenticationExpiringSoon', async () => {
      const { handler, calls, logins } = recordingHandler();
      const sync = kit.open({ identity: withHandler(handler), fetch: fixture.fetch });
      await sync.auth.start();
      await Promise.all(logins);
      kit.newAuthLines();
      kit.clock.advance(SOON);
      await Promise.all(logins);
      expect(calls).toEqual(['required', 'soon 2880']);
      expect(kit.newAuthLines()).toEqual([
        '[INFO] AuthClient: the certificate expires in 2880 seconds; calling authenticationExpiringSoon',
        '[INFO] AuthClient: authentication request succeeded',
        '[INFO] AuthClient: refreshing token in 25920 seconds',
      ]);
      // Past the first certificate's expiry: nothing fires, the new one is valid.
      kit.clock.advance(HOUR);
      expect(calls).toEqual(['required', 'soon 2880']);
      expect(sync.auth.status).toMatchObject({ authenticated: true, userID: 'user-7', expiresAt: kit.clock.now() - HOUR + 8 * HOUR });
      kit.clock.advance(SOON - HOUR);
      expect(calls).toEqual(['required', 'soon 2880', 'soon 2880']);
    });

    it('logs the callback and the expiry, and leaves a failing handler’s error in the log only', async () => {
      const handler: AuthenticationHandler = {
        authenticationRequired: () => {
          throw new Error('no network for the identity service');
        },
        authenticationExpiringSoon: async () => {
          throw new Error('never');
        },
      };
      const sync = kit.open({ identity: withHandler(handler), fetch: fixture.fetch });
      await expect(sync.auth.start()).resolves.toBeUndefined();
      expect(kit.authLines()).toEqual([
        `[INFO] AuthClient: starting; app_id = ${APP}`,
        '[INFO] AuthClient: authentication required (no valid certificate); calling authenticationRequired',
        "[WARN] AuthClient: the authentication handler's authenticationRequired failed: no network for the identity service",
      ]);
      expect(kit.clock.pending).toBe(0);
    });

    it('refuses at creation a handler lacking a callback, naming it, and locks nothing', () => {
      const lacking = { authenticationRequired: () => {} } as unknown as AuthenticationHandler;
      const create = () => kit.open({ identity: withHandler(lacking) });
      expect(create).toThrowError(
        expect.objectContaining({ code: 'auth/handler-invalid', message: expect.stringContaining('it lacks authenticationExpiringSoon') }),
      );
      const neither = {} as AuthenticationHandler;
      expect(() => kit.open({ identity: withHandler(neither) })).toThrowError(/lacks authenticationRequired and authenticationExpiringSoon/);
      // The directory was not opened, so a Sync can open it now.
      expect(() => kit.open()).not.toThrow();
    });

    it('starts once, however often start() is called, and calls back once', async () => {
      const { handler, calls, logins } = recordingHandler();
      const sync = kit.open({ identity: withHandler(handler), fetch: fixture.fetch });
      await Promise.all([sync.auth.start(), sync.auth.start()]);
      await sync.auth.start();
      await Promise.all(logins);
      expect(calls).toEqual(['required']);
      expect(fixture.requests).toHaveLength(1);
    });
  });

  describe('with the playground', () => {
    it('refreshes by itself before expiry and keeps the certificate valid throughout', async () => {
      const sync = kit.open({ identity: playground(), fetch: fixture.fetch });
      await sync.auth.start();
      kit.newAuthLines();
      kit.clock.advance(SOON);
      await settle();
      expect(kit.newAuthLines()).toEqual([
        '[INFO] AuthClient: the certificate expires in 2880 seconds; refreshing it',
        '[INFO] AuthClient: authentication request succeeded',
        '[INFO] AuthClient: refreshing token in 25920 seconds',
      ]);
      expect(fixture.requests).toHaveLength(2);
      kit.clock.advance(HOUR);
      expect(sync.auth.status.authenticated).toBe(true);
      expect(kit.newAuthLines()).toEqual([]);
    });

    it('retries a login that found no Big Peer, backing off, until one succeeds', async () => {
      let down = true;
      const flaky: FetchLike = async (url, init) => {
        if (down) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 10.0.0.1:443') });
        return fixture.fetch(url, init);
      };
      const sync = kit.open({ identity: playground(), fetch: flaky });
      await sync.auth.start();
      kit.clock.advance(5_000);
      await settle();
      kit.clock.advance(10_000);
      await settle();
      expect(kit.authLines().filter((l) => l.includes('retrying'))).toEqual([
        '[INFO] AuthClient: retrying authentication in 5 seconds',
        '[INFO] AuthClient: retrying authentication in 10 seconds',
        '[INFO] AuthClient: retrying authentication in 20 seconds',
      ]);
      expect(kit.authLines()[1]).toBe(`[ERROR] AuthClient: could not connect to the Big Peer at ${URL_}/_sync/auth/login: connect ECONNREFUSED 10.0.0.1:443`);
      down = false;
      kit.newAuthLines();
      kit.clock.advance(20_000);
      await settle();
      expect(kit.newAuthLines()).toEqual(['[INFO] AuthClient: authentication request succeeded', '[INFO] AuthClient: refreshing token in 25920 seconds']);
      expect(sync.auth.status.authenticated).toBe(true);
    });

    it('makes a first login that found no Big Peer final when told not to retry it: no retry is announced or armed', async () => {
      const down: FetchLike = async () => {
        throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 10.0.0.1:443') });
      };
      const sync = kit.open({ identity: playground(), fetch: down, authRetryFirstLogin: false });
      await sync.auth.start();
      expect(kit.authLines()).toEqual([
        `[INFO] AuthClient: starting; app_id = ${APP}`,
        `[ERROR] AuthClient: could not connect to the Big Peer at ${URL_}/_sync/auth/login: connect ECONNREFUSED 10.0.0.1:443`,
        '[ERROR] failed to obtain a certificate',
      ]);
      expect(sync.auth.status.lastError?.code).toBe('auth/unreachable');
      expect(kit.clock.pending).toBe(0);
    });

    it('still retries a refresh that found no Big Peer when the first login is not retried', async () => {
      let down = false;
      const flaky: FetchLike = async (url, init) => {
        if (down) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 10.0.0.1:443') });
        return fixture.fetch(url, init);
      };
      const sync = kit.open({ identity: playground(), fetch: flaky, authRetryFirstLogin: false });
      await sync.auth.start();
      down = true;
      kit.newAuthLines();
      kit.clock.advance(SOON);
      await settle();
      expect(kit.newAuthLines().at(-1)).toBe('[INFO] AuthClient: retrying authentication in 5 seconds');
      down = false;
      kit.clock.advance(5_000);
      await settle();
      expect(kit.newAuthLines()).toEqual(['[INFO] AuthClient: authentication request succeeded', '[INFO] AuthClient: refreshing token in 25920 seconds']);
    });

    it('counts a Big Peer that does not answer within the timeout as unreachable', async () => {
      const silent: FetchLike = (_url, init) =>
        new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason as Error)));
      const sync = kit.open({ identity: playground(), fetch: silent, authRequestTimeoutMs: 10_000 });
      const started = sync.auth.start();
      await settle();
      kit.clock.advance(9_999);
      await settle();
      expect(kit.authLines()).toHaveLength(1);
      kit.clock.advance(1);
      await started;
      expect(kit.authLines().slice(1, 3)).toEqual([
        `[ERROR] AuthClient: could not connect to the Big Peer at ${URL_}/_sync/auth/login: no answer within 10 seconds`,
        '[ERROR] failed to obtain a certificate',
      ]);
    });
  });

  it('logout clears the cached certificate: the next start logs in again', async () => {
    const first = kit.open({ identity: playground(), fetch: fixture.fetch });
    await first.auth.start();
    await first.auth.logout();
    expect(first.auth.certificate).toBeUndefined();
    expect(first.auth.status).toEqual({ authenticated: false, userID: undefined, expiresAt: undefined, permissions: undefined, lastError: undefined });
    expect(kit.authLines().at(-1)).toBe('[INFO] AuthClient: logged out; the cached certificate was cleared');
    // No refresh is left armed.
    expect(kit.clock.pending).toBe(0);
    first.close();

    const second = kit.open({ identity: playground(), fetch: fixture.fetch });
    await second.auth.start();
    expect(fixture.requests).toHaveLength(2);
    expect(second.auth.status.authenticated).toBe(true);
  });

  it('after logout, start() authenticates again on the same Sync', async () => {
    const sync = kit.open({ identity: playground(), fetch: fixture.fetch });
    await sync.auth.start();
    await sync.auth.logout();
    await sync.auth.start();
    expect(fixture.requests).toHaveLength(2);
    expect(sync.auth.status.authenticated).toBe(true);
  });

  it('refuses a cached certificate of another issuer as UnknownIssuer and logs in as if it were absent', async () => {
    const first = kit.open({ identity: playground(), fetch: fixture.fetch });
    const other = generateIssuerKeys();
    const now = kit.clock.now();
    const foreign = signCertificate(
      { appID: APP, peerKey: first.peerKey, userID: 'u', permissions: EVERYTHING, issuer: other.publicKey, issuedAt: now, expiresAt: now + 8 * HOUR },
      other,
    );
    await first.store.internalSettings.set({
      [CERTIFICATE_SETTING]: JSON.stringify({
        certificate: foreign,
        issuerKey: fixture.issuer.publicKey,
        bigPeerURL: URL_,
        identityType: 'onlinePlayground',
        provider: null,
      }),
    });
    first.close();

    const second = kit.open({ identity: playground(), fetch: fixture.fetch });
    await second.auth.start();
    expect(kit.authLines()).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      '[ERROR] UnknownIssuer: the certificate was not issued by the known Big Peer; call sync.auth.logout() and reconnect',
      '[INFO] AuthClient: authentication request succeeded',
      '[INFO] AuthClient: refreshing token in 25920 seconds',
    ]);
    expect(second.auth.issuerKey).toBe(fixture.issuer.publicKey);
  });

  it('ignores a cached certificate that expired, or is of another app', async () => {
    const first = kit.open({ identity: playground(), fetch: fixture.fetch });
    await first.auth.start();
    first.close();
    kit.clock.advance(9 * HOUR);
    kit.newAuthLines();
    const second = kit.open({ identity: playground(), fetch: fixture.fetch });
    await second.auth.start();
    expect(kit.newAuthLines()).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      '[INFO] AuthClient: ignoring the cached certificate: the certificate expired at 2026-11-21T20:00:00.000Z',
      '[INFO] AuthClient: authentication request succeeded',
      '[INFO] AuthClient: refreshing token in 25920 seconds',
    ]);
    second.close();
    const third = kit.open({ identity: onlinePlayground({ appID: 'app-2', token: TOKEN, bigPeerURL: URL_ }), fetch: fixture.fetch });
    await third.auth.start();
    expect(kit.newAuthLines().slice(0, 2)).toEqual([
      '[INFO] AuthClient: starting; app_id = app-2',
      '[WARN] AuthClient: ignoring the cached certificate: the certificate is for app app-1, not app-2',
    ]);
  });

  it('refuses a certificate the Big Peer signed for another peer key', async () => {
    // The login itself is proven; the answer's certificate is re-signed by the same issuer for another key.
    const wrongPeer: FetchLike = async (url, init) => {
      const answer = await fixture.fetch(url, init);
      const body = JSON.parse(await answer.text());
      const { v: _v, ...claims } = readClaims(body.certificate);
      const certificate = signCertificate({ ...claims, peerKey: 'someone-else' }, fixture.issuer);
      return { status: answer.status, text: async () => JSON.stringify({ ...body, certificate }) };
    };
    const sync = kit.open({ identity: playground(), fetch: wrongPeer });
    await sync.auth.start();
    expect(kit.authLines().slice(1)).toEqual([
      '[ERROR] AuthClient: the certificate from the Big Peer is not valid: the certificate was issued to another peer key',
      '[ERROR] failed to obtain a certificate',
    ]);
    expect(sync.auth.status).toMatchObject({ authenticated: false, lastError: { code: 'auth/certificate-invalid' } });
  });

  it('stops its timers and requests on close, and logs nothing after the shutdown', async () => {
    const silent: FetchLike = (_url, init) => new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    const sync = kit.open({ identity: playground(), fetch: silent });
    const started = sync.auth.start();
    sync.close();
    await expect(started).resolves.toBeUndefined();
    const all = kit.hub.recentEntries().map((e) => e.message);
    expect(all.at(-1)).toBe('Deallocating');
    expect(kit.clock.pending).toBe(0);
  });

  it('does nothing for an offline Sync, whose login fails without a request', async () => {
    const fetch = vi.fn<FetchLike>();
    const sync = kit.open({ fetch });
    await sync.auth.start();
    expect(await sync.auth.login('t')).toMatchObject({ ok: false, error: { code: 'auth/failed' } });
    expect(sync.auth.identityType).toBe('offline');
    expect(fetch).not.toHaveBeenCalled();
    expect(kit.authLines()).toEqual([]);
  });

  it('reports status changes to its listeners', async () => {
    const sync = kit.open({ identity: playground(), fetch: fixture.fetch });
    const seen: boolean[] = [];
    sync.auth.onStatusChange((s) => seen.push(s.authenticated));
    await sync.auth.start();
    kit.clock.advance(9 * HOUR);
    await settle();
    expect(seen[0]).toBe(true);
    expect(seen.length).toBeGreaterThan(1);
  });

  it('sends a login proof the Big Peer verifies, and a login without a valid proof is refused', async () => {
    const sync = kit.open({ identity: playground(), fetch: fixture.fetch });
    await sync.auth.start();
    expect(sync.auth.status.authenticated).toBe(true);
    const sent = fixture.requests[0]!;
    expect(sent.proof.timestamp).toBe(kit.clock.now());
    const refused = (body: unknown): void => {
      const answer = fixture.answer(JSON.stringify(body));
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body).error.message).toMatch(/login proof/);
    };
    const { proof: _proof, ...unproven } = sent;
    refused(unproven);
    refused({ ...sent, proof: { timestamp: sent.proof.timestamp, signature: 'A'.repeat(86) } });
    // Another peer's key with this peer's signature.
    refused({ ...sent, peerKey: generateIssuerKeys().publicKey });
    // The same proof replayed past the 5-minute window, or dated too far ahead.
    kit.clock.advance(5 * 60_000 + 1);
    refused(sent);
    const ahead = new FixtureLogin({ appID: APP, playgroundToken: TOKEN, now: () => sent.proof.timestamp - 5 * 60_000 - 1 });
    expect(ahead.answer(JSON.stringify(sent)).status).toBe(401);
    const inWindow = new FixtureLogin({ appID: APP, playgroundToken: TOKEN, now: () => sent.proof.timestamp + 5 * 60_000 });
    expect(inWindow.answer(JSON.stringify(sent)).status).toBe(200);
  });

  describe('logout and the cached certificate', () => {
    const cachedText = (sync: { store: { internalSettings: { get(key: string): string | undefined } } }) =>
      sync.store.internalSettings.get(CERTIFICATE_SETTING) ?? '';

    it('A: logout() then close() at once clears the cache, so the reopened peer logs in again', async () => {
      const first = kit.open({ identity: playground(), fetch: fixture.fetch });
      await first.auth.start();
      kit.newAuthLines();
      const out = first.auth.logout();
      first.close();
      await expect(out).resolves.toBeUndefined();
      expect(kit.newAuthLines()).toEqual(['[INFO] AuthClient: logged out; the cached certificate was cleared']);
      const second = kit.open({ identity: playground(), fetch: fixture.fetch });
      expect(cachedText(second)).toBe('');
      await second.auth.start();
      expect(fixture.requests).toHaveLength(2);
      expect(kit.newAuthLines()).toEqual([
        `[INFO] AuthClient: starting; app_id = ${APP}`,
        '[INFO] AuthClient: authentication request succeeded',
        '[INFO] AuthClient: refreshing token in 25920 seconds',
      ]);
    });

    it('B: start() right after an unawaited logout() ignores the cache and logs in again', async () => {
      const sync = kit.open({ identity: playground(), fetch: fixture.fetch });
      await sync.auth.start();
      const before = sync.auth.certificate!;
      kit.newAuthLines();
      const out = sync.auth.logout();
      // Not logged before the clear has landed.
      expect(kit.newAuthLines()).toEqual([]);
      kit.clock.advance(1000);
      await sync.auth.start();
      await out;
      expect(fixture.requests).toHaveLength(2);
      expect(sync.auth.certificate?.signature).not.toBe(before.signature);
      expect(kit.newAuthLines()).toEqual([
        `[INFO] AuthClient: starting; app_id = ${APP}`,
        '[INFO] AuthClient: logged out; the cached certificate was cleared',
        '[INFO] AuthClient: authentication request succeeded',
        '[INFO] AuthClient: refreshing token in 25920 seconds',
      ]);
      // The new login's certificate is the one cached.
      expect(JSON.parse(cachedText(sync)).certificate.signature).toBe(sync.auth.certificate!.signature);
    });

    it('C: a listener that logs out during a successful login leaves no certificate, held or cached', async () => {
      const first = kit.open({ identity: playground(), fetch: fixture.fetch });
      let out: Promise<void> | undefined;
      first.auth.onStatusChange((st) => {
        if (st.userID === 'playground' && out === undefined) out = first.auth.logout();
      });
      await first.auth.start();
      await out;
      await settle();
      expect(first.auth.certificate).toBeUndefined();
      expect(cachedText(first)).toBe('');
      first.close();
      const second = kit.open({ identity: playground(), fetch: fixture.fetch });
      await second.auth.start();
      expect(fixture.requests).toHaveLength(2);
    });
  });

  it('ignores a cached certificate of another Big Peer, identity type or provider (INFO) and logs in again', async () => {
    const first = kit.open({ identity: playground(), fetch: fixture.fetch });
    await first.auth.start();
    first.close();
    kit.newAuthLines();

    const elsewhere = kit.open({ identity: onlinePlayground({ appID: APP, token: TOKEN, bigPeerURL: 'https://other-big-peer.test' }), fetch: fixture.fetch });
    await elsewhere.auth.start();
    expect(kit.newAuthLines().slice(0, 3)).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      `[INFO] AuthClient: ignoring the cached certificate: it was obtained from Big Peer ${URL_}, not https://other-big-peer.test`,
      '[INFO] AuthClient: authentication request succeeded',
    ]);
    elsewhere.close();

    const { handler, calls } = recordingHandler({ loginOn: new Set() });
    const withAuth = kit.open({
      identity: onlineWithAuthentication({ appID: APP, bigPeerURL: 'https://other-big-peer.test', provider: 'jwt', authHandler: handler }),
      fetch: fixture.fetch,
    });
    await withAuth.auth.start();
    expect(kit.newAuthLines().slice(0, 2)).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      '[INFO] AuthClient: ignoring the cached certificate: it was obtained with identity onlinePlayground, not onlineWithAuthentication',
    ]);
    expect(calls).toEqual(['required']);
    expect(withAuth.auth.status.authenticated).toBe(false);
    expect(await withAuth.auth.login('jwt-ok')).toMatchObject({ ok: true });
    withAuth.close();
    kit.newAuthLines();

    const otherProvider = kit.open({
      identity: onlineWithAuthentication({ appID: APP, bigPeerURL: 'https://other-big-peer.test', provider: 'sso', authHandler: handler }),
      fetch: fixture.fetch,
    });
    await otherProvider.auth.start();
    expect(kit.newAuthLines().slice(0, 2)).toEqual([
      `[INFO] AuthClient: starting; app_id = ${APP}`,
      '[INFO] AuthClient: ignoring the cached certificate: it was obtained with provider jwt, not sso',
    ]);
    expect(otherProvider.auth.status.authenticated).toBe(false);
  });

  it('ignores a cached certificate that does not record what it was obtained for', async () => {
    const first = kit.open({ identity: playground(), fetch: fixture.fetch });
    await first.auth.start();
    const { certificate, issuerKey } = JSON.parse(first.store.internalSettings.get(CERTIFICATE_SETTING)!);
    await first.store.internalSettings.set({ [CERTIFICATE_SETTING]: JSON.stringify({ certificate, issuerKey }) });
    first.close();
    kit.newAuthLines();
    const second = kit.open({ identity: playground(), fetch: fixture.fetch });
    await second.auth.start();
    expect(kit.newAuthLines()[1]).toBe(`[INFO] AuthClient: ignoring the cached certificate: it was obtained from Big Peer (not recorded), not ${URL_}`);
    expect(fixture.requests).toHaveLength(2);
  });
});
