/**
 * A small peer whose certificate from the auth webhook expires while it syncs with a real Big
 * Peer (one injected clock for both): the Big Peer ends the session (4401, `certificate
 * expired`); the peer calls the handler's `authenticationRequired` (spec 5.5: callbacks fire
 * when the certificate expires) and dials again only once it holds a new certificate. It never
 * announces the certificate it knows has expired, so the Big Peer refuses nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogHub, ManualTimers, Sync, onlineWithAuthentication, type AuthLogin, type Timers } from '../peer/host.ts';
import type { LogEntry } from '../shared/log.ts';
import { startTestPeer, startWebhook, TEST_APP, waitUntil, type TestPeer } from '../testing/big-peer/test-helpers.ts';

const LIFETIME_S = 600;

describe('a webhook certificate that expires while the peer syncs', () => {
  let clock: ManualTimers;
  let bigPeer: TestPeer;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  let sync: Sync | undefined;

  beforeEach(async () => {
    clock = new ManualTimers(Date.UTC(2026, 10, 21, 12, 0, 0));
    webhook = await startWebhook(() => ({ body: JSON.stringify({ authenticated: true, userID: 'clerk-7', expirationSeconds: LIFETIME_S }) }));
    bigPeer = await startTestPeer({ authProviders: { corp: { url: webhook.url } } }, clock);
  });
  afterEach(async () => {
    sync?.close();
    sync = undefined;
    await bigPeer.close();
    await webhook.close();
  });

  it('calls authenticationRequired and redials only with the new certificate, never with the expired one', async () => {
    const calls: string[] = [];
    let loginAtOnce = true;
    let deferred: AuthLogin | undefined;
    const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
    const logs: LogEntry[] = [];
    hub.setCustomLogCallback((e) => logs.push(e));
    sync = new Sync({
      inMemory: true,
      logHub: hub,
      timers: clock,
      sync: { reconnect: { minDelayMs: 100, maxDelayMs: 200 } },
      identity: onlineWithAuthentication({
        appID: TEST_APP,
        bigPeerURL: bigPeer.url,
        provider: 'corp',
        authHandler: {
          authenticationRequired: (auth) => {
            calls.push('required');
            // The second time, the app takes its time (a user signing in again).
            if (loginAtOnce) void auth.login('jwt', 'corp');
            else deferred = auth;
          },
          authenticationExpiringSoon: () => {
            calls.push('expiring soon');
          },
        },
      }),
    });
    const peer = sync;
    await peer.startSync();
    await waitUntil('a session with the Big Peer', () => peer.sessions.length === 1);
    const firstExpiry = peer.auth.status.expiresAt as number;

    loginAtOnce = false;
    clock.advance(firstExpiry - clock.now());
    expect(calls).toEqual(['required', 'expiring soon', 'required']);
    await waitUntil('the Big Peer ended the session at the expiry', () => peer.sessions.length === 0);
    // Time for the dialer to (wrongly) try again: its backoff is at most 200 ms.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 60));
      clock.advance(250);
    }
    await new Promise((r) => setTimeout(r, 200));
    const refusals = (): string[] => bigPeer.logs.filter((e) => e.event === 'big-peer.session-refused' && e.fields.code === 4401).map((e) => e.message);
    expect(refusals()).toEqual([]);
    expect(logs.filter((e) => e.event === 'peer.session-refused').map((e) => e.message)).toEqual([]);
    expect(logs.filter((e) => e.event === 'peer.connection-established')).toHaveLength(1);
    // It says why it does not dial, once.
    const waiting = logs.filter((e) => e.event === 'peer.dial-waiting');
    expect(waiting).toHaveLength(1);
    expect(waiting[0]?.message).toMatch(
      /^Not dialing until this peer holds a valid certificate; connect_address = ws:\/\/127\.0\.0\.1:\d+\/_sync\/ws; reason = the certificate expired at 2026-11-21T12:10:00\.000Z/,
    );

    // The app logs in: the peer dials at once with the new certificate (no clock needed).
    expect(deferred).toBeDefined();
    await expect(deferred?.login('jwt', 'corp')).resolves.toMatchObject({ ok: true });
    await waitUntil('a session with the new certificate', () => peer.sessions.length === 1);
    expect(peer.auth.status.expiresAt).toBe(clock.now() + LIFETIME_S * 1000);
    expect(refusals()).toEqual([]);
    expect(logs.filter((e) => e.event === 'peer.connection-established')).toHaveLength(2);
  });

  it('re-authenticates before it dials when its expiry timer has not fired yet (the machine slept past the expiry)', async () => {
    // The peer reads the shared wall clock, but its timers wait on a queue of their own that
    // this test never runs: while the clock passes the expiry, none of them fires, as on a
    // machine that slept (the Big Peer, on the clock, runs its timers).
    const frozen = new ManualTimers();
    const peerTimers: Timers = { now: () => clock.now(), setTimeout: (fn, ms) => frozen.setTimeout(fn, ms), clearTimeout: (h) => frozen.clearTimeout(h) };
    const calls: string[] = [];
    const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
    const logs: LogEntry[] = [];
    hub.setCustomLogCallback((e) => logs.push(e));
    sync = new Sync({
      inMemory: true,
      logHub: hub,
      timers: peerTimers,
      identity: onlineWithAuthentication({
        appID: TEST_APP,
        bigPeerURL: bigPeer.url,
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
    const peer = sync;
    await peer.startSync();
    await waitUntil('a session with the Big Peer', () => peer.sessions.length === 1);
    const firstExpiry = peer.auth.status.expiresAt as number;
    await peer.stopSync();

    clock.advance(firstExpiry - clock.now());
    expect(peer.auth.status.authenticated).toBe(false);
    expect(calls).toEqual(['required']);
    await peer.startSync();
    await waitUntil('a session with a new certificate', () => peer.sessions.length === 1);
    expect(calls).toEqual(['required', 'required']);
    expect(peer.auth.status.expiresAt).toBeGreaterThan(firstExpiry);
    expect(logs.filter((e) => e.event === 'auth.expired')).toHaveLength(1);
    expect(bigPeer.logs.filter((e) => e.event === 'big-peer.session-refused' && e.fields.code === 4401)).toEqual([]);
  });
});
