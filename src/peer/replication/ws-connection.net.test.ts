/**
 * The connection acceptance suite over real WebSockets on 127.0.0.1: a `ws` client wrapped as
 * `WsClient` dials a `ws` server whose accepted socket is wrapped as `WsServer`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { runConnectionAcceptanceTests } from '../../testing/connection-acceptance.ts';
import { WsConnection } from './ws-connection.ts';

const WAIT_MS = 5000;

/** `promise`, or a rejection naming `what` after WAIT_MS. */
function bounded<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

runConnectionAcceptanceTests('WebSocket', async () => {
  const server = createServer((_req, res) => {
    res.writeHead(426);
    res.end();
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const sockets: WebSocket[] = [];
  const accepted = new Promise<WsConnection>((resolve) => {
    server.on('upgrade', (req, socket, head) => {
      socket.on('error', () => socket.destroy());
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.push(ws);
        ws.on('error', () => {});
        // Wrapped at once, before anything can arrive on it.
        resolve(new WsConnection(ws, 'WsServer', `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`));
      });
    });
  });
  const cleanup = async (): Promise<void> => {
    for (const ws of sockets) ws.terminate();
    wss.close();
    server.closeAllConnections();
    await bounded('the server to close', new Promise<void>((resolve) => server.close(() => resolve())));
  };
  try {
    await bounded(
      'the server to listen',
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      }),
    );
    const { port } = server.address() as AddressInfo;
    const url = `ws://127.0.0.1:${port}/_sync/ws`;
    const client = new WebSocket(url, { perMessageDeflate: false });
    sockets.push(client);
    // Wrapped as soon as it exists, so no frame from the server is missed.
    const dialer = new WsConnection(client, 'WsClient', url);
    const clientOpen = new Promise<void>((resolve, reject) => {
      client.once('open', () => resolve());
      client.once('error', reject);
    });
    client.on('error', () => {});
    const [acceptor] = await bounded('both ends to open', Promise.all([accepted, clientOpen]));
    return { dialer, acceptor, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
});
