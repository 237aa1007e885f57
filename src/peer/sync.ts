/**
 * `Sync`: the composition root of a small peer. It opens the storage in the persistence
 * directory (or in memory), loads or creates the peer's identity, and exposes the store as
 * `sync.store`. Later layers (replication, transports, discovery, auth) attach here.
 *
 * Keep a `Sync` in a long-lived variable and `close()` it when done: closing logs the spec's
 * shutdown sequence; a `Sync` garbage collected while open logs an ERROR saying so, then the
 * same sequence, and releases its directory.
 */
import { LOG_EVENTS } from '../shared/log.ts';
import { AuthClient } from './auth/auth-client.ts';
import { validateIdentity, type OnlineIdentity } from './auth/identity.ts';
import type { FetchLike } from './auth/login-request.ts';
import { SyncError } from './errors.ts';
import { loadOrCreateIdentity } from './identity.ts';
import type { LogHub, Logger } from './log/log-hub.ts';
import { SyncLogger } from './log/sync-logger.ts';
import { MemoryStorage } from './storage/memory-storage.ts';
import { SqliteStorage } from './storage/sqlite-storage.ts';
import type { StorageEngine } from './storage/types.ts';
import { Store, withCollectionProperties, type StoreWithCollections } from './store/store.ts';
import { systemTimers, type Timers } from './time.ts';

export interface SyncOptions {
  /** The directory of this peer's store; created if needed, held exclusively while open. */
  readonly persistenceDirectory?: string;
  /** Keep everything in memory instead (tests, throwaway peers). */
  readonly inMemory?: boolean;
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
  readonly auth: AuthClient;
  readonly path: string;
  readonly servers: Readonly<Record<PeerServerKind, Set<PeerServer>>>;
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
function shutDown({ log, store, auth, servers }: Resources): void {
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
  readonly #resources: Resources;
  #closed = false;

  constructor(options: SyncOptions) {
    if (options.persistenceDirectory === undefined && options.inMemory !== true) {
      throw new SyncError('store/io', 'a Sync needs a persistenceDirectory, or inMemory: true');
    }
    // Before anything is opened: a refused identity leaves no directory locked.
    if (options.identity !== undefined) validateIdentity(options.identity);
    const hub = options.logHub ?? SyncLogger.hub;
    const log = hub.logger('sync');
    const timers = options.timers ?? systemTimers;
    const storage: StorageEngine =
      options.persistenceDirectory === undefined ? new MemoryStorage() : SqliteStorage.open(options.persistenceDirectory, hub.logger('store'));
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
    const path = options.persistenceDirectory ?? ':memory:';
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
    });
    this.#resources = { log, store, path, auth: this.auth, servers: { HTTP: new Set(), TCP: new Set() } };
    forgotten.register(this, this.#resources, this);
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
