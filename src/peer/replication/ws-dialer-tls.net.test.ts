/**
 * The WebSocket dialer against wss:// servers on 127.0.0.1 whose certificates it must refuse:
 * each attempt logs StreamFailed naming the spec's TLS error (section 7), and the line with
 * the fix is logged once for a run of the same failure, not at every reconnection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/log.ts';
import { hasOpenssl, startRefusingTlsServer, type RefusedCertificate, type RefusingTlsServer } from '../../testing/auth/tls-servers.ts';
import { LogHub } from '../log/log-hub.ts';
import { ManualTimers } from '../time.ts';
import { createMesh, type Mesh } from '../../testing/test-mesh.ts';
import { WebSocketDialer } from './ws-dialer.ts';

const OPENSSL = hasOpenssl();
if (!OPENSSL) console.warn('ws-dialer-tls.net.test.ts: openssl is not installed, so these tests are skipped');

let mesh: Mesh | undefined;
let server: RefusingTlsServer | undefined;
afterEach(async () => {
  mesh?.dispose();
  mesh = undefined;
  await server?.close();
  server = undefined;
});

/** Dials `kind`'s server, lets it fail three times, and returns the dialer's log entries. */
async function dialThreeTimes(kind: RefusedCertificate): Promise<{ logs: LogEntry[]; url: string }> {
  server = await startRefusingTlsServer(kind);
  mesh = createMesh();
  const peer = mesh.peer('small');
  const timers = new ManualTimers();
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((e) => logs.push(e));
  const url = server.wsUrl;
  const dialer = new WebSocketDialer({
    url,
    replicator: peer.replicator,
    logger: hub.logger('replication'),
    timers,
    minDelayMs: 100,
    maxDelayMs: 100,
    random: () => 1,
  });
  dialer.start();
  for (let attempt = 1; attempt <= 3; attempt++) {
    for (let i = 0; i < 500 && logs.filter((e) => e.event === 'peer.reconnect-scheduled').length < attempt; i++) await new Promise((r) => setTimeout(r, 5));
    if (attempt < 3) timers.advance(100);
  }
  dialer.stop();
  return { logs, url };
}

describe.skipIf(!OPENSSL)('a wss:// dial refused by TLS', () => {
  it('names UnknownIssuer for an untrusted self-signed certificate, with the fix once and Node’s words each time', async () => {
    const { logs, url } = await dialThreeTimes('untrusted');
    const failed = logs.filter((e) => e.event === 'peer.stream-failed');
    expect(failed).toHaveLength(3);
    for (const e of failed) {
      expect(e.level).toBe('WARN');
      expect(e.message).toMatch(/; error = UnknownIssuer: self-signed certificate\b.*\(DEPTH_ZERO_SELF_SIGNED_CERT\)$/);
    }
    const tls = logs.filter((e) => e.event === 'tls.connect-failed');
    expect(tls).toHaveLength(1);
    expect(tls[0]?.level).toBe('ERROR');
    expect(tls[0]?.message).toMatch(/^TLS connect failure: UnknownIssuer: self-signed certificate\b/);
    expect(tls[0]?.message).toContain(`url = ${url}`);
    expect(tls[0]?.message).toContain('sync.auth.logout()');
    expect(tls[0]?.message).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('names `webpki error: UnsupportedCriticalExtension` for a certificate with an unknown critical extension', async () => {
    const { logs } = await dialThreeTimes('criticalExtension');
    const failed = logs.filter((e) => e.event === 'peer.stream-failed');
    expect(failed).toHaveLength(3);
    for (const e of failed) expect(e.message).toMatch(/; error = webpki error: UnsupportedCriticalExtension: unhandled critical extension$/);
    const tls = logs.filter((e) => e.event === 'tls.connect-failed');
    expect(tls).toHaveLength(1);
    expect(tls[0]?.message).toMatch(/^TLS error: webpki error: UnsupportedCriticalExtension: unhandled critical extension; url = wss:/);
    expect(tls[0]?.message).toContain('keychains');
  });
});
