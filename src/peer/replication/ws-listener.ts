/**
 * A small peer's WebSocket listener: other peers given its address dial `ws://host:port/_sync/ws`
 * and the replicator runs the acceptor's handshake (their certificate checked against the issuer
 * this peer trusts) and then the session. Before the handshake accepts a peer, what it may send
 * is limited as on the Big Peer (pre-auth-guard.ts): one frame of 1 MiB, within a budget shared
 * by the listener's unannounced connections.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { BIG_PEER_PATHS } from '../../shared/big-peer-api.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import { MAX_SESSION_FRAME_BYTES } from '../../shared/protocol/messages.ts';
import type { Logger } from '../log/log-hub.ts';
import type { PreAuthBudget } from './pre-auth-guard.ts';
import type { Replicator } from './replicator.ts';
import { WsConnection } from './ws-connection.ts';

/** Bytes received from connections not accepted yet by the handshake, in total, per listener (a LAN sees few peers). */
export const LISTENER_PENDING_BYTES = 16 * 1024 * 1024;

export interface ListenOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
}

export interface ListenerRole {
  /** How the peers that dial it found it, for the mesh (default `WebSocket`). */
  readonly transport?: 'WebSocket' | 'LAN';
}

export class WebSocketListener {
  readonly #server: Server;
  readonly #wss: WebSocketServer;

  private constructor(server: Server, wss: WebSocketServer) {
    this.#server = server;
    this.#wss = wss;
  }

  static async start(options: ListenOptions, replicator: Replicator, logger: Logger, role: ListenerRole = {}): Promise<WebSocketListener> {
    const server = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('this is a SyncMesh peer: connect with a WebSocket to /_sync/ws\n');
    });
    const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_SESSION_FRAME_BYTES, perMessageDeflate: false });
    const budget: PreAuthBudget = { limitBytes: LISTENER_PENDING_BYTES, usedBytes: 0, peakBytes: 0 };
    server.on('upgrade', (req, socket, head) => {
      socket.on('error', () => socket.destroy());
      const path = URL.parse(req.url ?? '/', 'http://peer.invalid')?.pathname;
      if (path !== BIG_PEER_PATHS.websocket) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const address = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
        const connection = new WsConnection(ws, 'WsServer', address, { transport: role.transport ?? 'WebSocket', preAuth: { socket: req.socket, budget } });
        ws.on('error', (error) => logger.warn(LOG_EVENTS.streamFailed, { connection: connection.id, remote_address: address, error: error.message }));
        logger.info(LOG_EVENTS.connectionEstablished, { connection_type: 'WsServer', connection: connection.id, remote_address: address });
        replicator.accept(connection).catch(() => {
          // Refused: logged by the replicator, the connection closed with the reason.
        });
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new WebSocketListener(server, wss);
  }

  /** The port it listens on. */
  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** `ws://host:port/_sync/ws`. */
  get url(): string {
    const address = this.#server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `ws://${host}:${address.port}${BIG_PEER_PATHS.websocket}`;
  }

  stop(): void {
    for (const ws of this.#wss.clients) ws.close(1001, 'peer shutting down');
    this.#wss.close();
    this.#server.close();
    this.#server.closeAllConnections();
  }
}
