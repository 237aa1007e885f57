/**
 * TLS failures of the login (spec 7) over real TLS servers on 127.0.0.1: the auth client logs
 * them with the names the spec gives (`UnknownIssuer`, `webpki error:
 * UnsupportedCriticalExtension`) and the spec's fix, with Node's own words after them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onlinePlayground } from './identity.ts';
import { authTestKit, type AuthTestKit } from '../../testing/auth/auth-test-kit.ts';
import { hasOpenssl, startRefusingTlsServer, type RefusingTlsServer } from '../../testing/auth/tls-servers.ts';

const APP = 'app-1';
const OPENSSL = hasOpenssl();
if (!OPENSSL) console.warn('tls-failure.net.test.ts: openssl is not installed, so these tests are skipped');

describe.skipIf(!OPENSSL)('a login over TLS that the client refuses', () => {
  let kit: AuthTestKit;
  let server: RefusingTlsServer | undefined;

  beforeEach(() => {
    kit = authTestKit();
  });
  afterEach(async () => {
    kit.dispose();
    await server?.close();
    server = undefined;
  });

  it('logs UnknownIssuer with the fix (logout, the proxy’s CA, NODE_EXTRA_CA_CERTS) and Node’s words for an untrusted self-signed certificate', async () => {
    server = await startRefusingTlsServer('untrusted');
    const sync = kit.open({ identity: onlinePlayground({ appID: APP, token: 't', bigPeerURL: server.url }), authRetryFirstLogin: false });
    await sync.auth.start();
    const lines = kit.authLines();
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(`[INFO] AuthClient: starting; app_id = ${APP}`);
    expect(lines[1]).toMatch(
      /^\[ERROR\] TLS connect failure: UnknownIssuer: self-signed certificate\b.*\(DEPTH_ZERO_SELF_SIGNED_CERT\); url = https:\/\/127\.0\.0\.1:\d+\/_sync\/auth\/login; /,
    );
    expect(lines[1]).toContain('sync.auth.logout()');
    expect(lines[1]).toContain('proxy');
    expect(lines[1]).toContain('NODE_EXTRA_CA_CERTS');
    expect(lines[2]).toBe('[ERROR] failed to obtain a certificate');
    const entry = kit.hub.recentEntries().find((e) => e.event === 'tls.connect-failed');
    expect(entry?.fields).toMatchObject({ name: 'UnknownIssuer', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(sync.auth.status.lastError).toMatchObject({
      code: 'auth/unreachable',
      message: expect.stringMatching(/^TLS connect failure: UnknownIssuer: self-signed certificate/),
    });
  });

  it('logs `webpki error: UnsupportedCriticalExtension` with the fix and Node’s words for a certificate with an unknown critical extension', async () => {
    server = await startRefusingTlsServer('criticalExtension');
    const sync = kit.open({ identity: onlinePlayground({ appID: APP, token: 't', bigPeerURL: server.url }), authRetryFirstLogin: false });
    await sync.auth.start();
    const lines = kit.authLines();
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(
      /^\[ERROR\] TLS error: webpki error: UnsupportedCriticalExtension: unhandled critical extension; url = https:\/\/127\.0\.0\.1:\d+\/_sync\/auth\/login; /,
    );
    expect(lines[1]).toContain('reset the certificate chain');
    expect(lines[1]).toContain('keychains');
    expect(lines[2]).toBe('[ERROR] failed to obtain a certificate');
    expect(sync.auth.status.lastError).toMatchObject({
      code: 'auth/unreachable',
      message: expect.stringMatching(/^TLS error: webpki error: UnsupportedCriticalExtension: unhandled critical extension/),
    });
  });
});
