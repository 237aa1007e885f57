/**
 * What a connection to `/_sync/ws` may send before its announcement is accepted, over real
 * sockets on 127.0.0.x: one frame of at most 1 MiB (more: 1009), within a budget shared by every
 * unannounced connection (beyond it: 1013); after the announcement, frames of up to 16 MiB.
 * The memory an unannounced connection holds is checked on the Big Peer's accounting and on the
 * bytes its sockets read, not on the RSS of this process (which the clients share).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { waitUntil } from '../testing/big-peer/test-helpers.ts';
import {
  MiB,
  announced,
  bounded,
  closedWith,
  frameHeader,
  openClient,
  rawClient,
  startEndpoint,
  type EndpointLimits,
  type RawClient,
  type TestEndpoint,
} from '../testing/big-peer/websocket-test-helpers.ts';

/** The most a frame header of a client takes (2 bytes, an 8-byte length, a 4-byte mask). */
const MAX_HEADER = 14;
/** The most one read from a TCP socket returns in Node.js. */
const READ = 64 * 1024;

describe('the sync WebSocket before the announcement', () => {
  let e: TestEndpoint | undefined;
  const open: (WebSocket | RawClient['socket'])[] = [];
  const start = async (limits: EndpointLimits = {}): Promise<TestEndpoint> => (e = await startEndpoint(limits));
  afterEach(async () => {
    for (const client of open.splice(0))
      if ('terminate' in client) client.terminate();
      else client.destroy();
    await e?.close();
    e = undefined;
  });

  it('closes with 1009 a frame of more than 1 MiB before the announcement, and keeps serving', async () => {
    const t = await start();
    const big = await openClient(t.url);
    open.push(big.ws);
    const refused = closedWith(big.ws);
    big.ws.send('x'.repeat(MiB + 1));
    expect(await refused).toEqual({ code: 1009, reason: 'more than 1 MiB before the announcement' });

    // A frame of exactly 1 MiB is read: it is refused for what it says, not for its size.
    const edge = await openClient(t.url);
    open.push(edge.ws);
    const read = closedWith(edge.ws);
    edge.ws.send('x'.repeat(MiB));
    expect(await read).toEqual({ code: 4400, reason: 'the announcement must be a JSON text frame' });

    const { ws, answer } = await announced(t, 'after-the-big-frame');
    open.push(ws);
    expect(answer).toMatchObject({ type: 'announce', role: 'big-peer' });
    expect(t.logs.some((l) => l.message.startsWith('WebSocket session refused; code = 1009; reason = more than 1 MiB before the announcement'))).toBe(true);
  });

  it('reads frames of more than 1 MiB once the peer announced itself', async () => {
    const t = await start();
    const { ws } = await announced(t, 'announced');
    open.push(ws);
    const end = closedWith(ws);
    // Not a message of the protocol: the session reads it whole, then refuses it (4400), not 1009.
    ws.send(`{"type": "${'x'.repeat(2 * MiB)}"}`);
    expect((await end).code).toBe(4400);
  });

  it('refuses with 1013 the bytes beyond the budget of unannounced sessions, and frees it as they close', async () => {
    const t = await start({ maxPendingBytes: 2 * MiB });
    const part = Buffer.alloc(900 * 1024);
    // Two sessions that sent 900 KiB of a 1 MiB frame: both held, within the budget.
    const holders: RawClient[] = [];
    for (const address of ['127.0.0.2', '127.0.0.3']) {
      const client = await rawClient(t.url, address);
      open.push(client.socket);
      holders.push(client);
      client.socket.write(Buffer.concat([frameHeader(MiB), part]));
    }
    await waitUntil('the budget to hold 1800 KiB', () => t.endpoint.pendingBytes >= 2 * part.length, 5000);
    // A third goes beyond 2 MiB: its connection is refused; the others stay.
    const third = await rawClient(t.url, '127.0.0.4');
    open.push(third.socket);
    third.socket.write(Buffer.concat([frameHeader(MiB), part]));
    expect(await bounded(third.closed, 'the third session to be refused')).toEqual({
      code: 1013,
      reason: 'the budget of unannounced sessions (2 MiB) is spent; try again later',
    });
    expect(holders.map((h) => h.socket.destroyed)).toEqual([false, false]);
    expect(t.endpoint.sessions).toBe(2);
    // Closing them gives their bytes back: a new session announces itself.
    for (const h of holders) h.socket.destroy();
    await waitUntil('the budget to be free', () => t.endpoint.pendingBytes === 0, 5000);
    const { ws, answer } = await announced(t, 'after-the-budget');
    open.push(ws);
    expect(answer).toMatchObject({ type: 'announce' });
  });

  it('holds about 1 MiB per unannounced session, however big the frame it sends', async () => {
    const t = await start();
    const sessions = 8;
    const frame = 8 * MiB;
    const payload = Buffer.alloc(frame);
    const clients: RawClient[] = [];
    for (let i = 0; i < sessions; i++) {
      const client = await rawClient(t.url, `127.0.0.${10 + (i % 2)}`);
      open.push(client.socket);
      clients.push(client);
    }
    for (const c of clients) {
      c.socket.write(frameHeader(frame));
      c.socket.write(payload);
    }
    const ends = await bounded(Promise.all(clients.map((c) => c.closed)), 'every big frame to be refused', 10_000);
    // The server read at most of each: its upgrade request, 1 MiB and a frame header, the rest of
    // the read that went over, the 16 KiB a refused session may still send, and the read that went over that.
    const perSession = 1024 + MiB + MAX_HEADER + READ + 16 * 1024 + READ;
    const read = t.serverSockets.map((s) => s.bytesRead);
    expect(read).toHaveLength(sessions);
    expect(Math.max(...read)).toBeLessThanOrEqual(perSession);
    expect(t.endpoint.peakPendingBytes).toBeLessThanOrEqual(sessions * perSession);
    // Each is refused (1009), or cut when it kept sending after the refusal.
    for (const end of ends) if (end !== 'cut') expect(end).toEqual({ code: 1009, reason: 'more than 1 MiB before the announcement' });
    await waitUntil('the sessions to end', () => t.endpoint.sessions === 0, 5000);
    expect(t.endpoint.pendingBytes).toBe(0);
  });
});
