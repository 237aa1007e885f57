/**
 * The Big Peer: a peer (a `Sync` on an embedded SQLite store) that serves the HTTP API, the
 * login endpoint and the sync WebSocket, and runs the TTL jobs. It is composed here from small
 * parts; tests start many on 127.0.0.1:0, each with its own in-memory `Sync`, log hub and timers.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { BIG_PEER_PATHS } from '../shared/big-peer-api.ts';
import { LOG_EVENTS } from '../shared/log.ts';
import { LogHub, Sync, SyncLogger, systemTimers, type IssuerKeys, type Timers } from '../peer/index.ts';
import { credentials } from './credentials.ts';
import { ApiKeys } from './api-keys.ts';
import { ConfigError, type BigPeerConfig } from './config.ts';
import { HttpServer } from './http-server.ts';
import { executeRoute } from './routes/execute.ts';
import { loginRoute } from './routes/login.ts';
import { writeRoute } from './routes/write.ts';
import { BigPeerSettings } from './settings.ts';
import { TtlJob } from './ttl-job.ts';
import { WebSocketEndpoint } from './websocket-endpoint.ts';

export interface BigPeerDeps {
  readonly timers?: Timers;
  /** Where log entries go (default: the process-wide SyncLogger's hub). */
  readonly logHub?: LogHub;
  /** A Sync to serve; the Big Peer then leaves it open on close. Default: one on `config.dataDir` (or in memory). */
  readonly sync?: Sync;
}

function readTls(config: BigPeerConfig): { key: Buffer; cert: Buffer } | undefined {
  if (config.tls === undefined) return undefined;
  const read = (what: string, path: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new ConfigError(`cannot read the TLS ${what} ${path}: ${(error as Error).message}`);
    }
  };
  const tls = { key: read('key', config.tls.keyFile), cert: read('certificate', config.tls.certFile) };
  try {
    // Bad PEM, or a key that does not match the certificate: a configuration error, named.
    createSecureContext(tls);
  } catch (error) {
    throw new ConfigError(`the TLS key ${config.tls.keyFile} and certificate ${config.tls.certFile} cannot be used together: ${(error as Error).message}`);
  }
  return tls;
}

export class BigPeer {
  readonly config: BigPeerConfig;
  readonly sync: Sync;
  readonly apiKeys: ApiKeys;
  readonly issuer: IssuerKeys;
  readonly #http: HttpServer;
  readonly #ws: WebSocketEndpoint;
  readonly #ttl: TtlJob;
  readonly #ownsSync: boolean;
  readonly #hub: LogHub;
  readonly #closing: AbortController;
  #closed: Promise<void> | undefined;

  private constructor(parts: {
    config: BigPeerConfig;
    sync: Sync;
    apiKeys: ApiKeys;
    issuer: IssuerKeys;
    http: HttpServer;
    ws: WebSocketEndpoint;
    ttl: TtlJob;
    ownsSync: boolean;
    hub: LogHub;
    closing: AbortController;
  }) {
    this.config = parts.config;
    this.sync = parts.sync;
    this.apiKeys = parts.apiKeys;
    this.issuer = parts.issuer;
    this.#http = parts.http;
    this.#ws = parts.ws;
    this.#ttl = parts.ttl;
    this.#ownsSync = parts.ownsSync;
    this.#hub = parts.hub;
    this.#closing = parts.closing;
  }

  /** Opens the store (unless given one), listens, and resolves once requests are served. */
  static async start(config: BigPeerConfig, deps: BigPeerDeps = {}): Promise<BigPeer> {
    const timers = deps.timers ?? systemTimers;
    const hub = deps.logHub ?? SyncLogger.hub;
    const tls = readTls(config);
    const sync = deps.sync ?? new Sync({ persistenceDirectory: config.dataDir, inMemory: config.dataDir === undefined, logHub: hub, timers });
    try {
      const store = sync.store;
      const settings = new BigPeerSettings(store);
      const issuer = await settings.issuerKeys();
      const apiKeys = ApiKeys.load(settings, config.apiKeys);
      const bearers = credentials({ apiKeys });
      // Aborted on close: requests waiting for a transaction answer 503 store/closed at once.
      const closing = new AbortController();
      const logger = hub.logger('big-peer');
      const http = await HttpServer.listen({
        host: config.host,
        port: config.port,
        tls,
        timers,
        logger,
        requestTimeoutMs: config.requestTimeoutMs,
        routes: [
          executeRoute({ store, apiKeys: bearers, timers, logger, txnWaitTimeoutMs: config.txnWaitTimeoutMs, closing: closing.signal }),
          writeRoute({ store, apiKeys: bearers, logger }),
          loginRoute({ config, issuer, timers, logger: hub.logger('auth') }),
        ],
      });
      sync.serveAsBigPeer({ appID: config.appID, issuer });
      const ws = new WebSocketEndpoint({ server: http.server, sync, timers, logger: hub.logger('sync-ws') });
      const ttl = new TtlJob({ store, jobs: config.ttlJobs, timers, logger: hub.logger('ttl') });
      ttl.start();
      const peer = new BigPeer({ config, sync, apiKeys, issuer, http, ws, ttl, ownsSync: deps.sync === undefined, hub, closing });
      // The listening server holds the Big Peer (and so its Sync): a caller that drops its
      // reference does not let the garbage collector close a Big Peer that still serves.
      http.owner = peer;
      // The Sync's shutdown sequence names and stops the HTTP server ("Stopping the HTTP server").
      peer.#detachHttp = sync.attachServer('HTTP', {
        stop: () => {
          if (!http.server.listening) return;
          http.server.close();
          http.server.closeAllConnections();
        },
      });
      logger.info(LOG_EVENTS.bigPeerStarted, { app_id: config.appID, url: peer.url, ws_url: peer.wsUrl, issuer: issuer.publicKey });
      return peer;
    } catch (error) {
      if (deps.sync === undefined) sync.close();
      if ((error as { code?: string }).code === 'EADDRINUSE') throw new ConfigError(`cannot listen on ${config.host}:${config.port}: the port is in use`);
      throw error;
    }
  }

  /** `http://host:port` (or `https://`). */
  get url(): string {
    return this.#http.url;
  }

  /** `ws://host:port/_sync/ws` (or `wss://`). */
  get wsUrl(): string {
    return `${this.url.replace(/^http/, 'ws')}${BIG_PEER_PATHS.websocket}`;
  }

  get port(): number {
    return this.#http.port;
  }

  /** Open WebSocket sessions. */
  get sessions(): number {
    return this.#ws.sessions;
  }

  /**
   * Stops accepting requests and sessions, lets requests in flight finish (cutting them after
   * the configured grace), closes the sessions, then the Sync if this Big Peer opened it.
   */
  #detachHttp: () => void = () => {};

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#ttl.stop();
      this.#closing.abort();
      const grace = this.config.shutdownGraceMs;
      await Promise.all([this.#http.close(grace), this.#ws.close(grace)]);
      this.#hub.logger('big-peer').info(LOG_EVENTS.bigPeerStopped, { app_id: this.config.appID });
      if (this.#ownsSync) this.sync.close();
      else this.#detachHttp();
      this.#http.owner = undefined;
    })();
    return this.#closed;
  }
}
