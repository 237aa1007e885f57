/**
 * One peer of the simulated mesh: a real `Sync` (a small peer with its own certificate, or the
 * Big Peer serving as such) on a store that outlives it: the in-memory twin or a SQLite directory.
 * It can crash (the store refuses everything from that instant, the Sync above it is dropped) and
 * open again on what was committed, or be wiped (a reinstall: a new store and a new peer key).
 * Its log entries go, as they are made, to whoever listens (the log-sequence checker).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LOG_EVENTS, type LogEntry } from '../../shared/log.ts';
import { LogHub } from '../../peer/log/log-hub.ts';
import { MemoryStorage } from '../../peer/storage/memory-storage.ts';
import { SqliteStorage } from '../../peer/storage/sqlite-storage.ts';
import type { StorageEngine } from '../../peer/storage/types.ts';
import type { SyncSubscription } from '../../peer/subscriptions/subscription-set.ts';
import { Sync } from '../../peer/sync/sync.ts';
import { CrashableStorage } from './crash-storage.ts';
import { SIM_APP, type SimAuth } from './sim-auth.ts';
import type { SimClock } from './sim-clock.ts';
import { seedIdentity, type SimKey } from './sim-keys.ts';
import { turns } from './sim-turns.ts';

export type StorageKind = 'memory' | 'sqlite';

export interface SimPeerOptions {
  readonly name: string;
  readonly role: 'big' | 'small';
  readonly storage: StorageKind;
  readonly skewMs: number;
  readonly key: SimKey;
  readonly clock: SimClock;
  readonly auth: SimAuth;
  /** The run's directory, under which a SQLite peer makes its own. */
  readonly root: string;
}

/** Log lines kept for a failure report. */
const TAIL_LINES = 60;
/** How many event-loop turns a small peer may take to log in at start. */
const LOGIN_TURNS = 500;

export class SimPeer {
  readonly name: string;
  readonly role: 'big' | 'small';
  readonly storageKind: StorageKind;
  readonly skewMs: number;
  /** The statements the app subscribes to (registered again at every start). */
  readonly subscriptions = new Set<string>();
  readonly #handles = new Map<string, SyncSubscription>();
  readonly #options: SimPeerOptions;
  key: SimKey;
  /** Bumped by a wipe: the writes of an earlier identity are another writer's. */
  identity = 0;
  /** Bumped at every open. */
  incarnation = 0;
  sync: Sync | undefined;
  storage: CrashableStorage | undefined;
  /** When a crashed peer starts again (simulated ms), if it is down. */
  restartAt: number | undefined;
  /** A login under way (a permission change): its sessions wait for it. */
  pendingLogin: Promise<unknown> | undefined;
  #memory: MemoryStorage | undefined;
  #dir: string | undefined;
  #logListeners: ((entry: LogEntry, peer: SimPeer) => void)[] = [];
  #openListeners: ((peer: SimPeer) => void)[] = [];
  /** The last log lines of this peer, for a failure report. */
  readonly tail: string[] = [];

  constructor(options: SimPeerOptions) {
    this.#options = options;
    this.name = options.name;
    this.role = options.role;
    this.storageKind = options.storage;
    this.skewMs = options.skewMs;
    this.key = options.key;
  }

  get isUp(): boolean {
    return this.sync !== undefined;
  }

  /** The user its certificate names (small peers). */
  get user(): string {
    return this.name;
  }

  onLog(listener: (entry: LogEntry, peer: SimPeer) => void): void {
    this.#logListeners.push(listener);
  }

  /** Called after each open, before the app registers its subscriptions (to attach commit listeners). */
  onOpen(listener: (peer: SimPeer) => void): void {
    this.#openListeners.push(listener);
  }

  #backing(): StorageEngine {
    if (this.storageKind === 'memory') {
      this.#memory ??= new MemoryStorage();
      return this.#memory;
    }
    this.#dir ??= mkdtempSync(join(this.#options.root, `${this.name}-`));
    return SqliteStorage.open(this.#dir);
  }

  async open(): Promise<void> {
    if (this.sync !== undefined) return;
    const { clock, auth } = this.#options;
    const timers = clock.skewed(this.skewMs);
    const storage = new CrashableStorage(this.#backing(), this.storageKind === 'sqlite');
    seedIdentity(storage, this.key);
    const hub = new LogHub({ minimumLogLevel: 'DEBUG', recentCapacity: 16, now: () => timers.now() });
    const incarnation = ++this.incarnation;
    hub.setCustomLogCallback((entry) => {
      if (this.incarnation !== incarnation || this.storage?.isCrashed !== false) return; // a crashed process says nothing
      // The subscriptions and permissions printed after each commit would crowd out the rest.
      if (entry.event !== LOG_EVENTS.subscriptionsPrinted && entry.event !== LOG_EVENTS.permissionsPrinted) {
        this.tail.push(`${entry.level} ${entry.timestamp} ${entry.component}: ${entry.message}`);
        if (this.tail.length > TAIL_LINES) this.tail.shift();
      }
      for (const listener of this.#logListeners) listener(entry, this);
    });
    this.storage = storage;
    const sync =
      this.role === 'big'
        ? new Sync({ storage, storageName: this.name, logHub: hub, timers })
        : new Sync({
            storage,
            storageName: this.name,
            logHub: hub,
            timers,
            identity: auth.identity(this.user),
            fetch: auth.fetch,
            sync: { bigPeer: false, inProcess: true },
          });
    this.sync = sync;
    this.restartAt = undefined;
    for (const listener of this.#openListeners) listener(this);
    if (this.role === 'big') {
      sync.serveAsBigPeer({ appID: SIM_APP, issuer: auth.issuer });
    } else {
      await sync.startSync();
      for (let i = 0; i < LOGIN_TURNS && sync.auth.certificate === undefined; i++) await turns(1);
      if (sync.auth.certificate === undefined) throw new Error(`${this.name} got no certificate at start`);
    }
    for (const statement of this.subscriptions) this.#register(statement);
  }

  /** Registers a subscription of the app; false when the peer may not read its collection (kept, tried again at the next start). */
  subscribe(statement: string): boolean {
    this.subscriptions.add(statement);
    return this.#register(statement);
  }

  #register(statement: string): boolean {
    const sync = this.sync;
    if (sync === undefined || this.#handles.has(statement)) return this.#handles.has(statement);
    try {
      this.#handles.set(statement, sync.store.registerSubscription(statement));
      return true;
    } catch {
      return false;
    }
  }

  unsubscribe(statement: string): void {
    this.subscriptions.delete(statement);
    this.#handles.get(statement)?.cancel();
    this.#handles.delete(statement);
  }

  /** The process dies now: nothing more is committed or logged; the Sync above the store is dropped. */
  crash(): void {
    const sync = this.sync;
    if (sync === undefined) return;
    this.storage?.crash();
    this.sync = undefined;
    this.#handles.clear();
    this.pendingLogin = undefined;
    try {
      sync.close(); // stops its timers; its store refuses everything, so nothing of it lands
    } catch {
      // A dead process cannot fail to close.
    }
  }

  /** A reinstall: the store is gone and the next open makes a new one with `key`. */
  wipe(key: SimKey): void {
    this.crash();
    this.#memory = undefined;
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
    this.key = key;
    this.identity++;
  }

  /** Closes for good and removes its directory. */
  dispose(): void {
    try {
      this.sync?.close();
    } catch {
      // Ending the run either way.
    }
    this.sync = undefined;
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  }
}
