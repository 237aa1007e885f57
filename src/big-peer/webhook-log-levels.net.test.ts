/**
 * The Big Peer's log lines for a login whose webhook fails, over real HTTP against a real
 * webhook on 127.0.0.1 (spec 7; docs/http-api.md): the 502s are logged at ERROR, once, with the
 * provider and the URL, and never also at INFO as a refusal; a refusal by the webhook stays INFO.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../shared/log.ts';
import { call, closedPort, proven, startTestPeer, startWebhook, TEST_APP, type TestPeer } from '../testing/big-peer/test-helpers.ts';

const LOGIN = '/_sync/auth/login';

describe('webhook failure log levels', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function peerWith(url: string): Promise<TestPeer> {
    const t = await startTestPeer({ authProviders: { corp: { url } }, webhookTimeoutMs: 2000 });
    cleanup.push(() => t.close());
    return t;
  }

  async function webhookAnswering(body: string): Promise<string> {
    const hook = await startWebhook(() => ({ body }));
    cleanup.push(() => hook.close());
    return hook.url;
  }

  const login = (t: TestPeer) =>
    call(`${t.url}${LOGIN}`, {
      method: 'POST',
      body: proven({ appID: TEST_APP, peerKey: 'pk', token: 't', provider: 'corp' }, t.now()),
      headers: { 'Content-Type': 'application/json' },
    });

  /** The login's own lines: what the Big Peer logged about this login. */
  const loginLines = (logs: readonly LogEntry[]) =>
    logs.filter((e) => e.event.startsWith('big-peer.login') || e.event.startsWith('big-peer.webhook')).map((e) => `[${e.level}] ${e.message}`);

  it('logs a webhook answer that is not JSON at ERROR only, with the spec’s words, the provider and the URL', async () => {
    const url = await webhookAnswering('<html>oops</html>');
    const t = await peerWith(url);
    const res = await login(t);
    expect(res.status).toBe(502);
    expect(res.json.error.code).toBe('auth/failed');
    expect(loginLines(t.logs)).toEqual([`[ERROR] ${res.json.error.message}; provider = corp; url = ${url}`]);
    expect(res.json.error.message).toMatch(/^Failed to authenticate: Internal server error: response body cannot be decoded as JSON: /);
    // No line at all says it at a lower level than ERROR.
    expect(t.logs.filter((e) => e.message.includes('cannot be decoded as JSON') && e.level !== 'ERROR')).toEqual([]);
  });

  it('logs an empty webhook answer and one of the wrong shape at ERROR only', async () => {
    for (const body of ['', '{"authenticated": "yes"}']) {
      const url = await webhookAnswering(body);
      const t = await peerWith(url);
      const res = await login(t);
      expect(res.status).toBe(502);
      expect(loginLines(t.logs)).toEqual([`[ERROR] ${res.json.error.message}; provider = corp; url = ${url}`]);
    }
  });

  it('logs an unreachable webhook at ERROR only', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/auth`;
    const t = await peerWith(url);
    expect((await login(t)).status).toBe(502);
    expect(loginLines(t.logs)).toEqual([`[ERROR] Could not connect to authentication server; provider = corp; url = ${url}; error = ECONNREFUSED`]);
  });

  it('still logs a refusal by the webhook at INFO as "Login refused"', async () => {
    const url = await webhookAnswering('{"authenticated": false, "reason": "token expired"}');
    const t = await peerWith(url);
    expect((await login(t)).status).toBe(401);
    expect(loginLines(t.logs)).toEqual([`[INFO] Login refused; app_id = ${TEST_APP}; provider = corp; status = 401; reason = token expired`]);
  });
});
