/**
 * Sessions waiting for their announcement, over real sockets on 127.0.0.x: at most 16 from one
 * address, so that clients that connect and never announce themselves, however often they
 * reconnect, cannot keep other addresses from the handshake; and the 5 s they may wait. Every
 * load loop is bounded in count and in time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualTimers } from '../peer/host.ts';
import { ANNOUNCE_CLOSE_CODES } from '../shared/protocol/announce.ts';
import { startTestPeer, waitUntil, type TestPeer } from '../testing/big-peer/test-helpers.ts';
import { announced, closedWith, openClient, startEndpoint, type TestEndpoint } from '../testing/big-peer/websocket-test-helpers.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('sessions waiting for their announcement', () => {
  const clients: WebSocket[] = [];
  let e: TestEndpoint | undefined;
  let t: TestPeer | undefined;
  afterEach(async () => {
    for (const ws of clients.splice(0)) ws.terminate();
    await e?.close();
    await t?.close();
    e = undefined;
    t = undefined;
  });

  it('refuses at once with 1013 a 17th from one address, and still admits another address', async () => {
    t = await startTestPeer();
    const url = t.peer.wsUrl;
    for (let i = 0; i < 16; i++) clients.push((await openClient(url, '127.0.0.2')).ws);
    const extra = new WebSocket(url, { localAddress: '127.0.0.2' });
    extra.on('error', () => undefined);
    clients.push(extra);
    expect(await closedWith(extra)).toEqual({
      code: ANNOUNCE_CLOSE_CODES.busy,
      reason: 'too many sessions waiting for their announcement from 127.0.0.2 (16); try again later',
    });
    const other = await openClient(url, '127.0.0.3');
    clients.push(other.ws);
    expect(other.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('takes maxPendingSessionsPerAddress from the configuration', async () => {
    t = await startTestPeer({ maxPendingSessionsPerAddress: 2 });
    for (let i = 0; i < 2; i++) clients.push((await openClient(t.peer.wsUrl, '127.0.0.2')).ws);
    await expect(openClient(t.peer.wsUrl, '127.0.0.2')).rejects.toMatchObject({ code: 1013 });
    clients.push((await openClient(t.peer.wsUrl, '127.0.0.3')).ws);
  });

  it('closes a session that has not announced itself within 5 s, or announceTimeoutMs', async () => {
    const timers = new ManualTimers();
    t = await startTestPeer({}, timers);
    const { ws } = await openClient(t.peer.wsUrl);
    clients.push(ws);
    const end = closedWith(ws);
    timers.advance(4_999);
    await sleep(50);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    timers.advance(1);
    expect(await end).toEqual({ code: ANNOUNCE_CLOSE_CODES.timeout, reason: 'no announcement within 5000 ms' });
    await t.close();

    const quick = new ManualTimers();
    t = await startTestPeer({ announceTimeoutMs: 1_000 }, quick);
    const second = await openClient(t.peer.wsUrl);
    clients.push(second.ws);
    const secondEnd = closedWith(second.ws);
    quick.advance(1_000);
    expect(await secondEnd).toEqual({ code: ANNOUNCE_CLOSE_CODES.timeout, reason: 'no announcement within 1000 ms' });
  });

  it('lets clients of another address through the handshake while one address floods it', async () => {
    // 100 idle clients from 127.0.0.2, each reconnecting as soon as it is closed, against 64
    // places in all: without a bound per address they would hold every place.
    e = await startEndpoint({ maxPendingSessions: 64 });
    const url = e.url;
    const FLOOD = 100;
    const FLOOD_MS = 4_000;
    const MAX_ATTEMPTS = 5_000;
    let attempts = 0;
    let flooding = true;
    const flood = (): void => {
      if (!flooding || attempts >= MAX_ATTEMPTS) return;
      attempts++;
      const ws = new WebSocket(url, { localAddress: '127.0.0.2', perMessageDeflate: false });
      clients.push(ws);
      ws.on('error', () => undefined);
      ws.on('close', () => setTimeout(flood, 5));
    };
    for (let i = 0; i < FLOOD; i++) flood();
    const stop = setTimeout(() => (flooding = false), FLOOD_MS);
    try {
      await waitUntil('the flood to hold its places', () => (e as TestEndpoint).endpoint.sessions >= 16, 5_000);

      // Ten clients of 127.0.0.3, each trying again 50 ms after a refusal, for at most 2 s.
      const started = Date.now();
      const times = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const deadline = Date.now() + 2_000;
          for (;;) {
            try {
              const { ws, answer } = await announced(e as TestEndpoint, `legit-${i}`, '127.0.0.3');
              clients.push(ws);
              expect(answer).toMatchObject({ type: 'announce', role: 'big-peer' });
              return Date.now() - started;
            } catch (error) {
              if (Date.now() > deadline) throw new Error(`legit-${i} got no session within 2 s: ${(error as Error).message}`, { cause: error });
              await sleep(50);
            }
          }
        }),
      );
      expect(Math.max(...times)).toBeLessThan(2_000);
      expect(attempts).toBeGreaterThan(FLOOD);
    } finally {
      flooding = false;
      clearTimeout(stop);
    }
  });
});
