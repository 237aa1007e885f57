/**
 * `Sync`: the composition root of a small peer. It opens the storage in the persistence
 * directory (or in memory), loads or creates the peer's identity, and exposes the store as
 * `sync.store`. Later layers (transactions, observers, replication, transports) attach here.
 */
import { SyncError } from './errors.ts';
import { loadOrCreateIdentity } from './identity.ts';
import { MemoryStorage } from './storage/memory-storage.ts';
import { SqliteStorage } from './storage/sqlite-storage.ts';
import type { StorageEngine } from './storage/types.ts';
import { Store, withCollectionProperties, type StoreWithCollections } from './store/store.ts';

export interface SyncOptions {
  /** The directory of this peer's store; created if needed, held exclusively while open. */
  readonly persistenceDirectory?: string;
  /** Keep everything in memory instead (tests, throwaway peers). */
  readonly inMemory?: boolean;
  /** Wall-clock milliseconds; injected so that tests control time. Defaults to `Date.now`. */
  readonly now?: () => number;
}

export class Sync {
  /** The store: `sync.store.execute(…)`, `sync.store.collection(name)`, `sync.store[name]`. */
  readonly store: StoreWithCollections;
  /** This peer's public key, base64url. */
  readonly peerKey: string;
  readonly persistenceDirectory: string | undefined;
  #closed = false;

  constructor(options: SyncOptions) {
    if (options.persistenceDirectory === undefined && options.inMemory !== true) {
      throw new SyncError('store/io', 'a Sync needs a persistenceDirectory, or inMemory: true');
    }
    const storage: StorageEngine =
      options.persistenceDirectory === undefined ? new MemoryStorage() : SqliteStorage.open(options.persistenceDirectory);
    try {
      const identity = loadOrCreateIdentity(storage);
      this.peerKey = identity.peerKey;
      this.store = withCollectionProperties(new Store({ storage, peerKey: identity.peerKey, now: options.now ?? Date.now }));
    } catch (error) {
      storage.close();
      throw error;
    }
    this.persistenceDirectory = options.persistenceDirectory;
  }

  /** Closes the store and releases the persistence directory. Safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.store.close();
  }
}
