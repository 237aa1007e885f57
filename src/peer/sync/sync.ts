/**
 * `Sync`: the composition root of a small peer. It opens the storage in the persistence
 * directory (or in memory), loads or creates the peer's identity, and exposes the store as
 * `sync.store`. Later layers (replication, transports, discovery, auth) attach here.
 *
 * Keep a `Sync` in a long-lived variable and `close()` it when done: closing logs the spec's
 * shutdown sequence; a `Sync` garbage collected while open logs an ERROR saying so, then the
 * same sequence, and releases its directory.
 */
import { BIG_PEER_PATHS } from '../../shared/big-peer-api.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import type { PermissionRules, Permissions } from '../../shared/permissions.ts';
import type { IssuerKeys } from '../auth/certificate.ts';
import { MeshTracker, type LanPeer, type SeenPeer, type TrackedConnection } from '../replication/mesh-tracker.ts';
import { PeerCredentials } from '../replication/peer-credentials.ts';
import { BIG_PEER_HOLDS_SETTING, Replicator, evictedCollections, readBigPeerHolds, type SessionInfo } from '../replication/replicator.ts';
import { ReplicationProgress, progressSetting } from '../replication/progress.ts';
import { UploadWatch, type UploadState } from '../replication/upload-watch.ts';
import type { ReplicationTraffic } from '../replication/session.ts';
import type { FanOutCounts } from '../replication/shared-updates.ts';
import { EvictionManager } from '../eviction/eviction-manager.ts';
import type { EvictionOptions } from '../eviction/types.ts';
import { TombstoneReaper, type TombstoneOptions } from '../eviction/tombstone-reaper.ts';
import { WebSocketDialer } from '../replication/ws-dialer.ts';
import { WebSocketListener } from '../replication/ws-listener.ts';
import type { LanDiscoveryFactory } from '../lan/discovery.ts';
import { BonjourDiscovery } from '../lan/bonjour-discovery.ts';
import { LanStartError, LanTransport } from '../lan/lan-transport.ts';
import { loopbackWarning } from '../lan/loopback.ts';
import { lanOptions, requestedPeerToPeer, unavailableReason, type SyncTransportOptions, type TransportCondition } from '../replication/transport-config.ts';
import type { Connection } from '../replication/connection.ts';
import { AuthClient } from '../auth/auth-client.ts';
import { validateIdentity, type OnlineIdentity } from '../auth/identity.ts';
import type { FetchLike } from '../auth/login-request.ts';
import { SyncError } from '../errors.ts';
import { loadOrCreateIdentity } from '../store/peer-identity.ts';
import type { LogHub, Logger } from '../log/log-hub.ts';
import { SyncLogger } from '../log/sync-logger.ts';
import { MemoryStorage } from '../storage/memory-storage.ts';
import { SqliteStorage } from '../storage/sqlite-storage.ts';
import type { SharedWriters, StorageEngine, StoredDocument } from '../storage/types.ts';
import type { RemotePeer } from '../replication/handshake.ts';
import type { Delivery } from '../replication/delivery.ts';
import { Store, withCollectionProperties, type StoreWithCollections } from '../store/store.ts';
import { QueryThreads } from '../query/query-threads.ts';
import { systemTimers, type Timers } from '../time.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { checkPresenceOptions, PresenceJob, type PresenceOptions } from '../presence/presence-job.ts';
import { PRESENCE_COLLECTION, type PresenceRecord } from '../presence/presence-document.ts';
import { directLinks, readAllPresence } from '../presence/presence-source.ts';

export interface SyncOptions {
  /** The directory of this peer's store; created if needed, held exclusively while open. */
  readonly persistenceDirectory?: string;
  /** Keep everything in memory instead (tests, throwaway peers). */
  readonly inMemory?: boolean;
  /**
   * A storage engine opened by the caller, used instead of `persistenceDirectory` or `inMemory`
   * (the Big Peer's PostgreSQL store). The Sync closes it when it closes.
   */
  readonly storage?: StorageEngine & SharedWriters;
  /** How logs name the store of `storage` (default its kind). */
  readonly storageName?: string;
  /** Where log entries go; defaults to the process-wide `SyncLogger`. */
  readonly logHub?: LogHub;
  /** Time and timers; injected so that tests control time. Defaults to the system clock. */
  readonly timers?: Timers;
  /**
   * How this peer authenticates to the Big Peer (spec 2.7): `onlinePlayground(…)` or
   * `onlineWithAuthentication(…)`. Without one the peer is offline and never logs in. A handler
   * lacking a callback is refused here (`auth/handler-invalid`).
   */
  readonly identity?: OnlineIdentity;
  /** The HTTP client of the auth client (default `globalThis.fetch`); injected in tests. */
  readonly fetch?: FetchLike;
  /** How long a login request may take before it counts as unreachable (default 30 s). */
  readonly authRequestTimeoutMs?: number;
  /**
   * Whether a playground login at start that fails in a way that may pass (no connection, a
   * 5xx) is tried again with backoff (default true). A program that gives up when the first
   * login fails (`syncmesh peer` exits) sets it false, so that no retry is announced that never
   * happens. Logins that refresh a certificate are retried either way.
   */
  readonly authRetryFirstLogin?: boolean;
  /**
   * Replication (`startSync()`): whether to dial the Big Peer of the identity (default true when
   * there is one), other peers' WebSocket addresses to dial (`ws://host:port/_sync/ws`), a
   * listener other peers may dial, the reconnection backoff, and the peer-to-peer transports
   * (`peerToPeer.lan`); a `TransportConfig` (with `enableAllPeerToPeer()`) is one.
   */
  readonly sync?: SyncTransportOptions;
  /** Makes the LAN discovery (default: mDNS with bonjour-service); tests inject the in-memory twin. */
  readonly lanDiscovery?: LanDiscoveryFactory;
  /**
   * TTL eviction strategies, one per collection (docs/eviction.md): Big Peer management or
   * local management, scheduled at most once per day in a low-activity window. Also settable
   * later with `sync.eviction.configure(…)`.
   */
  readonly eviction?: EvictionOptions;
  /**
   * The tombstone reaper (docs/eviction.md, "Tombstones"): a deleted document's tombstone is
   * removed once it is `ttlDays` old (default 7; the Big Peer's default is 30), at most once per
   * day in the window (default the eviction window). A peer with an identity reaps only
   * tombstones the Big Peer has acknowledged. Also settable later with `sync.tombstones.configure(…)`.
   */
  readonly tombstones?: TombstoneOptions;
  /**
   * Presence (docs/replication.md, "Presence documents"): while sync runs, this peer keeps its
   * own document in `__presence` (its device name, the app's metadata, its role and its direct
   * links), written as `Internal` transactions at start, when its links change and on a
   * heartbeat. Without it the peer writes no presence (it still reads what others write).
   * The apps (`syncmesh peer`, `syncmesh inspect`, the desktop app) pass the host name by default.
   */
  readonly presence?: PresenceOptions;
}

export type { SyncTransportOptions } from '../replication/transport-config.ts';

/** The Big Peer's WebSocket address for its base URL: `https://h` → `wss://h/_sync/ws`. */
export function webSocketUrl(baseUrl: string): string {
  const url = new URL(BIG_PEER_PATHS.websocket, baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** What must be shut down, held apart from the Sync object so that it can outlive it. */
/** A listener the peer runs, stopped in its place in the shutdown sequence. */
export interface PeerServer {
  /** Stops accepting and closes what is open; called again after a stop, it does nothing. */
  stop(): void;
}

export type PeerServerKind = 'HTTP' | 'TCP';

interface Resources {
  readonly log: Logger;
  readonly store: Store;
  readonly eviction: EvictionManager;
  readonly tombstones: TombstoneReaper;
  readonly auth: AuthClient;
  readonly upload: UploadWatch;
  readonly path: string;
  readonly servers: Readonly<Record<PeerServerKind, Set<PeerServer>>>;
  /** Stops replication (dialers, listener, sessions); set while sync runs. */
  stopSync: (() => void) | undefined;
}

function stopServers(log: Logger, event: string, servers: Set<PeerServer>): void {
  log.info(event, { running: servers.size > 0 });
  for (const server of servers) {
    try {
      server.stop();
    } catch {
      // A server that fails to stop must not keep the rest of the peer open.
    }
  }
  servers.clear();
}

/**
 * The spec's shutdown sequence around the actual shutdown: the store (and with it its observers
 * and the directory lock) is closed before the peer says its shutdown is done, so that nothing
 * is logged after `Deallocating` and `shutdown complete` is true when logged.
 */
function shutDown(resources: Resources): void {
  const { log, store, auth, servers } = resources;
  resources.upload.close();
  resources.stopSync?.();
  resources.eviction.close();
  resources.tombstones.close();
  auth.close();
  log.info(LOG_EVENTS.shuttingDown);
  log.info(LOG_EVENTS.peerShuttingDown);
  // The listeners attached by the apps that host this peer (the Big Peer's HTTP server; later
  // the LAN listener); "(none running)" when there is none.
  stopServers(log, LOG_EVENTS.httpServerStopping, servers.HTTP);
  stopServers(log, LOG_EVENTS.tcpServerStopping, servers.TCP);
  store.close();
  log.info(LOG_EVENTS.peerShutdownDone);
  log.info(LOG_EVENTS.shutdownComplete);
  log.info(LOG_EVENTS.deallocating);
}

const forgotten = new FinalizationRegistry<Resources>((resources) => {
  resources.log.error(LOG_EVENTS.garbageCollectedWhileOpen, { path: resources.path });
  shutDown(resources);
});

export class Sync {
  /** The store: `sync.store.execute(…)`, `sync.store.collection(name)`, `sync.store[name]`. */
  readonly store: StoreWithCollections;
  /**
   * Authentication with the Big Peer: `await sync.auth.start()` (which `startSync()` will call),
   * `login` (for the handler), `logout()`, `status`, `certificate`, `issuerKey`. Present on
   * every Sync; an offline one (no `identity`) never logs in.
   */
  readonly auth: AuthClient;
  /** This peer's public key, base64url. */
  readonly peerKey: string;
  readonly persistenceDirectory: string | undefined;
  /** The directory of the SQLite store this Sync opened (undefined: in memory, or a storage it was given). */
  readonly #sqliteDirectory: string | undefined;
  readonly #resources: Resources;
  #closed = false;

  constructor(options: SyncOptions) {
    if (options.persistenceDirectory === undefined && options.inMemory !== true && options.storage === undefined) {
      throw new SyncError('store/io', 'a Sync needs a persistenceDirectory, inMemory: true, or a storage');
    }
    // Before anything is opened: a refused identity leaves no directory locked.
    if (options.identity !== undefined) validateIdentity(options.identity);
    if (options.presence !== undefined) checkPresenceOptions(options.presence);
    const hub = options.logHub ?? SyncLogger.hub;
    const log = hub.logger('sync');
    const timers = options.timers ?? systemTimers;
    const storage: StorageEngine & SharedWriters =
      options.storage ??
      (options.persistenceDirectory === undefined ? new MemoryStorage() : SqliteStorage.open(options.persistenceDirectory, hub.logger('store')));
    let store: Store;
    let privateKeyPem: string;
    try {
      const identity = loadOrCreateIdentity(storage);
      this.peerKey = identity.peerKey;
      privateKeyPem = identity.privateKeyPem;
      store = new Store({ storage, peerKey: identity.peerKey, timers, logger: hub.logger('store') });
    } catch (error) {
      storage.close();
      throw error;
    }
    this.store = withCollectionProperties(store);
    this.persistenceDirectory = options.persistenceDirectory;
    this.#sqliteDirectory = options.storage === undefined ? options.persistenceDirectory : undefined;
    const path = options.storage !== undefined ? (options.storageName ?? options.storage.kind) : (options.persistenceDirectory ?? ':memory:');
    hub.logger('store').debug(LOG_EVENTS.storeOpened, { path, peer_key: this.peerKey, last_txn_id: store.lastTxnId });
    // The auth client reaches the store's settings only, and never the Sync: a Sync that is
    // forgotten can still be collected while its refresh timer waits.
    this.auth = new AuthClient({
      identity: options.identity,
      peerKey: this.peerKey,
      privateKeyPem,
      // setNow: close() lands a logout's pending clear before the store closes.
      settings: {
        get: (key) => store.internalSettings.get(key),
        set: (entries) => store.internalSettings.set(entries),
        setNow: (entries) => storage.write((w) => Object.entries(entries).forEach(([key, value]) => w.setSetting(key, value))),
      },
      timers,
      logger: hub.logger('auth'),
      fetch: options.fetch,
      requestTimeoutMs: options.authRequestTimeoutMs,
      retryFirstLogin: options.authRetryFirstLogin,
    });
    // The eviction manager's timers outlive calls: they reach the replicator through this link, never the Sync.
    const link = this.#link;
    // This peer's read rules, once its credentials exist (nothing here may refer to the Sync itself).
    const localRead: { rules: () => PermissionRules | undefined } = { rules: () => undefined };
    const memo = this.#bigPeerMemo;
    const tracker = (this.#tracker = new MeshTracker(timers));
    // A presence document written or received changes what the mesh shows (names, indirect peers).
    store.onCommit((txn) => {
      if (txn.collections.includes(PRESENCE_COLLECTION)) tracker.presenceChanged();
    });
    const savedProgress = new ReplicationProgress(store.internalSettings);
    // Up to which txn_id of this store the Big Peer holds every change: from the running
    // replicator, else as its last session with the Big Peer ended.
    const bigPeerHolds = (): number | undefined =>
      link.replicator?.bigPeerHolds() ?? memo.bigPeerHolds ?? readBigPeerHolds(store.internalSettings.get(BIG_PEER_HOLDS_SETTING));
    const upload = (this.#upload = new UploadWatch({
      timers,
      lastTxnId: () => store.lastTxnId,
      bigPeerHolds,
      bigPeerSession: () => link.replicator?.hasBigPeerSession ?? false,
    }));
    // Only a peer with an identity ever uploads to a Big Peer (a Big Peer has none).
    if (options.identity !== undefined) store.onCommit((txn) => upload.committed(txn.txnId, txn.startedAt + txn.durationMs));
    let eviction: EvictionManager | undefined;
    try {
      this.eviction = eviction = new EvictionManager(
        {
          store,
          timers,
          logger: hub.logger('eviction'),
          bigPeerHolds,
          progress: {
            remotes: () => [...new Set([...tracker.peers().map((p) => p.peerKey), ...(link.replicator?.sessions().map((s) => s.remote.peerKey) ?? [])])],
            load: (remote) => savedProgress.load(remote, localRead.rules()),
            setting: (remote, held, savedAt) => progressSetting(remote, held, savedAt, localRead.rules()),
          },
        },
        options.eviction,
      );
      this.tombstones = new TombstoneReaper(
        {
          store,
          timers,
          logger: hub.logger('tombstones'),
          // A deletion made here reaches the Big Peer before its tombstone may go.
          reapUpTo: () => (options.identity === undefined ? undefined : (bigPeerHolds() ?? 0)),
        },
        { ...(options.eviction?.window === undefined ? {} : { window: options.eviction.window }), ...options.tombstones },
      );
    } catch (error) {
      eviction?.close();
      store.close();
      throw error;
    }
    // An EVICT while sync is stopped: what this peer held of the collection is gone, so the next
    // session must be sent it again (a running replicator records it itself).
    store.onCommit((txn) => {
      const evicted = evictedCollections(txn);
      if (evicted.length === 0 || link.replicator?.isClosed === false || store.isClosed) return;
      void savedProgress.evicted(evicted, txn.txnId).catch(() => {
        // Closing: the store is gone with what it held.
      });
    });
    this.#resources = {
      log,
      store,
      eviction: this.eviction,
      tombstones: this.tombstones,
      path,
      auth: this.auth,
      upload,
      servers: { HTTP: new Set(), TCP: new Set() },
      stopSync: undefined,
    };
    this.#options = options;
    this.#hub = hub;
    this.#presenceJob =
      options.presence === undefined
        ? undefined
        : new PresenceJob(
            {
              writes: store.internalWrites,
              isClosed: () => store.isClosed,
              timers,
              logger: hub.logger('presence'),
              peerKey: this.peerKey,
              links: () => directLinks(tracker),
              onLinksChange: (listener) => tracker.onChange(listener),
            },
            options.presence,
          );
    this.#timers = timers;
    const credentials = new PeerCredentials({
      auth: this.auth,
      peerKey: this.peerKey,
      privateKeyPem,
      appID: options.identity?.appID,
      deviceName: this.#presenceJob?.deviceName,
    });
    this.#credentials = credentials;
    localRead.rules = () => credentials.permissions()?.read;
    // A subscription to a collection this peer may not read is refused (spec 5.7).
    store.setSubscriptionGuard((collection) => credentials.checkReadable(collection));
    forgotten.register(this, this.#resources, this);
  }

  /**
   * TTL eviction (docs/eviction.md): `configure(…)`, `runNow(collection, { force })`,
   * `dryRun(collection)`, `snapshot()`, `onRun(listener)`.
   */
  readonly eviction: EvictionManager;
  /** The tombstone reaper (docs/eviction.md, "Tombstones"): `configure(…)`, `runNow({ force })`, `snapshot()`. */
  readonly tombstones: TombstoneReaper;
  readonly #link: { replicator: Replicator | undefined } = { replicator: undefined };
  readonly #traffic: ReplicationTraffic = { bytesSent: 0, bytesReceived: 0, docsSent: 0, docsReceived: 0, receivedByCollection: new Map() };
  readonly #bigPeerMemo: { bigPeerHolds: number | undefined } = { bigPeerHolds: undefined };
  readonly #upload: UploadWatch;

  /** Bytes of replication frames, and documents in updates, sent and received over every session since this Sync was made. */
  get traffic(): Readonly<ReplicationTraffic> {
    const { bytesSent, bytesReceived, docsSent, docsReceived } = this.#traffic;
    return { bytesSent, bytesReceived, docsSent, docsReceived };
  }

  /** Is every replication session idle: nothing to send, in flight, or received and not yet merged (true without sync)? */
  get isReplicationIdle(): boolean {
    return this.#replicator?.isIdle ?? true;
  }

  /**
   * On a Big Peer: updates made once for a shape of sessions, and the sessions they served, since
   * it began serving (docs/replication.md, "Fan-out"). Undefined on a small peer.
   */
  get fanOut(): FanOutCounts | undefined {
    return this.#replicator?.fanOut;
  }

  /**
   * Bytes and documents of update chunks received for `collection` over every session since this
   * Sync was made (a chunk holding several collections is split by its documents' encoded size).
   */
  receivedFor(collection: string): { readonly bytes: number; readonly docs: number } {
    const entry = this.#traffic.receivedByCollection?.get(collection);
    return { bytes: entry?.bytes ?? 0, docs: entry?.docs ?? 0 };
  }

  readonly #options: SyncOptions;
  readonly #presenceJob: PresenceJob | undefined;
  readonly #hub: LogHub;
  readonly #timers: Timers;
  readonly #credentials: PeerCredentials;
  readonly #tracker: MeshTracker;
  #replicator: Replicator | undefined;
  #starting: Promise<void> | undefined;

  /** The log hub this peer writes to (the inspector streams it and sets its minimum level). */
  get logHub(): LogHub {
    return this.#hub;
  }

  /** The clock and timers this peer runs on (the inspector measures waits with the same clock). */
  get timers(): Timers {
    return this.#timers;
  }

  /** The app id of the identity; undefined for an offline peer (a Big Peer says it in `serveAsBigPeer`). */
  get appID(): string | undefined {
    return this.#credentials.appID;
  }

  /** The Big Peer's base URL of the identity (where it logs in); undefined for an offline peer. */
  get bigPeerURL(): string | undefined {
    return this.#options.identity?.bigPeerURL;
  }

  /** Does `startSync()` dial the Big Peer (an identity, and `sync.bigPeer` not false)? */
  get dialsBigPeer(): boolean {
    return this.#options.identity !== undefined && this.#options.sync?.bigPeer !== false;
  }

  /** What this peer may read and write: its certificate's grant (a Big Peer: everything). */
  get permissions(): Permissions | undefined {
    return this.#credentials.permissions();
  }

  // Nothing given to the replicator may reach the Sync object (see PeerCredentials).
  #makeReplicator(subscribeEverything: boolean, handshakeTimeoutMs?: number, subscriptionBudgetMs?: number, shareUpdates?: boolean): Replicator {
    const credentials = this.#credentials;
    const replicator = new Replicator({
      store: this.#resources.store,
      logger: this.#hub.logger('replication'),
      timers: this.#timers,
      credentials: () => credentials.current(),
      localPermissions: () => credentials.permissions(),
      subscribeEverything,
      handshakeTimeoutMs,
      tracker: this.#tracker,
      traffic: this.#traffic,
      bigPeerMemo: this.#bigPeerMemo,
      ...(subscriptionBudgetMs === undefined ? {} : { subscriptionBudgetMs }),
      ...(shareUpdates === true ? { shareUpdates } : {}),
    });
    const upload = this.#upload;
    replicator.onBigPeerHoldsChange(() => upload.holdsChanged());
    this.#link.replicator = replicator;
    return replicator;
  }

  /**
   * For the Big Peer only: this peer replicates as the Big Peer of `appID`, subscribed to
   * everything, proving itself with the issuer key. Sessions reach it through `acceptSession`.
   */
  serveAsBigPeer(options: {
    readonly appID: string;
    readonly issuer: IssuerKeys;
    readonly handshakeTimeoutMs?: number;
    /** The time matching a small peer's subscriptions may take in one update sent to it; past it its session closes (1008). */
    readonly subscriptionBudgetMs?: number;
  }): void {
    this.#assertOpen();
    this.#credentials.serveAsBigPeer(options.appID, options.issuer);
    // Many sessions, most of a few shapes: each update is made once per shape (shared-updates.ts).
    this.#replicator ??= this.#makeReplicator(true, options.handshakeTimeoutMs, options.subscriptionBudgetMs, true);
    const replicator = this.#replicator;
    const tracker = this.#tracker;
    const presence = this.#presenceJob;
    this.#resources.stopSync = () => {
      presence?.stop();
      replicator.close();
      tracker.stopped();
    };
    presence?.start('big-peer');
  }

  /**
   * Query threads over this peer's store (query/query-threads.ts): SELECTs, and the search for
   * the documents a mutation selects, run off the event loop on read-only snapshots of the
   * store's file. Undefined unless the store is SQLite in a persistence directory. The caller
   * closes them, before the Sync.
   */
  openQueryThreads(options: { readonly threads: number }): QueryThreads | undefined {
    this.#assertOpen();
    if (this.#sqliteDirectory === undefined || options.threads < 1) return undefined;
    return new QueryThreads({ directory: this.#sqliteDirectory, threads: options.threads, logger: this.#hub.logger('store'), timers: this.#timers });
  }

  /** Runs the acceptor's handshake and then a session on a connection a listener accepted. */
  acceptSession(connection: Connection): ReturnType<Replicator['accept']> {
    const replicator = this.#replicator;
    if (replicator === undefined) {
      connection.close(1013, 'sync is not running on this peer');
      return Promise.reject(new SyncError('sync/not-configured', 'sync is not running on this peer'));
    }
    return replicator.accept(connection);
  }

  /**
   * Runs the dialer's handshake and then a session on a connection made in this process
   * (`sync.inProcess`), while sync runs: the dialing twin of `acceptSession`.
   */
  dialSession(connection: Connection): ReturnType<Replicator['dial']> {
    const replicator = this.#replicator;
    if (replicator === undefined) {
      connection.close(1013, 'sync is not running on this peer');
      return Promise.reject(new SyncError('sync/not-configured', 'sync is not running on this peer'));
    }
    return replicator.dial(connection);
  }

  /**
   * What of this store the Big Peer has not acknowledged yet: the commits above the txn_id up to
   * which it holds every change (the figure eviction trusts), up to the last one now.
   * `pendingCommits` 0: everything this peer committed, or merged from others, is uploaded.
   */
  get pendingUpload(): UploadState {
    this.#assertOpen();
    return this.#upload.state();
  }

  /**
   * Waits until the Big Peer has acknowledged every commit of this store up to its last txn_id
   * now, or until `timeoutMs` (on the Sync's timers; Infinity: no bound) has passed, whichever
   * comes first, and resolves with what is still pending then: `pendingCommits` 0 when all is
   * uploaded. Sync must run for anything to move; while it is stopped, or the Big Peer is out of
   * reach, the wait ends at the bound. Rejects with `sync/closed` when the Sync closes first.
   */
  waitUntilUploaded(options: { readonly timeoutMs: number }): Promise<UploadState> {
    if (this.#closed) return Promise.reject(new SyncError('sync/closed', 'this Sync is closed; create a new one'));
    const { timeoutMs } = options;
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
      return Promise.reject(new RangeError(`waitUntilUploaded takes a timeoutMs of 0 or more, not ${String(timeoutMs)}`));
    }
    return this.#upload.wait(timeoutMs);
  }

  /** Where a stored document stands with each remote of a running session (replication/delivery.ts); none while sync is stopped. */
  deliveries(collection: string, doc: StoredDocument): { readonly remote: RemotePeer; readonly delivery: Delivery }[] {
    return this.#replicator?.deliveries(collection, doc) ?? [];
  }

  /** The live replication sessions, one per remote peer. */
  get sessions(): SessionInfo[] {
    return this.#replicator?.sessions() ?? [];
  }

  /**
   * The addresses this peer dials (one entry each, following its latest connection) and the
   * connections it accepted (open ones, and the most recently closed), with their states.
   */
  get connections(): TrackedConnection[] {
    return this.#tracker.connections();
  }

  /** The remote peers this peer had a replication session with since it was created. */
  get remotePeers(): SeenPeer[] {
    return this.#tracker.peers();
  }

  /** Called whenever `connections` or `remotePeers` change. Returns an unsubscribe function. */
  onConnectionsChange(listener: () => void): () => void {
    return this.#tracker.onChange(listener);
  }

  /** Called with the remote's peer key whenever a remote sends a new subscription set. Returns an unsubscribe function. */
  onRemoteSubscriptionsChange(listener: (peerKey: string) => void): () => void {
    return this.#tracker.onRemoteSubscriptionsChange(listener);
  }

  /** Is sync running (between `startSync()` and `stopSync()`)? */
  get isSyncActive(): boolean {
    return this.#resources.stopSync !== undefined;
  }

  /** Is `startSync()` still under way (logging in, starting to listen), not yet running nor failed? */
  get isSyncStarting(): boolean {
    return this.#starting !== undefined && !this.isSyncActive;
  }

  /**
   * Starts sync: authenticates (`sync.auth.start()`), then dials the Big Peer of the identity
   * and the peers in `sync.connect`, and listens if `sync.listen` says so, reconnecting after
   * failures until `stopSync()`. Rejects with a typed error, and leaves sync stopped, when there
   * is nowhere to sync (`sync/not-configured`) or a playground peer gets no certificate
   * (`auth/failed`, `auth/unreachable`: it must reach the Big Peer once before it can work
   * offline). With `onlineWithAuthentication` it resolves at once and dials when the handler
   * has logged in.
   */
  startSync(): Promise<void> {
    if (this.#closed) return Promise.reject(new SyncError('sync/closed', 'this Sync is closed; create a new one'));
    if (this.isSyncActive) return Promise.resolve();
    this.#starting ??= this.#startSync().finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  async #startSync(): Promise<void> {
    const options = this.#options;
    const identity = options.identity;
    const transport = options.sync ?? {};
    const dialBigPeer = identity !== undefined && transport.bigPeer !== false;
    const urls = [...(dialBigPeer ? [webSocketUrl(identity.bigPeerURL)] : []), ...(transport.connect ?? [])];
    const lan = lanOptions(transport.peerToPeer);
    const radios = requestedPeerToPeer(transport.peerToPeer).filter((t) => t !== 'LAN');
    if (identity === undefined || (urls.length === 0 && transport.listen === undefined && lan === undefined && transport.inProcess !== true)) {
      const unavailable = radios.length === 0 ? '' : ` (${radios.join(', ')} ${radios.length === 1 ? 'is' : 'are'} not available on this platform)`;
      throw new SyncError(
        'sync/not-configured',
        identity === undefined
          ? 'this peer has no identity: give the Sync onlinePlayground(…) or onlineWithAuthentication(…) so that it can obtain a certificate'
          : `there is nowhere to sync: the Big Peer is turned off (sync.bigPeer: false) and no peer addresses, listener or LAN are configured${unavailable}`,
      );
    }
    await this.auth.start();
    if (this.#closed) throw new SyncError('sync/closed', 'this Sync was closed while sync started');
    if (this.auth.certificate === undefined && identity.type === 'onlinePlayground') {
      const error = this.auth.status.lastError;
      throw new SyncError(error?.code ?? 'auth/failed', `sync cannot start without a certificate: ${error?.message ?? 'the login failed'}`, { details: error });
    }
    const log = this.#hub.logger('sync');
    const replicator = (this.#replicator = this.#makeReplicator(false));
    const logger = this.#hub.logger('replication');
    const tracker = this.#tracker;
    // The closures below outlive this call: they hold locals, never `this` (see PeerCredentials).
    const auth = this.auth;
    const resources = this.#resources;
    const peerKey = this.peerKey;
    const listening: { listener: WebSocketListener | undefined } = { listener: undefined };
    if (transport.listen !== undefined) {
      let listener: WebSocketListener;
      try {
        listener = await WebSocketListener.start(transport.listen, replicator, logger);
      } catch (error) {
        replicator.close();
        const message = errorMessage(error);
        throw new SyncError('sync/listen-failed', `sync cannot start: this peer cannot listen (sync.listen): ${message}`, { cause: error });
      }
      listening.listener = listener;
      resources.servers.TCP.add(listener);
    }
    // Peer-to-peer transports: each asked for is started or reported unavailable, with why.
    const timers = this.#timers;
    for (const radio of radios) {
      const reason = unavailableReason(radio, process.platform);
      tracker.transportCondition({ transport: radio, condition: 'Unavailable', reason, since: timers.now() });
      logger.warn(LOG_EVENTS.transportUnavailable, { transport: radio, condition: 'Unavailable', reason });
    }
    // Before each attempt: a certificate known to have expired is never announced (the remote
    // would refuse it, 4401). The auth client calls the handler, or logs in again, at the expiry;
    // dialing resumes when the new certificate arrives.
    const certificateProblem = (): string | undefined => {
      auth.checkExpiry();
      const status = auth.status;
      if (status.authenticated) return undefined;
      if (status.expiresAt === undefined) return 'no certificate yet';
      const renewal =
        identity.type === 'onlinePlayground' ? 'the playground logs in again' : 'the authentication handler logs in (authenticationRequired was called)';
      return `the certificate expired at ${new Date(status.expiresAt).toISOString()}; waiting until ${renewal}`;
    };
    let lanTransport: LanTransport | undefined;
    if (lan !== undefined) {
      try {
        lanTransport = await LanTransport.start({
          lan,
          discovery: (options.lanDiscovery ?? ((o) => new BonjourDiscovery(o)))({ serviceType: lan.serviceType, interface: lan.interface }),
          replicator,
          logger,
          timers,
          tracker,
          peerKey,
          appID: identity.appID,
          reconnect: transport.reconnect,
          certificateProblem,
        });
        const warning = loopbackWarning(lan);
        tracker.transportCondition({
          transport: 'LAN',
          condition: 'Ok',
          reason: `listening on ${lanTransport.listenUrl}, advertised over mDNS`,
          since: timers.now(),
          ...(warning === undefined ? {} : { warning }),
        });
      } catch (error) {
        const condition = error instanceof LanStartError ? error.condition : 'MdnsFailure';
        const reason = errorMessage(error);
        tracker.transportCondition({ transport: 'LAN', condition, reason, since: timers.now() });
        logger.error(LOG_EVENTS.lanFailed, { condition, reason });
        if (urls.length === 0 && listening.listener === undefined) {
          // LAN was the only way to sync: sync cannot start.
          replicator.close();
          throw new SyncError('sync/lan-failed', `sync cannot start: ${reason}`, { cause: error });
        }
      }
      if (lanTransport !== undefined) resources.servers.TCP.add(lanTransport);
    }
    if (this.#closed) {
      // Closed while it listened or started LAN: nothing may outlive the Sync.
      listening.listener?.stop();
      void lanTransport?.stop();
      replicator.close();
      throw new SyncError('sync/closed', 'this Sync was closed while sync started');
    }
    // Dialers are made (and shown in the mesh as waiting) only once nothing else can fail.
    const dialers = urls.map(
      (url, i) =>
        new WebSocketDialer({
          url,
          replicator,
          logger,
          timers: this.#timers,
          minDelayMs: transport.reconnect?.minDelayMs,
          maxDelayMs: transport.reconnect?.maxDelayMs,
          tracker,
          bigPeer: dialBigPeer && i === 0,
          certificateProblem,
        }),
    );
    this.#listening = listening;
    // Dial once a valid certificate is held: at once, or when the handler has logged in; a
    // dialer that waited for a certificate that expired dials again when the new one arrives.
    const startDialing = (): void => {
      if (!auth.status.authenticated) {
        // Expired while its timer has not fired yet (a machine that slept): re-authenticate now.
        auth.checkExpiry();
        return;
      }
      for (const d of dialers) {
        d.start();
        d.certificateChanged();
      }
      lanTransport?.startDialing();
    };
    const offStatus = auth.onStatusChange(() => {
      // A new certificate with other read rules: sessions begun under the old ones start again.
      replicator.permissionsChanged();
      startDialing();
    });
    startDialing();
    const presence = this.#presenceJob;
    resources.stopSync = () => {
      presence?.stop();
      offStatus();
      for (const d of dialers) d.stop();
      const listener = listening.listener;
      listening.listener = undefined;
      if (listener !== undefined) {
        listener.stop();
        resources.servers.TCP.delete(listener);
      }
      if (lanTransport !== undefined) {
        void lanTransport.stop();
        resources.servers.TCP.delete(lanTransport);
      }
      replicator.close();
      tracker.stopped();
      resources.stopSync = undefined;
      log.info(LOG_EVENTS.syncStopped, { peer_key: peerKey });
    };
    const lanListen = lanTransport?.listenUrl;
    log.info(LOG_EVENTS.syncStarted, {
      peer_key: peerKey,
      connect: [
        ...urls,
        ...(listening.listener === undefined ? [] : [`listening on ${listening.listener.url}`]),
        ...(lanListen === undefined ? [] : [`LAN on ${lanListen}`]),
      ].join(', '),
    });
    this.#lanTransport = lanTransport;
    presence?.start('small-peer');
  }

  #lanTransport: LanTransport | undefined;

  /** The LAN listener's address (`ws://0.0.0.0:port/_sync/ws`) while LAN runs. */
  get lanListenUrl(): string | undefined {
    return this.isSyncActive ? this.#lanTransport?.listenUrl : undefined;
  }

  /** Peers advertised on the LAN in this run, compatible or not, the most recently seen last (the inspector's Mesh panel). */
  get lanPeers(): LanPeer[] {
    return this.#tracker.lanPeers();
  }

  /** The device name this peer shows others (`presence.deviceName`); undefined when none was given. */
  get deviceName(): string | undefined {
    return this.#presenceJob?.deviceName;
  }

  /** The app metadata this peer shows others (`presence.appMetadata`). */
  get appMetadata(): Readonly<Record<string, string>> {
    return this.#presenceJob?.appMetadata ?? {};
  }

  /** The presence documents this store holds (this peer's own and those replicated to it), by peer key. */
  get presence(): Map<string, PresenceRecord> {
    return this.#closed ? new Map() : readAllPresence(this.#resources.store);
  }

  /** Each peer-to-peer transport asked for, with its condition (`Ok`, `Unavailable`, …) and why. */
  get transportConditions(): TransportCondition[] {
    return this.#tracker.transportConditions();
  }

  #listening: { listener: WebSocketListener | undefined } | undefined;

  /** The address other peers dial to reach this one (`ws://host:port/_sync/ws`), while it listens. */
  get listenUrl(): string | undefined {
    return this.#listening?.listener?.url;
  }

  /**
   * Asks the platform again for the permissions the transports need (spec 4.6: on Android, the
   * Bluetooth permission, after the user granted it in the settings). The transports of a
   * desktop (the WebSocket to the Big Peer and to peers, LAN) need no platform permission, and
   * Bluetooth LE is not available here (`sync.transportConditions`), so this asks for nothing:
   * it resolves and logs at INFO that nothing was needed. Rejects with `sync/closed` once closed.
   */
  async refreshPermissions(): Promise<void> {
    this.#assertOpen();
    this.#hub.logger('sync').info(LOG_EVENTS.permissionsRefreshed, { platform: process.platform, transports: 'WebSocket, LAN', requested: [] });
  }

  /** Stops sync: closes the sessions, stops dialing and listening. The store stays open. */
  async stopSync(): Promise<void> {
    await this.#starting?.catch(() => {});
    this.#resources.stopSync?.();
  }

  #assertOpen(): void {
    if (this.#closed) throw new SyncError('sync/closed', 'this Sync is closed; create a new one');
  }

  /**
   * Attaches a listener this peer runs (an HTTP or TCP server) so that the shutdown sequence
   * stops it in its place. Returns a function that detaches it (when it is closed otherwise).
   */
  attachServer(kind: PeerServerKind, server: PeerServer): () => void {
    const set = this.#resources.servers[kind];
    set.add(server);
    return () => set.delete(server);
  }

  /** Closes the store, logs the shutdown sequence and releases the persistence directory. Safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    forgotten.unregister(this);
    shutDown(this.#resources);
  }

  get isClosed(): boolean {
    return this.#closed;
  }
}
