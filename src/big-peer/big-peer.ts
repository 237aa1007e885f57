/**
 * The Big Peer: a peer (a `Sync` on an embedded SQLite store) that serves the HTTP API, the
 * login endpoint and the sync WebSocket, and runs the TTL jobs. It is composed here from small
 * parts; tests start many on 127.0.0.1:0, each with its own in-memory `Sync`, log hub and timers.
 *
 * For operators (docs/operations.md): `/_health`, `/_ready` and `/metrics`, and drain(), the
 * stop of a node behind a load balancer: `/_ready` answers 503 at once; after `drainDelayMs`
 * (when a load balancer asks `/_ready`, so that it takes the node out of rotation first) the node
 * stops accepting, closes its sessions with 1001 so that small peers reconnect elsewhere, lets
 * requests in flight finish within `shutdownGraceMs`, and closes.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { BIG_PEER_PATHS } from '../shared/big-peer-api.ts';
import { LOG_EVENTS } from '../shared/log.ts';
import { LogHub, Sync, SyncLogger, systemTimers, type IssuerKeys, type QueryThreads, type Timers } from '../peer/host.ts';
import { credentials } from './credentials.ts';
import { ApiKeys } from './api-keys.ts';
import { ConfigError, type BigPeerConfig } from './config.ts';
import { HttpServer } from './http-server.ts';
import { BigPeerMetrics } from './metrics.ts';
import { executeRoute } from './routes/execute.ts';
import { loginRoute } from './routes/login.ts';
import { operationsRoutes } from './routes/operations.ts';
import { writeRoute } from './routes/write.ts';
import { BigPeerSettings } from './settings.ts';
import { TtlJob } from './ttl-job.ts';
import { PresenceExpiry } from './presence-expiry.ts';
import { WebSocketEndpoint } from './websocket-endpoint.ts';

export interface BigPeerDeps {
  readonly timers?: Timers;
  /** Where log entries go (default: the process-wide SyncLogger's hub). */
  readonly logHub?: LogHub;
  /** A Sync to serve; the Big Peer then leaves it open on close. Default: one on `config.dataDir` (or in memory). */
  readonly sync?: Sync;
  /** Adds the process metrics (CPU, memory, event loop, GC) to /metrics: once per process (the CLI). */
  readonly processMetrics?: boolean;
}

/** The reason of the 1001 that closes the sessions of a draining Big Peer. */
export const DRAIN_CLOSE_REASON = 'Big Peer draining; reconnect to another node';

/** What the operations endpoints read and tell while the Big Peer runs. */
interface OperationsState {
  /** Set by drain() and close(): /_ready answers 503 draining. */
  draining: boolean;
  /** A load balancer (or anyone) asked /_ready: a drain waits `drainDelayMs` for it. */
  readinessAsked: boolean;
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
  readonly #presenceExpiry: PresenceExpiry;
  readonly #ownsSync: boolean;
  readonly #hub: LogHub;
  readonly #closing: AbortController;
  readonly #timers: Timers;
  readonly #metrics: BigPeerMetrics;
  readonly #state: OperationsState;
  readonly #queries: QueryThreads | undefined;
  #closed: Promise<void> | undefined;
  #drained: Promise<void> | undefined;
  /** drain() was called (set before its first await: close() reads it). */
  #drainAsked = false;
  /** Ends the drain delay now, while it runs. */
  #endDelay: (() => void) | undefined;
  #cutShort = false;
  /** Detaches the HTTP server from a Sync this Big Peer leaves open. */
  #detachHttp: () => void = () => {};

  private constructor(parts: {
    config: BigPeerConfig;
    sync: Sync;
    apiKeys: ApiKeys;
    issuer: IssuerKeys;
    http: HttpServer;
    ws: WebSocketEndpoint;
    ttl: TtlJob;
    presenceExpiry: PresenceExpiry;
    ownsSync: boolean;
    hub: LogHub;
    closing: AbortController;
    timers: Timers;
    metrics: BigPeerMetrics;
    state: OperationsState;
    queries: QueryThreads | undefined;
  }) {
    this.config = parts.config;
    this.sync = parts.sync;
    this.apiKeys = parts.apiKeys;
    this.issuer = parts.issuer;
    this.#http = parts.http;
    this.#ws = parts.ws;
    this.#ttl = parts.ttl;
    this.#presenceExpiry = parts.presenceExpiry;
    this.#ownsSync = parts.ownsSync;
    this.#hub = parts.hub;
    this.#closing = parts.closing;
    this.#timers = parts.timers;
    this.#metrics = parts.metrics;
    this.#state = parts.state;
    this.#queries = parts.queries;
  }

  /** Opens the store (unless given one), listens, and resolves once requests are served. */
  static async start(config: BigPeerConfig, deps: BigPeerDeps = {}): Promise<BigPeer> {
    const timers = deps.timers ?? systemTimers;
    const hub = deps.logHub ?? SyncLogger.hub;
    const tls = readTls(config);
    const sync =
      deps.sync ??
      new Sync({
        persistenceDirectory: config.dataDir,
        inMemory: config.dataDir === undefined,
        logHub: hub,
        timers,
        ...(config.deviceName === undefined ? {} : { presence: { deviceName: config.deviceName } }),
      });
    let queries: QueryThreads | undefined;
    try {
      // SELECTs of the HTTP API run there, off the event loop (SQLite on disk only; statement-runner.ts).
      queries = sync.openQueryThreads({ threads: config.queryThreads });
      // Started before the first request, so that no statement's budget pays for a thread's start.
      const warming = queries?.warm();
      const store = sync.store;
      const settings = new BigPeerSettings(store);
      const issuer = await settings.issuerKeys();
      const apiKeys = ApiKeys.load(settings, config.apiKeys);
      const bearers = credentials({ apiKeys });
      // Aborted on close: requests waiting for a transaction answer 503 store/closed at once.
      const closing = new AbortController();
      const logger = hub.logger('big-peer');
      const state: OperationsState = { draining: false, readinessAsked: false };
      // eslint-disable-next-line prefer-const -- assigned below: the metrics' closures may run before, and read undefined, not a TDZ error
      let ws: WebSocketEndpoint | undefined;
      const metrics = new BigPeerMetrics(
        {
          store,
          traffic: () => sync.traffic,
          sessions: () => ws?.sessions ?? 0,
          peers: () => ws?.peers ?? 0,
          draining: () => state.draining,
        },
        { processMetrics: deps.processMetrics },
      );
      await warming;
      const http = await HttpServer.listen({
        host: config.host,
        port: config.port,
        tls,
        timers,
        logger,
        requestTimeoutMs: config.requestTimeoutMs,
        observe: (method, route) => metrics.request(method, route),
        routes: [
          executeRoute({
            store,
            apiKeys: bearers,
            timers,
            logger,
            txnWaitTimeoutMs: config.txnWaitTimeoutMs,
            statementTimeoutMs: config.statementTimeoutMs,
            requestTimeoutMs: config.requestTimeoutMs,
            ...(queries === undefined ? {} : { queries }),
            closing: closing.signal,
          }),
          writeRoute({ store, apiKeys: bearers, logger, timers, statementTimeoutMs: config.statementTimeoutMs, requestTimeoutMs: config.requestTimeoutMs }),
          loginRoute({ config, issuer, timers, logger: hub.logger('auth') }),
          ...operationsRoutes({
            timers,
            logger,
            draining: () => state.draining,
            readStore: () => store.readNow((r) => r.clock()),
            readinessAsked: () => {
              state.readinessAsked = true;
            },
            metrics,
            metricsToken: config.metricsToken,
          }),
        ],
      });
      sync.serveAsBigPeer({ appID: config.appID, issuer, handshakeTimeoutMs: config.announceTimeoutMs, subscriptionBudgetMs: config.subscriptionBudgetMs });
      ws = new WebSocketEndpoint({
        server: http.server,
        sync,
        timers,
        logger: hub.logger('sync-ws'),
        maxPendingSessionsPerAddress: config.maxPendingSessionsPerAddress,
        maxPendingBytes: config.maxPendingBytes,
        observer: { opened: () => metrics.sessionOpened(), ended: (code) => metrics.sessionEnded(code) },
      });
      const ttl = new TtlJob({ store, jobs: config.ttlJobs, timers, logger: hub.logger('ttl') });
      ttl.start();
      const presenceExpiry = new PresenceExpiry({ store, timers, logger: hub.logger('presence'), expiryDays: config.presenceExpiryDays });
      if (config.presenceExpiryDays > 0) presenceExpiry.start();
      // The Big Peer keeps tombstones longer than small peers do, and tells its reap horizon to returning peers.
      sync.tombstones.configure({ ttlDays: config.tombstoneTtlDays, window: config.tombstoneWindow });
      const peer = new BigPeer({
        config,
        sync,
        apiKeys,
        issuer,
        http,
        ws,
        ttl,
        presenceExpiry,
        ownsSync: deps.sync === undefined,
        hub,
        closing,
        timers,
        metrics,
        state,
        queries,
      });
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
      await queries?.close();
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

  /** Is it draining or closing (`/_ready` answers 503)? */
  get isDraining(): boolean {
    return this.#state.draining;
  }

  /** Prometheus metrics of this Big Peer (`GET /metrics` serves `metrics.text()`). */
  get metrics(): BigPeerMetrics {
    return this.#metrics;
  }

  /**
   * Stops this node behind a load balancer, and resolves once it is closed. `/_ready` answers
   * 503 at once, and answers close their connections; the node keeps serving for
   * `drainDelayMs` (skipped when nothing ever asked `/_ready`: no load balancer watches it),
   * then closes as close() does, its sessions ending with 1001 DRAIN_CLOSE_REASON. Called again,
   * it returns the same promise; close() or cutShort() end the delay.
   */
  drain(reason = 'asked'): Promise<void> {
    this.#drained ??= (async () => {
      this.#drainAsked = true;
      this.#state.draining = true;
      this.#http.draining = true;
      const delayMs = this.#state.readinessAsked ? this.config.drainDelayMs : 0;
      this.#hub.logger('big-peer').info(LOG_EVENTS.bigPeerDraining, {
        app_id: this.config.appID,
        reason,
        delay_ms: delayMs,
        ready_asked: this.#state.readinessAsked,
        sessions: this.sessions,
      });
      if (delayMs > 0 && this.#closed === undefined) {
        await new Promise<void>((resolve) => {
          const timer = this.#timers.setTimeout(resolve, delayMs);
          this.#endDelay = () => {
            this.#timers.clearTimeout(timer);
            resolve();
          };
        });
        this.#endDelay = undefined;
      }
      await this.close();
    })();
    return this.#drained;
  }

  /**
   * Ends a drain or a close now (a second SIGTERM): no more drain delay, no more grace for
   * requests in flight or for sessions' closing handshakes. The store still closes cleanly.
   */
  cutShort(): Promise<void> {
    if (!this.#cutShort) {
      this.#cutShort = true;
      this.#hub.logger('big-peer').warn(LOG_EVENTS.bigPeerDrainCutShort, { app_id: this.config.appID, sessions: this.sessions });
    }
    const closed = this.close();
    this.#http.cutNow();
    this.#ws.cutNow();
    return this.#drained ?? closed;
  }

  /**
   * Stops accepting requests and sessions, lets requests in flight finish (cutting them after
   * the configured grace), closes the sessions, then the Sync if this Big Peer opened it. During
   * a drain it ends the drain delay.
   */
  close(): Promise<void> {
    this.#endDelay?.();
    this.#closed ??= (async () => {
      const draining = this.#drainAsked;
      this.#state.draining = true;
      this.#ttl.stop();
      this.#presenceExpiry.stop();
      this.#closing.abort();
      const grace = this.config.shutdownGraceMs;
      const sessions = this.sessions;
      await Promise.all([this.#http.close(grace), draining ? this.#ws.close(grace, DRAIN_CLOSE_REASON) : this.#ws.close(grace)]);
      const log = this.#hub.logger('big-peer');
      if (draining) log.info(LOG_EVENTS.bigPeerDrained, { app_id: this.config.appID, sessions_closed: sessions, cut_short: this.#cutShort });
      log.info(LOG_EVENTS.bigPeerStopped, { app_id: this.config.appID });
      this.#metrics.close();
      await this.#queries?.close();
      if (this.#ownsSync) this.sync.close();
      else this.#detachHttp();
      this.#http.owner = undefined;
    })();
    return this.#closed;
  }
}
