/**
 * A small peer's WebSocket listener, over real sockets on 127.0.0.1, limits what a remote may
 * send before the handshake accepts it as the Big Peer does: more than 1 MiB is refused (1009)
 * and the listener goes on accepting.
 */
import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LogHub } from '../log/log-hub.ts';
import { createMesh, type Mesh } from '../../testing/test-mesh.ts';
import { WebSocketListener } from './ws-listener.ts';

const WAIT_MS = 5000;
const MiB = 1024 * 1024;

let mesh: Mesh | undefined;
let listener: WebSocketListener | undefined;
const clients: WebSocket[] = [];
afterEach(() => {
  for (const ws of clients.splice(0)) ws.terminate();
  listener?.stop();
  mesh?.dispose();
});

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${WAIT_MS} ms`)), WAIT_MS);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/** A client that read the listener's challenge. */
async function challenged(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  clients.push(ws);
  ws.on('error', () => undefined);
  await bounded(
    new Promise((resolve, reject) => {
      ws.once('message', resolve);
      ws.once('close', (code) => reject(new Error(`closed ${code}`)));
    }),
    'the challenge',
  );
  return ws;
}

const closed = (ws: WebSocket): Promise<{ code: number; reason: string }> =>
  bounded(new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))), 'the close');

it('closes with 1009 a remote that sends more than 1 MiB before its announcement, and keeps listening', async () => {
  mesh = createMesh();
  const peer = mesh.peer('small');
  listener = await WebSocketListener.start({}, peer.replicator, new LogHub({ minimumLogLevel: 'ERROR' }).logger('replication'));
  const big = await challenged(listener.url);
  const end = closed(big);
  big.send('x'.repeat(MiB + 1));
  expect(await end).toEqual({ code: 1009, reason: 'more than 1 MiB before the announcement' });
  const next = await challenged(listener.url);
  const nextEnd = closed(next);
  next.send('not an announcement');
  expect(await nextEnd).toEqual({ code: 4400, reason: 'the announcement must be a JSON text frame' });
});
