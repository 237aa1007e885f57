/**
 * The sync engine of a peer: its replication sessions, one per remote peer key. It opens a
 * session on each connection that passes the handshake, elects one connection when two reach
 * the same remote, and wakes the sessions whenever the store commits (a local write, or an
 * update merged from a peer), printing the subscriptions and permissions of every side first
 * (spec 3.5). Transports hand it connections; it never dials or listens itself.
 */
import { LOG_EVENTS } from '../../shared/log.ts';
import type { Permissions } from '../../shared/permissions.ts';
import { ANNOUNCE_CLOSE_CODES } from '../../shared/protocol/announce.ts';
import type { SubscriptionSetShape } from '../../shared/subscriptions.ts';
import type { Logger } from '../log/log-hub.ts';
import type { CommittedTransaction, Store } from '../store/store.ts';
import type { Timers } from '../time.ts';
import { Alarm } from '../auth/alarm.ts';
import type { Connection } from './connection.ts';
import type { Delivery } from './delivery.ts';
import type { StoredDocument } from '../storage/types.ts';
import { acceptHandshake, dialHandshake, SessionRefused, type Handshaken, type LocalCredentials, type RemotePeer } from './handshake.ts';
import type { MeshTracker } from './mesh-tracker.ts';
import { ReplicationProgress } from './progress.ts';
import { Session, type ReplicationTraffic, type SessionHost } from './session.ts';
import { SharedUpdates, type FanOutCounts } from './shared-updates.ts';
import { REAP_HORIZON_SETTING, readReapHorizon } from './resurrection-guard.ts';
import { errorMessage } from '../../shared/error-message.ts';

export interface ReplicatorOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly timers: Timers;
  /** Who this peer is now (its certificate changes as it logs in again). */
  readonly credentials: () => LocalCredentials | undefined;
  /** What this peer may read and write, as its certificate says (printed; the Big Peer: everything). */
  readonly localPermissions: () => Permissions | undefined;
  /** The Big Peer subscribes to everything. */
  readonly subscribeEverything?: boolean;
  /** Bound on a handshake (default 10 s). */
  readonly handshakeTimeoutMs?: number;
  /** Told of every connection's handshake, session and end, and of remote subscription sets (the inspector's mesh). */
  readonly tracker?: MeshTracker;
  /** Counts the bytes every session sends and receives (the Sync keeps the totals across restarts of sync). */
  readonly traffic?: ReplicationTraffic;
  /** How far the Big Peer held this store when its last session ended, kept by the Sync across restarts of sync. */
  readonly bigPeerMemo?: { bigPeerHolds: number | undefined };
  /**
   * The time matching a small peer's subscription conditions may take in one update sent to it
   * (the Big Peer's `subscriptionBudgetMs`): past it its session closes. Undefined: no bound.
   */
  readonly subscriptionBudgetMs?: number;
  /**
   * Sessions of one shape share the update made after a commit: read, matched and serialised
   * once, the same frames sent to each (shared-updates.ts). The Big Peer sets it.
   */
  readonly shareUpdates?: boolean;
}

/** The close code of a session whose local read rules changed (a new certificate): "service restart". */
export const PERMISSIONS_CHANGED_CLOSE_CODE = 1012;

/** The setting holding how far the Big Peer held this store when its last session ended. */
export const BIG_PEER_HOLDS_SETTING = 'replication/big-peer-holds';

/** A live session as the inspector lists it. */
export interface SessionInfo {
  readonly remote: RemotePeer;
  readonly connection: string;
  readonly connectionType: Connection['type'];
  readonly remoteAddress: string;
  readonly remoteSubscriptions: SubscriptionSetShape | undefined;
}

/** How far ahead of this peer's clock a remote stamp may be and still move it. */
export const MAX_CLOCK_LEAD_MS = 60 * 60_000;

const EVERYTHING_SET: SubscriptionSetShape = { everything: true, queries: {} };

export class Replicator {
  readonly #options: ReplicatorOptions;
  readonly #log: Logger;
  readonly #sessions = new Map<string, Session>();
  readonly #progress: ReplicationProgress;
  readonly #host: SessionHost;
  readonly #shared: SharedUpdates | undefined;
  readonly #unlisten: (() => void)[] = [];
  readonly #endListeners = new Set<(remote: RemotePeer, code: number, reason: string) => void>();
  readonly #holdsListeners = new Set<() => void>();
  #closed = false;

  constructor(options: ReplicatorOptions) {
    this.#options = options;
    this.#log = options.logger;
    const { store } = options;
    this.#progress = new ReplicationProgress(store.internalSettings);
    const shared = options.shareUpdates === true ? new SharedUpdates() : undefined;
    this.#shared = shared;
    this.#host = {
      localPeerKey: store.peerKey,
      timers: options.timers,
      localSubscriptions: () => this.localSubscriptions(),
      localReadRules: () => options.localPermissions()?.read,
      loadProgress: (remote, read) => this.#progress.load(remote, read),
      saveProgress: (remote, progress, before, read) => this.#progress.save(remote, progress, before, read),
      lastTxnId: () => store.lastTxnId,
      heldCollections: () =>
        store
          .collections()
          .filter((c) => c.documents > 0)
          .map((c) => c.name),
      read: (fn) => store.readNow(fn),
      write: (fn, hint) => store.internalWrites.write('Replication', hint ?? 'replication', fn),
      // A stamp far ahead of this clock (a peer whose clock is wrong) is merged but not followed:
      // later local writes must not all be stamped in its future.
      observeClock: (hlc) => {
        if (Number.parseInt(hlc.slice(0, 12), 16) <= options.timers.now() + MAX_CLOCK_LEAD_MS) store.internalWrites.observeClock(hlc);
      },
      yieldNow: () => new Promise((resolve) => setImmediate(resolve)),
      // A document relayed by a neighbour may be an old state (one that no longer keeps it up to
      // date): the Big Peer is asked for it, so that a newer state that left this peer's
      // subscriptions before it held the document still reaches it (docs/replication.md).
      arrivedFrom: (from, docs) => {
        for (const session of this.#sessions.values()) if (session.remote.role === 'big-peer' && session.remote.peerKey !== from) session.askFor(docs);
      },
      // Only a Big Peer tells its reap horizon: a small peer's absence of a document means nothing
      // (it evicts), so no peer reconciles against one (docs/replication.md).
      bigPeerHeld: () => options.bigPeerMemo?.bigPeerHolds ?? readBigPeerHolds(store.internalSettings.get(BIG_PEER_HOLDS_SETTING)),
      reapHorizon: () => (options.credentials()?.role === 'big-peer' ? readReapHorizon(store.internalSettings.get(REAP_HORIZON_SETTING)) : undefined),
      ...(shared === undefined ? {} : { sharedUpdates: shared }),
    };
    this.#unlisten.push(store.onCommit((txn) => this.#committed(txn)));
    // Another Big Peer node committed to the shared database: its changes go to this node's sessions.
    this.#unlisten.push(
      store.onExternalCommit((commit) => {
        for (const session of this.#sessions.values()) session.localChanged(commit.collections);
      }),
    );
    this.#unlisten.push(store.onSubscriptionsChange(() => this.#resendSubscriptions()));
  }

  /** This peer's subscription set as its remotes see it. */
  localSubscriptions(): SubscriptionSetShape {
    return this.#options.subscribeEverything === true ? EVERYTHING_SET : this.#options.store.subscriptionSet();
  }

  /** How many updates were made once for a shape, and how many sessions they served (undefined: no sharing). */
  get fanOut(): FanOutCounts | undefined {
    return this.#shared?.counts;
  }

  /** The live sessions. */
  sessions(): SessionInfo[] {
    return [...this.#sessions.values()].map((s) => ({
      remote: s.remote,
      connection: s.connection.id,
      connectionType: s.connection.type,
      remoteAddress: s.connection.remoteAddress,
      remoteSubscriptions: s.remoteSubscriptions,
    }));
  }

  /** Where a document (as stored now) stands with each remote of a running session (delivery.ts). */
  deliveries(collection: string, doc: StoredDocument): { readonly remote: RemotePeer; readonly delivery: Delivery }[] {
    return [...this.#sessions.values()].filter((s) => !s.isEnding).map((s) => ({ remote: s.remote, delivery: s.deliveryOf(collection, doc) }));
  }

  /** Is a session with this remote running (over any connection)? */
  hasSession(peerKey: string): boolean {
    const session = this.#sessions.get(peerKey);
    return session !== undefined && !session.isEnding;
  }

  /** Are all sessions idle (nothing to send, in flight or to merge)? */
  get isIdle(): boolean {
    return [...this.#sessions.values()].every((s) => s.isIdle);
  }

  /** Called when a session ends (the dialer reconnects on it). Returns an unsubscribe function. */
  onSessionEnd(listener: (remote: RemotePeer, code: number, reason: string) => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }

  /**
   * Called whenever what `bigPeerHolds()` says may have changed: the Big Peer acknowledged an
   * update, told what it holds at a session start, or its session ended. Returns an unsubscribe
   * function.
   */
  onBigPeerHoldsChange(listener: () => void): () => void {
    this.#holdsListeners.add(listener);
    return () => this.#holdsListeners.delete(listener);
  }

  /** Is a session with the Big Peer running (not ending)? */
  get hasBigPeerSession(): boolean {
    return [...this.#sessions.values()].some((s) => s.remote.role === 'big-peer' && !s.isEnding);
  }

  #bigPeerHoldsChanged(): void {
    for (const listener of this.#holdsListeners) {
      try {
        listener();
      } catch (error) {
        this.#log.warn(LOG_EVENTS.listenerFailed, { listener: 'onBigPeerHoldsChange', error: errorMessage(error) });
      }
    }
  }

  /** Runs the acceptor's handshake on a new connection, then the session. */
  accept(connection: Connection): Promise<Session> {
    return this.#open(connection, acceptHandshake);
  }

  /** Runs the dialer's handshake on a new connection, then the session. */
  dial(connection: Connection): Promise<Session> {
    return this.#open(connection, dialHandshake);
  }

  async #open(connection: Connection, handshake: typeof acceptHandshake): Promise<Session> {
    const local = this.#options.credentials();
    const tracker = this.#options.tracker;
    tracker?.handshaking(connection);
    if (this.#closed || local === undefined) {
      const reason = this.#closed ? 'sync is stopped' : 'this peer has no certificate yet: it must reach the Big Peer once';
      const code = this.#closed ? 1001 : ANNOUNCE_CLOSE_CODES.unauthorized;
      connection.close(code, reason);
      tracker?.closed(connection.id, `refused: ${reason}`, this.#closed ? undefined : { by: 'local', code, reason });
      throw new SessionRefused(this.#closed ? 1001 : ANNOUNCE_CLOSE_CODES.unauthorized, reason, false);
    }
    let done: Handshaken;
    try {
      done = await handshake({ connection, local, timers: this.#options.timers, timeoutMs: this.#options.handshakeTimeoutMs });
    } catch (error) {
      if (error instanceof SessionRefused) {
        tracker?.closed(connection.id, `${error.byRemote ? 'refused by the remote' : 'refused'} (${error.code}): ${error.reason}`, {
          by: error.byRemote ? 'remote' : 'local',
          code: error.code,
          reason: error.reason,
        });
      } else {
        tracker?.closed(connection.id, `handshake failed: ${String(error)}`);
      }
      if (error instanceof SessionRefused && !this.#closed) {
        const level = error.byRemote ? 'WARN' : 'INFO';
        this.#log.log(level, LOG_EVENTS.sessionRefused, {
          connection: connection.id,
          code: error.code,
          reason: error.reason,
          by: error.byRemote ? 'remote' : 'local',
        });
      }
      throw error;
    }
    if (this.#closed) {
      connection.close(1001, 'sync is stopped');
      tracker?.closed(connection.id, 'sync stopped');
      throw new SessionRefused(1001, 'sync is stopped', false);
    }
    return this.#start(connection, done);
  }

  #start(connection: Connection, { remote, frames }: Handshaken): Session {
    const log = this.#log;
    log.info(LOG_EVENTS.phyStarted, { remote: remote.peerKey });
    const existing = this.#sessions.get(remote.peerKey);
    // A small peer's certificate is checked when the session opens and holds until it expires:
    // then the session ends (4401), and a new one needs the certificate it renewed. (An Alarm
    // waits as long as it must: timers alone stop at about 24.8 days.)
    const expiry = new Alarm(this.#options.timers);
    const session: Session = new Session({
      connection,
      frames,
      remote,
      host: this.#host,
      logger: log,
      onRemoteSubscriptions: () => this.#options.tracker?.remoteSubscriptionsChanged(remote.peerKey),
      onSynced: () => this.#options.tracker?.synced(remote.peerKey),
      ...(remote.role === 'big-peer' ? { onRemoteHoldsChange: () => this.#bigPeerHoldsChanged() } : {}),
      traffic: this.#options.traffic,
      ...(this.#options.subscriptionBudgetMs === undefined || remote.role === 'big-peer' ? {} : { matchBudgetMs: this.#options.subscriptionBudgetMs }),
      onEnd: (code, reason) => {
        expiry.cancel();
        if (remote.role === 'big-peer') this.#rememberBigPeerHolds(session);
        const tracked = (): void => this.#options.tracker?.closed(connection.id, `session ended (${code})${reason === '' ? '' : `: ${reason}`}`);
        if (this.#closed) return tracked(); // Stopped: sessions end quietly, after the peer said it stopped.
        log.info(LOG_EVENTS.sessionEnded, { remote: remote.peerKey, connection: connection.id, code, reason });
        if (this.#sessions.get(remote.peerKey) === session) this.#sessions.delete(remote.peerKey);
        if (remote.role === 'big-peer') this.#bigPeerHoldsChanged();
        tracked();
        for (const listener of this.#endListeners) listener(remote, code, reason);
      },
    });
    if (existing !== undefined && !existing.isClosed && !this.#newWins(existing.connection, connection, remote.peerKey)) {
      // Both ends apply the same rule, so both keep the same connection.
      this.#options.tracker?.sessionStarted(connection, remote, false);
      session.close(ANNOUNCE_CLOSE_CODES.replaced, 'another connection to this peer was elected');
      return session;
    }
    this.#sessions.set(remote.peerKey, session);
    if (remote.expiresAt !== undefined) expiry.arm(remote.expiresAt, () => session.close(ANNOUNCE_CLOSE_CODES.unauthorized, 'certificate expired'));
    this.#options.tracker?.sessionStarted(connection, remote, true);
    log.info(LOG_EVENTS.connectionElected, {
      remote: remote.peerKey,
      new_conn: connection.id,
      old_conn: existing === undefined || existing.isClosed ? '' : existing.connection.id,
    });
    if (existing !== undefined && !existing.isClosed) {
      const reconnected = existing.connection.dialed === connection.dialed;
      existing.close(
        ANNOUNCE_CLOSE_CODES.replaced,
        reconnected ? 'replaced by a newer session of the same peer key' : 'another connection to this peer was elected',
      );
    }
    session.sendSubscriptions();
    session.localChanged();
    return session;
  }

  /**
   * Up to which txn_id of this store the Big Peer holds every change: from a live session with
   * it, else as its last session ended (saved with the store). Undefined when never known.
   * Eviction trusts nothing above it (docs/eviction.md).
   */
  bigPeerHolds(): number | undefined {
    for (const session of this.#sessions.values()) {
      if (session.remote.role !== 'big-peer' || session.isEnding) continue;
      const holds = session.remoteHoldsUpTo();
      if (holds !== undefined) return holds;
    }
    return this.#options.bigPeerMemo?.bigPeerHolds ?? readBigPeerHolds(this.#options.store.internalSettings.get(BIG_PEER_HOLDS_SETTING));
  }

  #rememberBigPeerHolds(session: Session): void {
    const holds = session.remoteHoldsUpTo();
    if (holds === undefined || this.#options.store.isClosed) return;
    if (this.#options.bigPeerMemo !== undefined) this.#options.bigPeerMemo.bigPeerHolds = holds;
    void this.#options.store.internalSettings.set({ [BIG_PEER_HOLDS_SETTING]: String(holds) }).catch(() => {
      // Closing: the next session tells it again; until then eviction trusts the older value, which is lower.
    });
  }

  /**
   * Which of two connections to one remote stays: a newer one made the same way replaces the
   * older (a reconnection); of two made in opposite directions at once, the one dialed by the
   * peer with the smaller key.
   */
  #newWins(old: Connection, fresh: Connection, remote: string): boolean {
    if (old.dialed === fresh.dialed) return true;
    const localDials = this.#options.store.peerKey < remote;
    return fresh.dialed === localDials;
  }

  #committed(txn: CommittedTransaction): void {
    if (this.#closed) return;
    const evicted = evictedCollections(txn);
    if (evicted.length > 0) {
      // What this peer held of those collections is gone: its remotes must send it again, also
      // when none is connected now (the next session starts from it).
      void this.#progress
        .evicted(evicted, txn.txnId)
        .then(() => this.#resendSubscriptions())
        .catch((error: unknown) => this.#log.warn(LOG_EVENTS.replicationFailed, { remote: '*', error: String(error) }));
    }
    if (this.#sessions.size === 0) return;
    this.#printState();
    for (const session of this.#sessions.values()) {
      // The commit of a chunk from this very remote, stored as sent: nothing to send it back.
      if (txn.originator === 'Replication' && session.onlyEchoes(txn.txnId, txn.changes)) {
        session.echoCommitted(txn.txnId);
        continue;
      }
      session.localChanged(txn.collections);
    }
  }

  /**
   * This peer's certificate changed (a new login). A session runs under the read rules of the
   * certificate it began with, so a session begun under other read rules than the new ones is
   * closed (1012, `permissions changed`): the next one runs under the new rules, and what they
   * let this peer read now comes in its first update (progress.ts).
   */
  permissionsChanged(): void {
    if (this.#closed) return;
    const now = JSON.stringify(this.#options.localPermissions()?.read);
    for (const session of this.#sessions.values()) {
      if (session.readAs !== undefined && JSON.stringify(session.readAs) !== now) session.close(PERMISSIONS_CHANGED_CLOSE_CODE, 'permissions changed');
    }
  }

  #resendSubscriptions(): void {
    if (this.#closed) return;
    for (const session of this.#sessions.values()) session.sendSubscriptions();
  }

  /** The subscriptions and permissions of this peer and of each remote (spec 2.4, 2.5, 3.5). */
  #printState(): void {
    const log = this.#log;
    if (!log.isEnabled('DEBUG')) return;
    const permissions = this.#options.localPermissions();
    log.debug(LOG_EVENTS.subscriptionsPrinted, { peer: 'local', subscriptions: JSON.stringify(this.localSubscriptions()) });
    log.debug(LOG_EVENTS.permissionsPrinted, {
      peer: 'local',
      permissions: permissions === undefined ? 'unknown (no certificate yet)' : JSON.stringify(permissions),
    });
    for (const session of this.#sessions.values()) {
      const remote = session.remoteSubscriptions;
      log.debug(LOG_EVENTS.subscriptionsPrinted, {
        peer: session.remote.peerKey,
        subscriptions: remote === undefined ? 'not received yet' : JSON.stringify(remote),
      });
      log.debug(LOG_EVENTS.permissionsPrinted, { peer: session.remote.peerKey, permissions: JSON.stringify(session.remote.permissions) });
    }
  }

  /** Closes every session (1001, going away) and stops waking. */
  get isClosed(): boolean {
    return this.#closed;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const off of this.#unlisten) off();
    for (const session of this.#sessions.values()) {
      if (session.remote.role === 'big-peer') this.#rememberBigPeerHolds(session);
      session.close(1001, 'sync stopped');
    }
    this.#sessions.clear();
    this.#bigPeerHoldsChanged();
    this.#holdsListeners.clear();
  }
}

/** The saved `BIG_PEER_HOLDS_SETTING`, or undefined when absent or not a whole number. */
export function readBigPeerHolds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** The collections a commit evicted documents of. */
export function evictedCollections(txn: CommittedTransaction): string[] {
  return [...new Set(txn.changes.filter((c) => c.kind === 'evict').map((c) => c.collection))];
}
