/**
 * What the peer knows of its mesh, kept as state rather than read back from logs (a user may
 * raise the log level to ERROR and the inspector must still follow): the addresses it dials and
 * the connections it accepted, each with its state, and the remote peers met in this run. The
 * dialers and the replicator report to it; the Sync owns one for its whole life, across
 * `startSync()`/`stopSync()`, and tells `sync.connections`, `sync.remotePeers` and changes.
 */
import type { TransportCondition } from './transports.ts';
import type { Timers } from '../time.ts';
import type { RemotePeer } from './handshake.ts';

export type TransportKind = 'WebSocket' | 'LAN';

export type TrackedState = 'connecting' | 'elected' | 'standby' | 'closed';

/** A dialed address (one entry per address, following its latest connection) or an accepted connection. */
export interface TrackedConnection {
  /** The latest connection's id (`WsClient#3`); before a first attempt, the type and the address (`WsClient ws://…`). */
  readonly id: string;
  readonly type: string;
  readonly direction: 'dialed' | 'accepted';
  readonly address: string;
  readonly state: TrackedState;
  /** When it entered this state (ms). */
  readonly since: number;
  readonly remotePeerKey: string | undefined;
  /** Why it closed; for a dialed address not yet dialed, what it waits for. */
  readonly reason: string | undefined;
  /** For a closed dialed address: when it is dialed again (ms), if it is. */
  readonly retryAt: number | undefined;
  /** Is this the dialed address of the Big Peer? */
  readonly bigPeer: boolean;
  /** How it was found: configured (`WebSocket`: the Big Peer, `sync.connect`, `sync.listen`) or LAN discovery. */
  readonly transport: TransportKind;
  /** Set when its announcement was refused: by this peer (`local`) or the other, the close code and why. */
  readonly refusal: Refusal | undefined;
  /**
   * For a dialed address: its attempts in a row that ended before a session started (refused,
   * unreachable, failed); undefined when its last attempt reached a session, or none failed.
   */
  readonly failedAttempts: number | undefined;
  /** When the first of those failed attempts ended (ms); undefined with `failedAttempts`. */
  readonly failingSince: number | undefined;
}

/** A refused announcement (handshake), as both sides log it. */
export interface Refusal {
  readonly by: 'local' | 'remote';
  /** The close code (4400, 4401, 4408, …); undefined when the connection was refused before any (no certificate yet). */
  readonly code: number | undefined;
  readonly reason: string;
}

/** A remote peer this peer had a session with in this run. */
export interface SeenPeer {
  readonly peerKey: string;
  readonly role: 'big-peer' | 'small-peer';
  readonly appID: string;
  /** When its last session started (ms). */
  readonly lastSessionAt: number;
  /** When an update was last exchanged with it (one sent and acknowledged, or one received and merged), in any session of this run; undefined before the first. */
  readonly lastSyncedAt: number | undefined;
  /** The user its certificate names (a small peer); what the handshake verified. */
  readonly userID: string | undefined;
  /** When its certificate expires (ms); undefined for the Big Peer (it is the issuer). */
  readonly certificateExpiresAt: number | undefined;
  /** The device name it announced in its last handshake; undefined: none. */
  readonly deviceName?: string | undefined;
}

/** A peer advertised on the LAN, whether or not this peer syncs with it. */
export interface LanPeer {
  /** Its service instance name (unique on the LAN). */
  readonly name: string;
  readonly peerKey: string | undefined;
  readonly appID: string | undefined;
  readonly protocolVersion: number | undefined;
  /** The address it is dialed at (`ws://ip:port/_sync/ws`). */
  readonly url: string;
  /** Does this peer sync with it (same app, a protocol version it speaks, a peer key)? */
  readonly compatible: boolean;
  /** Why not, when not. */
  readonly reason: string | undefined;
  /** Still advertised (false once it said goodbye or its record expired). */
  readonly present: boolean;
  readonly lastSeenAt: number;
}

/** The connection facts the tracker needs (a `Connection` has them). */
export interface ConnectionFacts {
  readonly id: string;
  readonly type: string;
  readonly dialed: boolean;
  readonly remoteAddress: string;
  readonly transport?: TransportKind;
}

/** Accepted connections kept once closed (the most recent). */
export const CLOSED_ACCEPTED_KEPT = 50;
/** Remote peers remembered (the most recently met). */
export const PEERS_KEPT = 500;
/** LAN peers remembered (the most recently seen). */
export const LAN_PEERS_KEPT = 500;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class MeshTracker {
  readonly #timers: Timers;
  /** Dialed addresses, by address. */
  readonly #dialed = new Map<string, Mutable<TrackedConnection>>();
  /** Accepted connections, by id, oldest first. */
  readonly #accepted = new Map<string, Mutable<TrackedConnection>>();
  readonly #peers = new Map<string, SeenPeer>();
  readonly #lan = new Map<string, LanPeer>();
  readonly #conditions = new Map<string, TransportCondition>();
  readonly #listeners = new Set<() => void>();
  readonly #subscriptionListeners = new Set<(peerKey: string) => void>();

  constructor(timers: Timers) {
    this.#timers = timers;
  }

  /** Dialed addresses first (in the order configured), then accepted connections, oldest first. */
  connections(): TrackedConnection[] {
    return [...this.#dialed.values(), ...this.#accepted.values()].map((c) => ({ ...c }));
  }

  /** Remote peers met in this run, in the order first met (each with its last session's facts). */
  peers(): SeenPeer[] {
    return [...this.#peers.values()];
  }

  /** Peers advertised on the LAN in this run, the most recently seen last. */
  lanPeers(): LanPeer[] {
    return [...this.#lan.values()];
  }

  /** The peer-to-peer transports asked for, each with its condition. */
  transportConditions(): TransportCondition[] {
    return [...this.#conditions.values()];
  }

  /** Called after every change of connections or peers. Returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Called when a remote peer sends a new subscription set. Returns an unsubscribe function. */
  onRemoteSubscriptionsChange(listener: (peerKey: string) => void): () => void {
    this.#subscriptionListeners.add(listener);
    return () => this.#subscriptionListeners.delete(listener);
  }

  // --- reports from the dialers -------------------------------------------------------------

  /** A dialer for this address exists and waits to start (for a certificate). */
  dialWaiting(address: string, type: string, bigPeer: boolean, transport: TransportKind = 'WebSocket'): void {
    const existing = this.#dialed.get(address);
    if (existing !== undefined && existing.state !== 'closed') return;
    this.#dialed.set(
      address,
      this.#record(existing?.id ?? `${type} ${address}`, type, 'dialed', address, 'connecting', {
        reason: 'waiting for a certificate to dial',
        bigPeer,
        transport,
      }),
    );
    this.#changed();
  }

  /** A new attempt to dial the address, over this connection. */
  dialing(connection: ConnectionFacts, bigPeer: boolean): void {
    const before = this.#dialed.get(connection.remoteAddress);
    const record = this.#record(connection.id, connection.type, 'dialed', connection.remoteAddress, 'connecting', {
      bigPeer,
      transport: connection.transport ?? 'WebSocket',
    });
    // The streak of failed attempts goes on until one reaches a session.
    record.failedAttempts = before?.failedAttempts;
    record.failingSince = before?.failingSince;
    this.#dialed.set(connection.remoteAddress, record);
    this.#changed();
  }

  /** A LAN dialer was dropped for good (its peer moved, or left long ago): its row goes. */
  forgetDialed(address: string): void {
    if (this.#dialed.delete(address)) this.#changed();
  }

  /** The dialer waits before its first attempt (the LAN tie-break): `reason` says what for. */
  dialDelayed(address: string, reason: string): void {
    const record = this.#dialed.get(address);
    if (record === undefined || record.state !== 'connecting') return;
    record.reason = reason;
    this.#changed();
  }

  /** The dialer does not dial the address while a session with its peer runs over another connection. */
  dialParked(address: string, reason: string): void {
    const record = this.#dialed.get(address);
    if (record === undefined) return;
    record.retryAt = undefined;
    this.#set(record, 'closed', { reason });
    this.#changed();
  }

  /** The dialer waits `delayMs` before dialing the address again. */
  retryScheduled(address: string, delayMs: number): void {
    const record = this.#dialed.get(address);
    if (record === undefined) return;
    if (record.state !== 'closed') this.#closeDialed(record, record.reason ?? 'the connection ended');
    record.retryAt = this.#timers.now() + delayMs;
    this.#changed();
  }

  /** The dialer of the address stopped (sync stopped, or the LAN peer left): it is closed, and no longer waits to redial. */
  dialStopped(address: string, reason = 'sync stopped'): void {
    const record = this.#dialed.get(address);
    if (record === undefined || (record.state === 'closed' && record.retryAt === undefined)) return;
    this.#stop(record, reason);
    this.#changed();
  }

  // --- reports from LAN discovery -----------------------------------------------------------

  /** A peer's advertisement was seen (again, or changed). */
  lanSeen(peer: Omit<LanPeer, 'present' | 'lastSeenAt'>): void {
    this.#lan.delete(peer.name); // Re-inserted: the most recently seen are kept.
    this.#lan.set(peer.name, { ...peer, present: true, lastSeenAt: this.#timers.now() });
    if (this.#lan.size > LAN_PEERS_KEPT) this.#lan.delete(this.#lan.keys().next().value as string);
    this.#changed();
  }

  /** A peer's advertisement left (goodbye or expiry). */
  lanGone(name: string): void {
    const peer = this.#lan.get(name);
    if (peer === undefined || !peer.present) return;
    this.#lan.set(name, { ...peer, present: false });
    this.#changed();
  }

  /** A transport's condition changed. */
  transportCondition(condition: TransportCondition): void {
    this.#conditions.set(condition.transport, condition);
    this.#changed();
  }

  /** A presence document was written or received: what the mesh shows of names and indirect peers changed. */
  presenceChanged(): void {
    this.#changed();
  }

  // --- reports from the replicator ----------------------------------------------------------

  /** A connection reached the replicator: its handshake runs. */
  handshaking(connection: ConnectionFacts): void {
    if (connection.dialed) {
      const record = this.#dialedById(connection.id);
      if (record === undefined) this.dialing(connection, false);
      return;
    }
    this.#accepted.set(
      connection.id,
      this.#record(connection.id, connection.type, 'accepted', connection.remoteAddress, 'connecting', {
        bigPeer: false,
        transport: connection.transport ?? 'WebSocket',
      }),
    );
    this.#trim();
    this.#changed();
  }

  /** A session started with this remote over the connection, elected or left standing by. */
  sessionStarted(connection: ConnectionFacts, remote: RemotePeer, elected: boolean): void {
    this.#peers.set(remote.peerKey, {
      peerKey: remote.peerKey,
      role: remote.role,
      appID: remote.appID,
      lastSessionAt: this.#timers.now(),
      lastSyncedAt: this.#peers.get(remote.peerKey)?.lastSyncedAt,
      userID: remote.userID,
      certificateExpiresAt: remote.expiresAt,
      deviceName: remote.deviceName,
    });
    if (this.#peers.size > PEERS_KEPT) this.#peers.delete(this.#peers.keys().next().value as string);
    const record = this.#byId(connection.id);
    if (record !== undefined) {
      record.remotePeerKey = remote.peerKey;
      record.failedAttempts = undefined;
      record.failingSince = undefined;
      this.#set(record, elected ? 'elected' : 'standby', {});
    }
    this.#changed();
  }

  /**
   * An update was exchanged with the remote (sent and acknowledged, or received and merged). Read
   * at the next snapshot: it tells no listener, as it may happen many times a second.
   */
  synced(peerKey: string): void {
    const peer = this.#peers.get(peerKey);
    if (peer !== undefined) this.#peers.set(peerKey, { ...peer, lastSyncedAt: this.#timers.now() });
  }

  /** The connection closed (its handshake was refused or failed, or its session ended). The first reason told is kept. */
  closed(connectionId: string, reason: string, refusal?: Refusal): void {
    const record = this.#byId(connectionId);
    if (record === undefined || record.state === 'closed') return;
    if (record.direction === 'dialed') this.#closeDialed(record, reason);
    else this.#set(record, 'closed', { reason });
    record.refusal = refusal;
    this.#trim();
    this.#changed();
  }

  /** Sync stopped: every connection still open is closed, every transport is stopped. */
  stopped(): void {
    let any = false;
    for (const [name, peer] of this.#lan) if (peer.present) this.#lan.set(name, { ...peer, present: false });
    for (const [transport, condition] of this.#conditions) {
      if (condition.condition === 'Ok')
        this.#conditions.set(transport, { ...condition, condition: 'Stopped', reason: 'sync is stopped', since: this.#timers.now() });
    }
    for (const record of [...this.#dialed.values(), ...this.#accepted.values()]) {
      if (record.state === 'closed' && record.retryAt === undefined) continue;
      this.#stop(record);
      any = true;
    }
    this.#trim();
    if (any) this.#changed();
  }

  /** A remote sent a new subscription set. */
  remoteSubscriptionsChanged(peerKey: string): void {
    for (const listener of [...this.#subscriptionListeners]) {
      try {
        listener(peerKey);
      } catch {
        // A listener (the inspector) must not break replication.
      }
    }
  }

  #record(
    id: string,
    type: string,
    direction: 'dialed' | 'accepted',
    address: string,
    state: TrackedState,
    extra: { reason?: string; bigPeer: boolean; transport: TransportKind },
  ): Mutable<TrackedConnection> {
    return {
      id,
      type,
      direction,
      address,
      state,
      since: this.#timers.now(),
      remotePeerKey: undefined,
      reason: extra.reason,
      retryAt: undefined,
      bigPeer: extra.bigPeer,
      transport: extra.transport,
      refusal: undefined,
      failedAttempts: undefined,
      failingSince: undefined,
    };
  }

  /** Closed for good (sync stopped, or the LAN peer left), also one that was waiting to be redialed. */
  #stop(record: Mutable<TrackedConnection>, reason = 'sync stopped'): void {
    record.retryAt = undefined;
    this.#set(record, 'closed', { reason });
  }

  /** A dialed attempt ended: one that never reached a session adds to the streak of failures. */
  #closeDialed(record: Mutable<TrackedConnection>, reason: string): void {
    if (record.state === 'connecting') {
      record.failedAttempts = (record.failedAttempts ?? 0) + 1;
      record.failingSince ??= this.#timers.now();
    }
    this.#set(record, 'closed', { reason });
  }

  #set(record: Mutable<TrackedConnection>, state: TrackedState, extra: { reason?: string }): void {
    record.state = state;
    record.since = this.#timers.now();
    record.reason = extra.reason;
  }

  #dialedById(id: string): Mutable<TrackedConnection> | undefined {
    for (const record of this.#dialed.values()) if (record.id === id) return record;
    return undefined;
  }

  #byId(id: string): Mutable<TrackedConnection> | undefined {
    return this.#accepted.get(id) ?? this.#dialedById(id);
  }

  /** Keeps the most recent closed accepted connections only. */
  #trim(): void {
    let closed = 0;
    for (const record of this.#accepted.values()) if (record.state === 'closed') closed++;
    for (const [id, record] of this.#accepted) {
      if (closed <= CLOSED_ACCEPTED_KEPT) break;
      if (record.state !== 'closed') continue;
      this.#accepted.delete(id);
      closed--;
    }
  }

  #changed(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // A listener (the inspector) must not break the dialer or the replicator.
      }
    }
  }
}
