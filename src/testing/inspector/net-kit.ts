/**
 * TEST FIXTURE, not the Big Peer: small peers (`Sync` with an `onlineWithAuthentication`
 * identity whose certificates an in-process fixture login signs, with the permissions the test
 * gives each user) and a stand-in Big Peer (a `Sync` serving as the Big Peer of the same issuer
 * behind a bare WebSocket server), all on 127.0.0.1 with real timers. `until` waits for a
 * condition, bounded in time.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { BIG_PEER_PATHS } from '../../shared/big-peer-api.ts';
import { EVERYTHING, type Permissions } from '../../shared/permissions.ts';
import type { LogEntry } from '../../shared/log.ts';
import { generateIssuerKeys, type IssuerKeys } from '../../peer/auth/certificate.ts';
import { onlineWithAuthentication } from '../../peer/auth/identity.ts';
import { FixtureLogin } from '../auth/login-server.ts';
import type { LanDiscoveryFactory } from '../../peer/lan/discovery.ts';
import { LogHub } from '../../peer/log/log-hub.ts';
import { WsConnection } from '../../peer/replication/ws-connection.ts';
import { Sync, type SyncTransportOptions } from '../../peer/sync/sync.ts';
import type { PresenceOptions } from '../../peer/presence/presence-job.ts';

export const NET_APP = 'inspector-app';

export interface NetPeer {
  readonly sync: Sync;
  readonly hub: LogHub;
  readonly logs: LogEntry[];
}

export interface BigPeerStandIn extends NetPeer {
  /** `http://127.0.0.1:<port>`: the base URL small peers are given. */
  readonly url: string;
  /** Stops accepting and closes every connection (the Sync stays open). */
  stop(): Promise<void>;
}

export interface NetKit {
  readonly issuer: IssuerKeys;
  /** A stand-in Big Peer on a free port (or `port`). */
  /** `presence`: the Big Peer's device name (it writes its presence document and announces the name). */
  bigPeer(port?: number, options?: { presence?: PresenceOptions }): Promise<BigPeerStandIn>;
  /**
   * A small peer whose certificate grants `permissions`, dialing `bigPeerURL` (unless `sync.bigPeer`
   * is false); `lanDiscovery` for LAN (`sync.peerToPeer.lan`), such as `MemoryLanNetwork`'s.
   */
  smallPeer(
    name: string,
    options: { bigPeerURL: string; permissions?: Permissions; sync?: SyncTransportOptions; lanDiscovery?: LanDiscoveryFactory; presence?: PresenceOptions },
  ): NetPeer;
  dispose(): Promise<void>;
}

export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function hubWithLogs(): { hub: LogHub; logs: LogEntry[] } {
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((e) => logs.push(e));
  return { hub, logs };
}

export function netKit(): NetKit {
  const issuer = generateIssuerKeys();
  const grants = new Map<string, Permissions>();
  const login = new FixtureLogin({
    appID: NET_APP,
    issuer,
    now: () => Date.now(),
    providers: { test: (token) => ({ kind: 'accept', userID: token, permissions: grants.get(token) ?? EVERYTHING }) },
  });
  const syncs: Sync[] = [];
  const stops: (() => Promise<void>)[] = [];
  return {
    issuer,
    async bigPeer(port = 0, options = {}) {
      const { hub, logs } = hubWithLogs();
      const sync = new Sync({ inMemory: true, logHub: hub, ...(options.presence === undefined ? {} : { presence: options.presence }) });
      syncs.push(sync);
      sync.serveAsBigPeer({ appID: NET_APP, issuer });
      const server: Server = createServer((_req, res) => res.writeHead(404).end());
      const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
      server.on('upgrade', (req, socket, head) => {
        if (req.url !== BIG_PEER_PATHS.websocket) return socket.destroy();
        wss.handleUpgrade(req, socket, head, (ws) => {
          const connection = new WsConnection(ws, 'WsServer', `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`);
          sync.acceptSession(connection).catch(() => {});
        });
      });
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      const address = server.address() as AddressInfo;
      let stopped = false;
      const stop = async (): Promise<void> => {
        if (stopped) return;
        stopped = true;
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      };
      stops.push(stop);
      return { sync, hub, logs, url: `http://127.0.0.1:${address.port}`, stop };
    },
    smallPeer(name, options) {
      const { hub, logs } = hubWithLogs();
      grants.set(name, options.permissions ?? EVERYTHING);
      const sync = new Sync({
        inMemory: true,
        logHub: hub,
        fetch: login.fetch,
        identity: onlineWithAuthentication({
          appID: NET_APP,
          bigPeerURL: options.bigPeerURL,
          provider: 'test',
          authHandler: { authenticationRequired: (auth) => void auth.login(name, 'test'), authenticationExpiringSoon: (auth) => void auth.login(name, 'test') },
        }),
        sync: { reconnect: { minDelayMs: 20, maxDelayMs: 200 }, ...options.sync },
        ...(options.lanDiscovery === undefined ? {} : { lanDiscovery: options.lanDiscovery }),
        ...(options.presence === undefined ? {} : { presence: options.presence }),
      });
      syncs.push(sync);
      return { sync, hub, logs };
    },
    async dispose() {
      for (const s of syncs.splice(0)) s.close();
      for (const stop of stops.splice(0)) await stop();
    },
  };
}
