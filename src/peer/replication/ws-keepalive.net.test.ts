/**
 * The WebSocket keepalive over real sockets on 127.0.0.1: a peer that went silent is cut, one
 * that keeps sending is not, even when it answers no ping (a pong stuck behind its data on a
 * slow link).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { WsConnection } from './ws-connection.ts';

const KEEPALIVE_MS = 100;
const servers: { server: Server; wss: WebSocketServer }[] = [];
afterEach(async () => {
  for (const { server, wss } of servers.splice(0)) {
    for (const ws of wss.clients) ws.terminate();
    wss.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server that never answers pings and, if `chatty`, sends a frame every 20 ms. */
async function remote(chatty: boolean): Promise<string> {
  const server = createServer();
  const wss = new WebSocketServer({ server, autoPong: false });
  wss.on('connection', (ws) => {
    ws.on('error', () => {});
    if (!chatty) return;
    const timer = setInterval(() => ws.send('{"type":"noise"}'), 20);
    ws.on('close', () => clearInterval(timer));
  });
  servers.push({ server, wss });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function dial(url: string): Promise<{ closed: Promise<number>; connection: WsConnection }> {
  const ws = new WebSocket(url);
  ws.on('error', () => {});
  const connection = new WsConnection(ws, 'WsClient', url, { keepAliveMs: KEEPALIVE_MS });
  const closed = new Promise<number>((resolve) => connection.listen({ message: () => {}, close: (code) => resolve(code) }));
  await new Promise((resolve) => ws.once('open', resolve));
  return { closed, connection };
}

describe('the WebSocket keepalive', () => {
  it('cuts a connection from which nothing arrived for two intervals (1006)', async () => {
    const { closed } = await dial(await remote(false));
    const started = Date.now();
    expect(await closed).toBe(1006);
    expect(Date.now() - started).toBeLessThan(10 * KEEPALIVE_MS);
  });

  it('keeps a connection whose other side sends frames but answers no ping', async () => {
    const { closed, connection } = await dial(await remote(true));
    let cut = false;
    void closed.then(() => (cut = true));
    await new Promise((resolve) => setTimeout(resolve, 10 * KEEPALIVE_MS));
    expect(cut).toBe(false);
    expect(connection.isOpen).toBe(true);
    connection.close(1000, 'done');
  });
});
