/**
 * One replication session with one remote peer, over one connection, after the handshake.
 * Both directions run at once and apart:
 * - sending: the remote tells its subscriptions and what it holds of ours (`since` per query);
 *   whenever this store changes, or the remote's subscriptions do, the session makes an update
 *   (update-builder.ts) and sends its chunks, a few ahead of the acknowledgements;
 * - receiving: chunks are merged one after another (merge-chunk.ts) and acknowledged; the last
 *   chunk's progress is saved with the peer, so that after a restart the remote sends only what
 *   is new. A malformed message closes this session only.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import type { PermissionRules } from '../../shared/permissions.ts';
import { ANNOUNCE_CLOSE_CODES } from '../../shared/protocol/announce.ts';
import {
  EVERYTHING_KEY,
  decodeSessionFrame,
  MAX_CHUNK_DOCS,
  type AckMessage,
  type ReconcileMessage,
  type ReconciledMessage,
  type SubscriptionMessage,
  type UpdateMessage,
  type WantMessage,
  type WireDocument,
  type WireReapHorizon,
} from '../../shared/protocol/messages.ts';
import type { SubscriptionSetShape } from '../../shared/subscriptions.ts';
import type { Logger } from '../log/log-hub.ts';
import type { StorageReader, StoredDocument } from '../storage/types.ts';
import { findJsonFault } from '../query/args.ts';
import type { Timers } from '../time.ts';
import type { Connection } from './connection.ts';
import { deliveryOf, type Delivery } from './delivery.ts';
import type { FrameQueue } from './frame-queue.ts';
import type { RemotePeer } from './handshake.ts';
import { compileReadRules, compileRules, compileSubscriptions, safeMatches, type CompiledRules, type CompiledSubscriptions } from './matching.ts';
import { mergeChunk, type MergeTarget } from './merge-chunk.ts';
import {
  SubscriptionTooExpensive,
  buildUpdate,
  describeIds,
  docKey,
  updateFrame,
  type BuiltChunk,
  type BuiltUpdate,
  type UpdateInput,
} from './update-builder.ts';
import type { EncodedFrame, SharedUpdate, SharedUpdates } from './shared-updates.ts';
import { progressSetting } from './progress.ts';
import { dropAbsent, planGuard, reconciledSetting, type Candidate } from './resurrection-guard.ts';
import { parseHlc } from '../crdt/hlc.ts';
import { errorMessage } from '../../shared/error-message.ts';

/** Chunks sent ahead of their acknowledgements. */
export const CHUNKS_IN_FLIGHT = 4;
/** Documents a remote may ask for by name and not yet have been sent. */
const MAX_WANTED = 10_000;
/** Echo-only commits remembered while the remote does not yet hold what came before them. */
const MAX_ECHO_TXNS = 10_000;
/** Update chunks received and not yet merged; a peer keeps at most CHUNKS_IN_FLIGHT. */
const MAX_UPDATES_QUEUED = 16;
/**
 * The close code of a session whose subscriptions cost more to match than their budget: the
 * standard "policy violation" (the reason says which collection, and the budget).
 */
export const SUBSCRIPTION_TOO_EXPENSIVE_CLOSE_CODE = 1008;

/** What a session needs of the peer it runs in. */
export interface SessionHost extends MergeTarget {
  readonly localPeerKey: string;
  readonly timers: Timers;
  /** This peer's subscription set, as sent to the remote. */
  localSubscriptions(): SubscriptionSetShape;
  /**
   * What the remote lets this peer read: its certificate's read rules (undefined: not known). A
   * session keeps the rules it started with; progress is loaded and saved with them.
   */
  localReadRules(): PermissionRules | undefined;
  /** What this peer holds of the remote's store, per query key (persisted), reached under `read`. */
  loadProgress(remotePeerKey: string, read: PermissionRules | undefined): Record<string, number>;
  /** Saves what this peer holds of the remote's store; `before` is this store's txn_id before the update was merged. */
  saveProgress(remotePeerKey: string, progress: Record<string, number>, before: number, read: PermissionRules | undefined): Promise<void>;
  lastTxnId(): number;
  /** Collections this peer holds live documents of. */
  heldCollections(): string[];
  /** Lets other work run (between pages of a large update). */
  yieldNow(): Promise<void>;
  /**
   * Documents this peer did not hold came from this remote (merged). Another remote may hold a
   * newer state of them that its updates will not bring (see `askFor`).
   */
  arrivedFrom?(remotePeerKey: string, docs: readonly (readonly [string, JsonValue])[]): void;
  /** A Big Peer's reap horizon, told to its remotes (undefined: it never reaped, or is no Big Peer). */
  reapHorizon?(): WireReapHorizon | undefined;
  /**
   * Up to which txn_id of this store the Big Peer held every change when the last session with
   * it ended (echoes of what it sent included), as saved; undefined: not known.
   */
  bigPeerHeld?(): number | undefined;
  /**
   * Where sessions of one shape share the update made after a commit (shared-updates.ts); a Big
   * Peer sets it. Undefined: each session makes its own.
   */
  readonly sharedUpdates?: SharedUpdates;
}

/** A resurrection guard under way: reconcile messages sent and not yet answered. */
interface Guard {
  readonly horizon: WireReapHorizon;
  readonly named: Map<string, Candidate>;
  readonly pending: Set<number>;
  readonly absent: Candidate[];
}

interface Outgoing {
  readonly number: number;
  readonly chunks: BuiltChunk[];
  readonly upto: number;
  readonly sinceIndex: number;
  readonly version: number;
  readonly progress: Record<string, number>;
  readonly windows: Map<string, Set<string>>;
  /** The frames of a shared update, made once for every session of its shape; undefined: framed here, chunk by chunk. */
  readonly frames: readonly EncodedFrame[] | undefined;
  sent: number;
  acked: number;
}

/** Bytes of replication frames sent and received (after the handshake), and the documents in their updates, as counted by sessions. */
export interface ReplicationTraffic {
  bytesSent: number;
  bytesReceived: number;
  /** Documents sent in update chunks, and received in update chunks taken in. */
  docsSent: number;
  docsReceived: number;
  /**
   * Update chunks received, by collection of their documents: a chunk's bytes go to its
   * collection, split by each document's encoded size when it holds several (counted as the
   * chunk arrives, before it is merged).
   */
  readonly receivedByCollection?: Map<string, CollectionTraffic>;
}

/** Bytes and documents of update chunks received for one collection. */
export interface CollectionTraffic {
  bytes: number;
  docs: number;
}

/** Adds an update chunk of `bytes` holding `docs` to `byCollection`. */
export function countReceivedUpdate(byCollection: Map<string, CollectionTraffic>, docs: readonly WireDocument[], bytes: number): void {
  if (docs.length === 0) return;
  const add = (collection: string, b: number, n: number): void => {
    const entry = byCollection.get(collection);
    if (entry === undefined) byCollection.set(collection, { bytes: b, docs: n });
    else {
      entry.bytes += b;
      entry.docs += n;
    }
  };
  const first = (docs[0] as WireDocument).collection;
  if (docs.every((d) => d.collection === first)) return add(first, bytes, docs.length);
  const sizes = new Map<string, { size: number; docs: number }>();
  let total = 0;
  for (const d of docs) {
    const size = JSON.stringify(d).length;
    total += size;
    const entry = sizes.get(d.collection) ?? { size: 0, docs: 0 };
    entry.size += size;
    entry.docs++;
    sizes.set(d.collection, entry);
  }
  for (const [collection, { size, docs: n }] of sizes) add(collection, Math.round((bytes * size) / total), n);
}

export class Session {
  readonly connection: Connection;
  readonly remote: RemotePeer;
  readonly #host: SessionHost;
  readonly #log: Logger;
  readonly #remoteWrite: CompiledRules;
  readonly #remoteRead: CompiledRules;
  #closed = false;
  /** Set the moment this side decides to close (or the close arrives): nothing more is merged or sent. */
  #stopping = false;
  #onEnd: ((code: number, reason: string) => void) | undefined;
  readonly #onRemoteSubscriptions: (() => void) | undefined;
  readonly #onRemoteHoldsChange: (() => void) | undefined;
  readonly #onSynced: (() => void) | undefined;
  /** `remoteHoldsUpTo()` as last told to `onRemoteHoldsChange`. */
  #holdsTold: number | undefined;
  readonly #traffic: ReplicationTraffic;
  /** The time matching the remote's subscription conditions may take in one update (undefined: no bound). */
  readonly #matchBudgetMs: number | undefined;
  /** The store, as chunks from this remote are merged into it: their transactions name the remote. */
  readonly #mergeTarget: MergeTarget;
  /** What the remote lets this peer read in this session (its certificate when the session began). */
  readonly readAs: PermissionRules | undefined;

  // Sending.
  #remoteSubscriptions: CompiledSubscriptions | undefined;
  #remoteSet: SubscriptionSetShape | undefined;
  #remoteVersion = 0;
  #since = new Map<string, number>();
  #wanted = new Map<string, readonly [string, JsonValue]>();
  #remoteHeld: ReadonlySet<string> = new Set();
  /** The resurrection guard under way (nothing is sent to the remote meanwhile). */
  #guard: Guard | undefined;
  /** The remote's reap horizon was looked at in this session (once is enough). */
  #guardChecked = false;
  #reconcileRounds = 0;
  /** The windows of the remote's LIMIT/OFFSET queries as last delivered. */
  #windows = new Map<string, Set<string>>();
  #dirty = false;
  /** Collections changed since the last update was made (undefined: all, as after a subscription change). */
  #scope: Set<string> | undefined = undefined;
  #busy = false;
  #current: Outgoing | undefined;
  #updates = 0;
  /** Documents stored exactly as the remote sent them, at that txn_id: not sent back. */
  readonly #echoes = new Map<string, number>();
  /** The highest txn_id an echo was ever recorded at: an update starting at or after it has no echo in it. */
  #lastEchoTxn = 0;
  /**
   * The parts of this session's shape (shared-updates.ts) fixed by its certificate and its
   * remote's subscription message; undefined when it cannot share (a windowed query).
   */
  #shapeBase: string | undefined;
  /** txn_ids of commits that stored only echoes, not yet covered by what the remote holds. */
  readonly #echoTxns = new Set<number>();

  // Receiving.
  #localVersion = 0;
  #incoming: Promise<void> = Promise.resolve();
  #incomingPending = 0;
  /** Wants were raised during the update being received: its progress is not saved. */
  #wantsInUpdate = new Set<number>();
  #receiving = { update: 0, chunk: 0 };

  constructor(options: {
    connection: Connection;
    frames: FrameQueue;
    remote: RemotePeer;
    host: SessionHost;
    logger: Logger;
    onEnd: (code: number, reason: string) => void;
    /** Told each time the remote sends its subscription set (the inspector shows it). */
    onRemoteSubscriptions?: () => void;
    /** Told each time `remoteHoldsUpTo()` changes (the Sync's wait for uploads). */
    onRemoteHoldsChange?: () => void;
    /** Told each time an update is exchanged: one sent is wholly acknowledged, or one received is wholly merged ("last synced"). */
    onSynced?: () => void;
    /** Counts the bytes of the frames this session sends and receives (the Sync's totals). */
    traffic?: ReplicationTraffic;
    /**
     * Bounds the time matching the remote's subscription conditions takes in one update sent to
     * it: past it the session closes (1008, "subscription too expensive"). Undefined: no bound.
     */
    matchBudgetMs?: number;
  }) {
    this.connection = options.connection;
    this.remote = options.remote;
    this.#host = options.host;
    this.#log = options.logger;
    this.#onEnd = options.onEnd;
    this.#onRemoteSubscriptions = options.onRemoteSubscriptions;
    this.#onRemoteHoldsChange = options.onRemoteHoldsChange;
    this.#onSynced = options.onSynced;
    this.#traffic = options.traffic ?? { bytesSent: 0, bytesReceived: 0, docsSent: 0, docsReceived: 0 };
    this.#matchBudgetMs = options.matchBudgetMs;
    this.readAs = options.host.localReadRules();
    const host = options.host;
    const hint = `replication from ${options.remote.peerKey}`;
    this.#mergeTarget = { read: (fn) => host.read(fn), observeClock: (hlc) => host.observeClock(hlc), write: (fn) => host.write(fn, hint) };
    const badRule = (collection: string, rule: string): void => {
      this.#log.warn(LOG_EVENTS.subscriptionNotServed, { remote: this.remote.peerKey, collection: `${collection} (rule ${rule} does not parse)` });
    };
    // Presence is readable by every peer of the app, whatever its rules (docs/replication.md).
    this.#remoteRead = compileReadRules(options.remote.permissions.read, badRule);
    this.#remoteWrite = compileRules(options.remote.permissions.write, badRule);
    options.frames.handoff({
      message: (text) => {
        const bytes = Buffer.byteLength(text);
        this.#traffic.bytesReceived += bytes;
        this.#receive(text, bytes);
      },
      close: (code, reason) => this.#ended(code, reason),
    });
  }

  /** The remote's subscription set, once it said it. */
  get remoteSubscriptions(): SubscriptionSetShape | undefined {
    return this.#remoteSet;
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /** Closed, or closing: either side decided to end it (its close may not have arrived yet). */
  get isEnding(): boolean {
    return this.#stopping;
  }

  /** Nothing to send, nothing in flight, nothing received left to merge (tests wait for this). */
  get isIdle(): boolean {
    return this.#closed || (!this.#busy && !this.#dirty && this.#current === undefined && this.#incomingPending === 0 && this.#guard === undefined);
  }

  /** Sends this peer's subscriptions (at start, and whenever they or what it holds change). */
  sendSubscriptions(): void {
    if (this.#stopping) return;
    this.#localVersion++;
    const progress = this.#host.loadProgress(this.remote.peerKey, this.readAs);
    const set = this.#host.localSubscriptions();
    const reaped = this.#host.reapHorizon?.();
    // Held collections matter only for notices, which a peer subscribed to everything never gets:
    // the Big Peer skips counting its store at every session start.
    const message: SubscriptionMessage = {
      type: 'subscription',
      set,
      version: this.#localVersion,
      progress,
      ...(set.everything ? {} : { held: this.#host.heldCollections().filter((c) => Object.hasOwn(set.queries, c)) }),
      ...(reaped === undefined ? {} : { reaped: { before: reaped.before, upto: reaped.upto } }),
    };
    this.#send(JSON.stringify(message));
  }

  /**
   * This store changed (a commit of these collections; undefined: anything may have): make an
   * update when the remote is ready for one.
   */
  localChanged(collections?: readonly string[]): void {
    if (collections === undefined) this.#scope = undefined;
    else if (this.#scope !== undefined) for (const c of collections) this.#scope.add(c);
    this.#dirty = true;
    this.#pump();
  }

  /**
   * Asks the remote for these documents by name (a `want`): they come in its next update, whatever
   * its subscriptions match, where it holds them and this peer may read them. Only documents of
   * collections this peer subscribes to by query are asked for: a remote serving everything sends
   * every change anyway.
   */
  askFor(docs: readonly (readonly [string, JsonValue])[]): void {
    if (this.#stopping || docs.length === 0) return;
    const set = this.#host.localSubscriptions();
    if (set.everything) return;
    const asked = docs.filter(([collection]) => Object.hasOwn(set.queries, collection));
    for (let i = 0; i < asked.length; i += MAX_WANTED) {
      this.#send(JSON.stringify({ type: 'want', docs: asked.slice(i, i + MAX_WANTED) } satisfies WantMessage));
    }
  }

  /** Did this commit only store what this remote sent, exactly? Then it has nothing to learn from it. */
  onlyEchoes(txnId: number, changes: readonly { collection: string; id: JsonValue; kind: string }[]): boolean {
    return changes.length > 0 && changes.every((c) => c.kind === 'put' && this.#echoes.get(docKey(c.collection, c.id)) === txnId);
  }

  /** Where this version of a document stands with the remote (delivery.ts); read from what the session keeps anyway. */
  deliveryOf(collection: string, doc: StoredDocument): Delivery {
    const read = this.remote.permissions.read;
    const current = this.#current;
    return deliveryOf(collection, doc, {
      subscriptions: this.#remoteSubscriptions,
      readRules: this.#remoteRead,
      ruleTexts: read.everything ? ['everything'] : (read.queries_by_collection[collection] ?? []),
      since: this.#since,
      inFlight: current === undefined || current.version !== this.#remoteVersion ? undefined : { update: current.number, progress: current.progress },
      fromRemote: this.#isEcho(collection, doc),
      windows: this.#windows,
    });
  }

  #send(text: string): void {
    this.#traffic.bytesSent += Buffer.byteLength(text);
    this.connection.send(text);
  }

  /** A frame shared with other sessions: its bytes as they are, where the transport takes bytes. */
  #sendEncoded(frame: EncodedFrame): void {
    if (this.connection.sendEncoded === undefined) return this.#send(frame.text);
    this.#traffic.bytesSent += frame.bytes.length;
    this.connection.sendEncoded(frame.bytes);
  }

  /**
   * The shape of the update about to be made (shared-updates.ts): every input of `buildUpdate`
   * that decides its frames but the store itself, as one key. Undefined when this session needs
   * an update of its own: documents asked for by name, a windowed query, an echo after its
   * starting point (`isEcho` would drop it for this session only), or no sharing on this peer.
   */
  #shareKey(since: ReadonlyMap<string, number>, wanted: number, scope: ReadonlySet<string> | undefined, upto: number, sinceIndex: number): string | undefined {
    const base = this.#shapeBase;
    if (base === undefined || this.#host.sharedUpdates === undefined || wanted > 0 || this.#lastEchoTxn > sinceIndex) return undefined;
    const looked = scope === undefined ? null : [...scope].sort();
    return `${base}\n${JSON.stringify([...since])}\n${JSON.stringify(looked)}\n${upto}`;
  }

  /**
   * Up to which txn_id of this store a remote subscribed to everything (the Big Peer) holds
   * every change: what it told at the session start, moved on by each update it acknowledged.
   * Undefined before it told, and for a remote with narrower subscriptions.
   */
  remoteHoldsUpTo(): number | undefined {
    if (this.#remoteSet?.everything !== true) return undefined;
    return this.#since.get(EVERYTHING_KEY);
  }

  #holdsMayHaveChanged(): void {
    const holds = this.remoteHoldsUpTo();
    if (holds === this.#holdsTold) return;
    this.#holdsTold = holds;
    this.#onRemoteHoldsChange?.();
  }

  close(code: number, reason: string): void {
    if (this.#stopping) return;
    this.#stopping = true;
    this.connection.close(code, reason);
  }

  #ended(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopping = true;
    const onEnd = this.#onEnd;
    this.#onEnd = undefined;
    onEnd?.(code, reason);
  }

  #malformed(reason: string): void {
    if (this.#stopping) return;
    this.#log.warn(LOG_EVENTS.messageMalformed, { remote: this.remote.peerKey, reason });
    this.#send(JSON.stringify({ type: 'error', code: 'protocol/malformed', message: reason }));
    this.close(ANNOUNCE_CLOSE_CODES.malformed, `malformed message: ${reason}`);
  }

  #receive(text: string, bytes: number): void {
    if (this.#stopping) return;
    try {
      this.#dispatch(text, bytes);
    } catch (error) {
      // Whatever a frame does, it ends at most its own session.
      this.#malformed(`the message could not be handled: ${errorMessage(error)}`);
    }
  }

  #dispatch(text: string, bytes: number): void {
    const check = decodeSessionFrame(text);
    if (!check.ok) return this.#malformed(check.reason);
    const message = check.value;
    switch (message.type) {
      case 'subscription':
        return this.#remoteSubscribed(message);
      case 'update':
        if (this.#incomingPending >= MAX_UPDATES_QUEUED) {
          return this.#malformed(`more than ${MAX_UPDATES_QUEUED} update chunks ahead of their acknowledgements`);
        }
        if (this.#traffic.receivedByCollection !== undefined) countReceivedUpdate(this.#traffic.receivedByCollection, message.docs, bytes);
        this.#incomingPending++;
        this.#incoming = this.#incoming
          .then(() => this.#merge(message))
          .catch((error: unknown) => this.#failed(error))
          .finally(() => this.#incomingPending--);
        return;
      case 'want':
        return this.#remoteWants(message);
      case 'reconcile':
        return this.#answerReconcile(message);
      case 'reconciled':
        return this.#reconciled(message);
      case 'ack':
        return this.#acked(message);
      case 'error':
        this.#log.warn(LOG_EVENTS.remoteError, { remote: this.remote.peerKey, code: message.code, message: message.message });
        return;
    }
  }

  #failed(error: unknown): void {
    if (error instanceof SubscriptionTooExpensive) {
      if (this.#stopping) return;
      this.#log.warn(LOG_EVENTS.subscriptionTooExpensive, {
        remote: this.remote.peerKey,
        collection: error.collection,
        budget_ms: error.budgetMs,
        documents: error.documents,
      });
      this.#send(JSON.stringify({ type: 'error', code: 'query/timeout', message: error.message }));
      this.close(SUBSCRIPTION_TOO_EXPENSIVE_CLOSE_CODE, closeReasonOf(error.message));
      return;
    }
    const text = errorMessage(error);
    this.#log.error(LOG_EVENTS.replicationFailed, { remote: this.remote.peerKey, error: text });
    this.close(1011, `replication failed: ${text}`.slice(0, 100));
  }

  // --- sending ---------------------------------------------------------------------------

  #remoteSubscribed(message: SubscriptionMessage): void {
    let compiled: CompiledSubscriptions;
    try {
      compiled = compileSubscriptions(message.set);
    } catch (error) {
      return this.#malformed(`a subscription does not parse: ${errorMessage(error)}`);
    }
    this.#remoteSubscriptions = compiled;
    this.#remoteSet = message.set;
    this.#remoteVersion = message.version;
    this.#since = new Map(compiled.keys.map((key) => [key, message.progress[key] ?? 0]));
    // The remote may have dropped documents (an EVICT) it once had from us or sent us: what
    // it sent is no longer an echo to suppress.
    this.#echoes.clear();
    this.#windows.clear();
    this.#scope = undefined;
    this.#remoteHeld = new Set(message.held ?? []);
    this.#shapeBase = [...compiled.byCollection.values()].some((queries) => queries.some((q) => q.windowed))
      ? undefined
      : JSON.stringify([message.set, message.version, this.remote.permissions.read, [...this.#remoteHeld].sort(), this.#matchBudgetMs ?? null]);
    this.#dirty = true;
    if (message.reaped !== undefined && this.remote.role === 'big-peer' && !this.#guardChecked) {
      this.#guardChecked = true;
      this.#startGuard(message.reaped);
    }
    this.#pump();
    this.#onRemoteSubscriptions?.();
    this.#holdsMayHaveChanged();
  }

  #remoteWants(message: WantMessage): void {
    for (const [collection, id] of message.docs) {
      if (this.#wanted.size >= MAX_WANTED) break;
      this.#wanted.set(docKey(collection, id), [collection, id]);
    }
    this.#dirty = true;
    this.#pump();
  }

  #isEcho = (collection: string, doc: StoredDocument): boolean => this.#echoes.get(docKey(collection, doc.id)) === doc.txnId;

  // --- the resurrection guard (resurrection-guard.ts) -------------------------------------

  /** Names, to a Big Peer whose reap horizon is past this peer's progress, the documents it would drop. */
  #startGuard(horizon: WireReapHorizon): void {
    const plan = this.#host.read((reader) =>
      planGuard(reader, {
        local: compileSubscriptions(this.#host.localSubscriptions()),
        progress: this.#host.loadProgress(this.remote.peerKey, this.readAs),
        horizon,
        // What the Big Peer says it holds of this store counts only what was uploaded; what it sent
        // here (echoes) it held too, as the last session with it knew.
        remoteHolds: Math.max(this.remoteHoldsUpTo() ?? 0, this.#host.bigPeerHeld?.() ?? 0),
        remotePeerKey: this.remote.peerKey,
      }),
    );
    if (plan === undefined) return;
    const guard: Guard = { horizon, named: new Map(plan.candidates.map((c) => [docKey(c.collection, c.id), c])), pending: new Set(), absent: [] };
    this.#guard = guard;
    for (let i = 0; i < plan.candidates.length; i += MAX_CHUNK_DOCS) {
      const round = ++this.#reconcileRounds;
      guard.pending.add(round);
      const docs = plan.candidates.slice(i, i + MAX_CHUNK_DOCS).map((c) => [c.collection, c.id] as const);
      this.#send(JSON.stringify({ type: 'reconcile', round, docs } satisfies ReconcileMessage));
    }
    if (guard.pending.size === 0) this.#finishGuard(guard);
  }

  /** The remote names documents it would drop: say which of them this peer holds neither live nor as a tombstone. */
  #answerReconcile(message: ReconcileMessage): void {
    const absent = this.#host.read((reader) => message.docs.filter(([collection, id]) => reader.get(collection, id) === undefined));
    this.#send(JSON.stringify({ type: 'reconciled', round: message.round, absent } satisfies ReconciledMessage));
  }

  #reconciled(message: ReconciledMessage): void {
    const guard = this.#guard;
    if (guard === undefined || !guard.pending.delete(message.round)) return this.#malformed(`an answer to reconcile round ${message.round} that was not asked`);
    for (const [collection, id] of message.absent) {
      const named = guard.named.get(docKey(collection, id));
      if (named !== undefined) guard.absent.push(named);
    }
    if (guard.pending.size === 0) this.#finishGuard(guard);
  }

  /** Drops what the remote no longer holds, keeps the progress with it, records the reconcile; then sending starts. */
  #finishGuard(guard: Guard): void {
    const remote = this.remote.peerKey;
    void this.#host
      .write((w) => {
        const dropped = guard.absent.length === 0 ? new Map<string, number>() : dropAbsent(w.writer, guard.absent);
        // Saved as of this commit: the drop is an EVICT, which would otherwise make the remote send the collection again.
        if (dropped.size > 0) w.writer.setSetting(...progressSetting(remote, this.#host.loadProgress(remote, this.readAs), w.txnId, this.readAs));
        w.writer.setSetting(...reconciledSetting(remote, guard.horizon.upto));
        return dropped;
      })
      .then(({ result: dropped, txnId }) => {
        const count = [...dropped.values()].reduce((a, b) => a + b, 0);
        const fields = {
          remote,
          horizon: new Date(parseHlc(guard.horizon.before).ms).toISOString(),
          horizon_txn_id: guard.horizon.upto,
          named: guard.named.size,
          dropped: count,
          collections: count === 0 ? 'none' : [...dropped].map(([c, n]) => `${c}: ${n}`).join(', '),
          txn_id: txnId,
        };
        if (count > 0) this.#log.warn(LOG_EVENTS.reapedDocumentsDropped, fields);
        else this.#log.info(LOG_EVENTS.reapedDocumentsDropped, fields);
        if (this.#guard === guard) this.#guard = undefined;
        this.#dirty = true;
        this.#pump();
      })
      .catch((error: unknown) => this.#failed(error));
  }

  /** Makes and sends updates while there is something to send and nothing in flight. */
  #pump(): void {
    if (this.#guard !== undefined) return;
    if (this.#busy || this.#current !== undefined || !this.#dirty || this.#stopping || this.#remoteSubscriptions === undefined) return;
    this.#busy = true;
    this.#dirty = false;
    this.#createUpdate()
      .catch((error: unknown) => this.#failed(error))
      .finally(() => {
        this.#busy = false;
        this.#pump();
      });
  }

  async #createUpdate(): Promise<void> {
    const host = this.#host;
    const subscriptions = this.#remoteSubscriptions as CompiledSubscriptions;
    const version = this.#remoteVersion;
    const since = new Map(this.#since);
    const wanted = this.#wanted;
    this.#wanted = new Map();
    const scope = this.#scope;
    this.#scope = new Set();
    const started = performance.now();
    this.#log.debug(LOG_EVENTS.updateCreating, { sending_update_path: `${host.localPeerKey}/${this.remote.peerKey}/sending_update` });
    const upto = host.lastTxnId();
    const input: UpdateInput = {
      read: <T>(fn: (r: StorageReader) => T) => host.read(fn),
      subscriptions,
      readRules: this.#remoteRead,
      since: (key) => since.get(key) ?? 0,
      upto,
      wanted,
      scope,
      heldByRemote: this.#remoteHeld,
      previousWindow: (key) => this.#windows.get(key),
      isEcho: this.#isEcho,
      yieldNow: () => host.yieldNow(),
      ...(this.#matchBudgetMs === undefined ? {} : { matchBudgetMs: this.#matchBudgetMs }),
    };
    const sinceIndex = Math.min(...subscriptions.keys.map((k) => since.get(k) ?? 0));
    const shareKey = this.#shareKey(since, wanted.size, scope, upto, sinceIndex);
    let shared: SharedUpdate | undefined;
    let built: BuiltUpdate;
    if (shareKey === undefined || host.sharedUpdates === undefined) built = await buildUpdate(input);
    else {
      // Whichever session of the shape builds it, no document in it is an echo (#shareKey).
      const build = (): Promise<BuiltUpdate> => buildUpdate({ ...input, isEcho: () => false });
      const frames = (made: BuiltUpdate, number: number): string[] =>
        made.chunks.map((_, i) => updateFrame({ number, sinceIndex, upto, version, progress: made.progress }, made.chunks, i));
      shared = await host.sharedUpdates.join(shareKey, upto, this.#updates, build, frames);
      built = shared.built;
    }
    if (this.#stopping) return;
    for (const collection of built.unreadable) this.#log.warn(LOG_EVENTS.subscriptionNotServed, { remote: this.remote.peerKey, collection });
    for (const [collection, id] of built.tooLarge)
      this.#log.error(LOG_EVENTS.documentTooLarge, { remote: this.remote.peerKey, collection, id: JSON.stringify(id) });
    const created = built.chunks.length > 0;
    this.#log.debug(LOG_EVENTS.updateCreated, {
      since_index: upto,
      new_update_created: created,
      num_docs: built.numDocs,
      elapsed: formatElapsed(performance.now() - started),
    });
    if (!created) {
      // Nothing the remote asked for changed: it holds everything up to `upto` already.
      if (version === this.#remoteVersion) this.#delivered(built.progress, built.windows);
      if (!this.#dirty) this.#log.debug(LOG_EVENTS.noMessageToSend);
      return;
    }
    const number = shared === undefined ? this.#updates + 1 : shared.number;
    // VERBOSE, not DEBUG: spec 3.5's DEBUG lines of a local write follow each other exactly.
    if (this.#log.isEnabled('VERBOSE')) {
      this.#log.verbose(LOG_EVENTS.updateDocuments, {
        remote: this.remote.peerKey,
        update: number,
        num_docs: built.numDocs,
        ids: describeIds(built.sample, built.numDocs),
      });
    }
    this.#updates = number;
    this.#current = {
      number,
      chunks: built.chunks,
      upto,
      sinceIndex,
      version,
      progress: built.progress,
      windows: built.windows,
      frames: shared?.frames,
      sent: 0,
      acked: 0,
    };
    this.#sendChunks();
  }

  #sendChunks(): void {
    const current = this.#current;
    if (current === undefined || this.#stopping) return;
    while (current.sent < current.chunks.length && current.sent - current.acked < CHUNKS_IN_FLIGHT) {
      const index = current.sent++;
      const frame = current.frames?.[index];
      if (frame !== undefined) this.#sendEncoded(frame);
      else this.#send(updateFrame(current, current.chunks, index));
      this.#traffic.docsSent += current.chunks[index]?.docs ?? 0;
    }
  }

  /** The remote holds everything of the update now. */
  #delivered(progress: Record<string, number>, windows: Map<string, Set<string>>): void {
    for (const [key, value] of Object.entries(progress)) this.#since.set(key, Math.max(value, this.#since.get(key) ?? 0));
    for (const [key, ids] of windows) this.#windows.set(key, ids);
    this.#advanceOverEchoes();
    this.#holdsMayHaveChanged();
  }

  /**
   * A commit that stored only what this remote sent, exactly (no update is made for it): the
   * remote holds it. Once the remote holds everything before it, it holds everything up to it,
   * so what it holds (`remoteHoldsUpTo`) keeps up with documents that came from it.
   */
  echoCommitted(txnId: number): void {
    if (this.#echoTxns.size >= MAX_ECHO_TXNS) this.#echoTxns.clear(); // A bound: forgetting only makes eviction wait.
    this.#echoTxns.add(txnId);
    this.#advanceOverEchoes();
    this.#holdsMayHaveChanged();
  }

  #advanceOverEchoes(): void {
    if (this.#echoTxns.size === 0) return;
    let lowest = Number.POSITIVE_INFINITY;
    for (const [key, held] of this.#since) {
      let value = held;
      while (this.#echoTxns.has(value + 1)) value++;
      if (value !== held) this.#since.set(key, value);
      lowest = Math.min(lowest, value);
    }
    for (const txnId of this.#echoTxns) if (txnId <= lowest) this.#echoTxns.delete(txnId);
  }

  #acked(message: AckMessage): void {
    const current = this.#current;
    if (current === undefined || message.update !== current.number || message.chunk !== current.acked + 1 || message.chunk > current.sent) {
      return this.#malformed(`an acknowledgement of update ${message.update} chunk ${message.chunk} that was not expected`);
    }
    current.acked++;
    if (current.acked < current.chunks.length) return this.#sendChunks();
    this.#current = undefined;
    // The remote holds everything up to `upto` now, unless its subscriptions changed meanwhile.
    if (current.version === this.#remoteVersion) this.#delivered(current.progress, current.windows);
    this.#onSynced?.();
    this.#log.debug(LOG_EVENTS.updateDelivered);
    if (!this.#dirty) this.#log.debug(LOG_EVENTS.noMessageToSend);
    this.#pump();
  }

  // --- receiving -------------------------------------------------------------------------

  /** Does this peer hold the document, or do its subscriptions now match it? */
  #stillWanted(): (reader: StorageReader, doc: WireDocument) => boolean {
    const local = compileSubscriptions(this.#host.localSubscriptions());
    return (reader, doc) => {
      if (local.everything || reader.get(doc.collection, doc.id) !== undefined) return true;
      const queries = local.byCollection.get(doc.collection) ?? [];
      return doc.value !== null && queries.some((q) => safeMatches(q.where, doc.value as JsonObject));
    };
  }

  async #merge(message: UpdateMessage): Promise<void> {
    if (this.#stopping) return;
    const before = this.#host.lastTxnId();
    for (const doc of message.docs) {
      const fault = doc.value === null ? undefined : findJsonFault(doc.value);
      if (fault !== undefined)
        return this.#malformed(`document ${JSON.stringify(doc.id)} of ${doc.collection}: ${fault.problem} at ${fault.path || 'the top'}`);
    }
    // Chunks come in order: 1, 2, … of one update, then the next update.
    const expected = this.#receiving;
    const inOrder = message.chunk === 1 ? message.update > expected.update : message.update === expected.update && message.chunk === expected.chunk + 1;
    if (!inOrder) return this.#malformed(`update ${message.update} chunk ${message.chunk} out of order`);
    this.#receiving = { update: message.update, chunk: message.chunk };
    this.#traffic.docsReceived += message.docs.length;
    // An update made for subscriptions this peer no longer has (it changed them meanwhile, as
    // around an EVICT) may bring only what this peer holds or still subscribes to; and none may
    // bring back what an EVICT removed while the chunk waited for the write slot.
    const wanted = { test: this.#stillWanted(), always: message.subscription_version !== this.#localVersion };
    if (this.#echoes.size > 200_000) this.#echoes.clear(); // A bound: forgetting only costs an echo.
    const outcome = await mergeChunk(
      this.#mergeTarget,
      message.docs,
      this.#remoteWrite,
      (key, txnId) => {
        if (txnId === undefined) this.#echoes.delete(key);
        else {
          this.#echoes.set(key, txnId);
          this.#lastEchoTxn = Math.max(this.#lastEchoTxn, txnId);
        }
      },
      wanted,
    );
    if (outcome.arrived.length > 0) this.#host.arrivedFrom?.(this.remote.peerKey, outcome.arrived);
    if (this.#stopping) return; // Merged and committed; the session ends here: no progress, no ack.
    if (outcome.refused.length > 0) {
      const byCollection = new Map<string, JsonValue[]>();
      for (const r of outcome.refused) byCollection.set(r.collection, [...(byCollection.get(r.collection) ?? []), r.id]);
      for (const [collection, ids] of byCollection) {
        this.#log.warn(LOG_EVENTS.writesRefused, { remote: this.remote.peerKey, collection, count: ids.length, ids: JSON.stringify(ids.slice(0, 10)) });
      }
    }
    this.#log.debug(LOG_EVENTS.chunkMerged, {
      remote: this.remote.peerKey,
      update: message.update,
      chunk: message.chunk,
      docs: message.docs.length,
      merged: outcome.merged,
      refused: outcome.refused.length,
      txn_id: outcome.txnId ?? null,
      ids: describeIds(
        message.docs.slice(0, 5).map((d) => [d.collection, d.id] as const),
        message.docs.length,
      ),
    });
    // Documents that left the subscriptions: ask for those this peer holds.
    if (message.notices !== undefined && message.notices.length > 0) {
      const notices = message.notices;
      const held = this.#host.read((r) => notices.filter(([collection, id]) => r.get(collection, id)?.value != null));
      if (held.length > 0) {
        this.#wantsInUpdate.add(message.update);
        this.#send(JSON.stringify({ type: 'want', docs: held } satisfies WantMessage));
      }
    }
    if (message.progress !== undefined) {
      const raisedWants = this.#wantsInUpdate.delete(message.update);
      // Progress only for the subscriptions it was made for, and not while documents are still asked for.
      if (message.subscription_version === this.#localVersion && !raisedWants) {
        await this.#host.saveProgress(this.remote.peerKey, message.progress, before, this.readAs);
      }
    }
    if (this.#stopping) return;
    const ack: AckMessage = { type: 'ack', update: message.update, chunk: message.chunk, merged: outcome.merged, refused: outcome.refused.length };
    this.#send(JSON.stringify(ack));
    if (message.progress !== undefined) this.#onSynced?.();
  }
}

/** A WebSocket close reason: at most 123 bytes of UTF-8. */
function closeReasonOf(text: string): string {
  if (Buffer.byteLength(text) <= 123) return text;
  let cut = text;
  while (Buffer.byteLength(`${cut}…`) > 123) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** A duration as the update line shows it: `1.234ms`. */
export function formatElapsed(ms: number): string {
  return `${ms.toFixed(3)}ms`;
}
