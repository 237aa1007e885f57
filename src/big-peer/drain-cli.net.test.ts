/**
 * `syncmesh big-peer` drained by SIGTERM, as a real process: readiness turns 503 at once while
 * liveness stays 200, the sessions end with 1001 after the drain delay, and the process exits 0;
 * a second SIGTERM cuts a long drain short. Its /metrics carries the process metrics too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { exitOf, startNode, stopAll, until, type Run } from '../testing/cli/child-process-fixture.ts';
import { DRAIN_CLOSE_REASON } from './big-peer.ts';
import { parsePrometheusText, sampleValue } from '../testing/big-peer/prometheus-text.ts';
import { call } from '../testing/big-peer/test-helpers.ts';

// The log lines, by event name or by their text (src/peer/log/messages.ts), whichever renders them.
const DRAINING = /big-peer\.draining|Big Peer draining/;
const DRAINED = /big-peer\.drained|Big Peer drained/;
const CUT_SHORT = /big-peer\.drain-cut-short|Big Peer drain cut short/;

describe('syncmesh big-peer on SIGTERM', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'big-peer-drain-'));
  });
  afterEach(async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the Big Peer with `config` and resolves with its HTTP URL once it printed it. */
  async function serve(config: object): Promise<{ run: Run; url: string }> {
    const file = join(dir, 'big-peer.json');
    writeFileSync(file, JSON.stringify({ appID: 'drain-app', port: 0, ...config }));
    const run = startNode(['bin/syncmesh.js', 'big-peer', '--config', file]);
    await until(run, () => /HTTP API: +http:\/\/\S+/.test(run.stdout), 'the printed URL');
    return { run, url: /HTTP API: +(http:\/\/\S+)/.exec(run.stdout)?.[1] as string };
  }

  /** A session that got its challenge, and its close. */
  async function session(url: string): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/_sync/ws`);
    ws.on('error', () => undefined);
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    await new Promise((resolve) => ws.once('message', resolve));
    return { ws, closed };
  }

  it('drains: /_ready 503 at once and /_health 200 through the delay, then sessions end with 1001 and it exits 0', async () => {
    const { run, url } = await serve({ drainDelayMs: 1500 });
    const metrics = await call(`${url}/metrics`);
    expect(sampleValue(parsePrometheusText(metrics.text), 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect((await call(`${url}/_ready`)).json).toEqual({ status: 'ready' });
    const { ws, closed } = await session(url);

    run.child.kill('SIGTERM');
    await until(run, () => DRAINING.test(run.stderr), 'the drain start');
    const ready = await call(`${url}/_ready`);
    expect([ready.status, ready.json.status]).toEqual([503, 'draining']);
    expect((await call(`${url}/_health`)).json).toEqual({ status: 'ok' });
    expect(ws.readyState).toBe(WebSocket.OPEN);

    expect(await closed).toEqual({ code: 1001, reason: DRAIN_CLOSE_REASON });
    expect(await exitOf(run)).toBe(0);
    expect(run.stderr).toMatch(DRAINED);
    expect(run.stdout).toMatch(/Big Peer stopped \(SIGTERM\)\n$/);
  });

  it('cuts a long drain short on a second SIGTERM, and still exits 0', async () => {
    const { run, url } = await serve({ drainDelayMs: 600_000 });
    expect((await call(`${url}/_ready`)).status).toBe(200);
    const { closed } = await session(url);
    run.child.kill('SIGTERM');
    await until(run, () => DRAINING.test(run.stderr), 'the drain start');
    const sent = Date.now();
    run.child.kill('SIGTERM');
    expect(await exitOf(run)).toBe(0);
    expect(Date.now() - sent).toBeLessThan(5000);
    expect((await closed).code).toBeGreaterThanOrEqual(1001);
    expect(run.stderr).toMatch(CUT_SHORT);
    expect(run.stderr).toMatch(DRAINED);
  });
});
