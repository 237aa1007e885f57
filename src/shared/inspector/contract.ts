/**
 * The inspector contract: every call the renderer may make of its peer (`domain:verb`) and every
 * event the peer pushes. Two bridges carry it unchanged: Electron IPC (`src/main` and
 * `src/preload`) and a WebSocket (`syncmesh inspect`, `src/cli`). Calls answer a `CallResult`:
 * errors are values `{ code, message, details? }`, never thrown across a bridge.
 */
import type { JsonObject } from '../json.ts';
import type { LogLevel } from '../log.ts';
import type { DocumentMetadata, DocumentRef, QueryInput, QueryOutcome, RowsInput, RowsPage, WindowInput } from './documents.ts';
import type {
  EvictionDryRunInfo,
  EvictionDryRunInput,
  EvictionMark,
  EvictionFixStrategyInput,
  EvictionFixStrategyResult,
  EvictionNarrowInput,
  EvictionNarrowResult,
  EvictionRunInfo,
  EvictionRunInput,
  EvictionSample,
  EvictionScenarioCycleEvent,
  EvictionScenarioInput,
  EvictionScenarioResult,
  EvictionState,
} from './eviction.ts';
import type { LogBatchEvent, LogsSnapshot } from './logs.ts';
import type { MeshSnapshot } from './mesh.ts';
import type { OverviewSnapshot } from './overview.ts';
import type { AccessReport, CheckAccessInput, PermissionsSnapshot } from './permissions.ts';
import type { CallResult } from './result.ts';
import type { RemotePeersApi } from './remote-peers.ts';
import type { LocalSubscription, RegisterSubscriptionInput, SubscriptionsSnapshot } from './subscriptions.ts';
import type { BlockedWaitEntry, HoldInput, TransactionEntry, TransactionsSnapshot, WriteSlotState } from './transactions.ts';
import type { DocumentTrace } from './trace.ts';
import type { InspectorPrefs } from './prefs.ts';

type Empty = Record<string, never>;

/** Calls: channel → input and output. */
export interface InspectorCalls {
  /** Identity, sync state, Big Peer link and auth, counts, store size. */
  'overview:get': { input: Empty; output: OverviewSnapshot };
  /** Starts sync (`sync.startSync()`); answers the new overview. */
  'sync:start': { input: Empty; output: OverviewSnapshot };
  /** Stops sync; answers the new overview. */
  'sync:stop': { input: Empty; output: OverviewSnapshot };

  /** Runs one DQL statement as the user (`sync.store.execute`). */
  'documents:query': { input: QueryInput; output: QueryOutcome };
  /** A page of a SELECT's result. */
  'documents:rows': { input: RowsInput; output: RowsPage };
  /** A truncated result's next or previous window: its statement run again (a read), kept as a new result. */
  'documents:window': { input: WindowInput; output: QueryOutcome };
  /** One document with its per-field merge metadata (also a tombstone). */
  'documents:metadata': { input: DocumentRef; output: DocumentMetadata };
  /** The inspector page's preferences kept with the peer (prefs.ts). */
  'prefs:get': { input: Empty; output: InspectorPrefs };
  /** Replaces them; at most MAX_PREFS_BYTES of JSON. */
  'prefs:set': { input: { readonly prefs: JsonObject }; output: Empty };
  /** Where this peer's version of a document stands with each remote, and why (trace.ts). */
  'documents:trace': { input: DocumentRef; output: DocumentTrace };

  'subscriptions:list': { input: Empty; output: SubscriptionsSnapshot };
  /** `sync.store.registerSubscription(statement, args)`. */
  'subscriptions:register': { input: RegisterSubscriptionInput; output: LocalSubscription };
  /** Cancels an application subscription by id. */
  'subscriptions:cancel': { input: { readonly id: number }; output: Empty };

  'permissions:list': { input: Empty; output: PermissionsSnapshot };
  /** For one document: may each peer (local first, then each connected one) read and write it, and why. */
  'permissions:check': { input: CheckAccessInput; output: AccessReport };

  /** Recent commits and blocked waits, and the write slot now. */
  'transactions:list': { input: Empty; output: TransactionsSnapshot };
  /** The write slot now (cheap enough to poll). */
  'transactions:slot': { input: Empty; output: WriteSlotState };
  /**
   * Holds the write slot as a `User` transaction that writes nothing, for `ms`: a QA tool to
   * reproduce blocked writes. Answers once the slot is held. The hold belongs to this session:
   * at most one at a time (a second is refused with `inspector/bad-request`), and it ends when
   * its time is up, on `transactions:release`, or when the session closes.
   */
  'transactions:hold': { input: HoldInput; output: { readonly txnId: number } };
  /**
   * Ends this session's hold (running, or still waiting for the slot). `released` is false when
   * the session had none. A running hold has committed its empty transaction when this answers.
   */
  'transactions:release': { input: Empty; output: { readonly released: boolean } };

  'mesh:get': { input: Empty; output: MeshSnapshot };

  /** Recent entries and the minimum level; live entries follow as `logs:batch` events. */
  'logs:recent': { input: Empty; output: LogsSnapshot };
  /** Sets the peer's minimum log level (`SyncLogger.minimumLogLevel`). */
  'logs:set-level': { input: { readonly level: LogLevel }; output: Empty };

  /** Each collection's strategy and schedule, the runs, the chart so far, the scenario under way. */
  'eviction:get': { input: Empty; output: EvictionState };
  /** What the next run of a collection would evict, keep and bring back, without running it. */
  'eviction:dry-run': { input: EvictionDryRunInput; output: EvictionDryRunInfo };
  /** Runs a collection's strategy now; a refusal is a run with outcome `refused` and its code, not an error. */
  'eviction:run': { input: EvictionRunInput; output: EvictionRunInfo };
  /**
   * The fix of an overlap, one click away: registers the dry run's narrowed form of an
   * application subscription that overlaps what the collection's strategy evicts, then cancels
   * the subscription (`inspector/not-found` when it does not overlap now).
   */
  'eviction:narrow-subscription': { input: EvictionNarrowInput; output: EvictionNarrowResult };
  /**
   * The fix of a local strategy whose own EVICT and subscription conditions overlap, one click
   * away: the running peer's strategy gets the dry run's suggested `subscribeWhere` (its
   * configuration elsewhere is not changed: until a restart). `inspector/not-found` when the
   * strategy does not overlap so now; `inspector/conflict` when the fix would not end the overlap
   * (nothing is changed).
   */
  'eviction:fix-strategy': { input: EvictionFixStrategyInput; output: EvictionFixStrategyResult };
  /**
   * Runs the evict/re-sync scenario on this peer (the wrong way, then the right way), pushing a
   * row per cycle as `eviction:scenario-cycle`; answers the report when done. One at a time per
   * peer (a second is `scenario/busy`); ended with `inspector/cancelled` when the session closes.
   */
  'eviction:scenario': { input: EvictionScenarioInput; output: EvictionScenarioResult };
  /**
   * Cancels the scenario under way, from any window: answers once it has stopped and the peer is
   * put back (`cancelled: false` when none ran); its own call then answers `scenario/cancelled`.
   */
  'eviction:scenario-cancel': { input: Empty; output: { readonly cancelled: boolean } };
}

/** Events the peer pushes: name → payload. */
export interface InspectorEvents {
  /** New log entries, batched. */
  'logs:batch': LogBatchEvent;
  /** A write transaction committed. */
  'transactions:committed': TransactionEntry;
  /** A writer that waited for the slot got it. */
  'transactions:waited': BlockedWaitEntry;
  /** A commit changed these collections (documents, counts and subscriptions may need a refresh). */
  'store:changed': { readonly txnId: number; readonly collections: readonly string[] };
  /** Subscriptions were registered or cancelled, here or by a remote. */
  'subscriptions:changed': Empty;
  /** A connection or session changed. */
  'mesh:changed': MeshSnapshot;
  /** One point of the eviction chart (every second). */
  'eviction:sample': EvictionSample;
  /** An eviction or a re-sync, for the chart. */
  'eviction:mark': EvictionMark;
  /** A row of the scenario under way. */
  'eviction:scenario-cycle': EvictionScenarioCycleEvent;
  /** A strategy ran, or a scenario started or ended: `eviction:get` has changed. */
  'eviction:changed': Empty;
}

export type CallName = keyof InspectorCalls;
export type EventName = keyof InspectorEvents;
export type CallInput<C extends CallName> = InspectorCalls[C]['input'];
export type CallOutput<C extends CallName> = InspectorCalls[C]['output'];
export type EventPayload<E extends EventName> = InspectorEvents[E];

/** Every call name, for bridges to check what arrives. */
export const CALL_NAMES = [
  'overview:get',
  'sync:start',
  'sync:stop',
  'documents:query',
  'documents:rows',
  'documents:window',
  'documents:metadata',
  'documents:trace',
  'prefs:get',
  'prefs:set',
  'subscriptions:list',
  'subscriptions:register',
  'subscriptions:cancel',
  'permissions:list',
  'permissions:check',
  'transactions:list',
  'transactions:slot',
  'transactions:hold',
  'transactions:release',
  'mesh:get',
  'logs:recent',
  'logs:set-level',
  'eviction:get',
  'eviction:dry-run',
  'eviction:run',
  'eviction:narrow-subscription',
  'eviction:fix-strategy',
  'eviction:scenario',
  'eviction:scenario-cancel',
] as const satisfies readonly CallName[];

/** Every event name. */
export const EVENT_NAMES = [
  'logs:batch',
  'transactions:committed',
  'transactions:waited',
  'store:changed',
  'subscriptions:changed',
  'mesh:changed',
  'eviction:sample',
  'eviction:mark',
  'eviction:scenario-cycle',
  'eviction:changed',
] as const satisfies readonly EventName[];

// Both lists name every member of their map (checked at compile time).
type Missing<All, Listed> = Exclude<All, Listed>;
const _allCalls: Missing<CallName, (typeof CALL_NAMES)[number]> extends never ? true : never = true;
const _allEvents: Missing<EventName, (typeof EVENT_NAMES)[number]> extends never ? true : never = true;
void _allCalls;
void _allEvents;

export function isCallName(value: unknown): value is CallName {
  return typeof value === 'string' && (CALL_NAMES as readonly string[]).includes(value);
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && (EVENT_NAMES as readonly string[]).includes(value);
}

/**
 * What the renderer holds: the one way it reaches the peer. The preload exposes exactly this on
 * `window.syncmesh.inspector`; in a browser, the WebSocket client implements it.
 */
export interface InspectorBridge {
  call<C extends CallName>(channel: C, input: CallInput<C>): Promise<CallResult<CallOutput<C>>>;
  /** Listens to an event; returns the function that stops listening. */
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

/** Versions the desktop app reports about itself. */
export interface DesktopVersions {
  readonly app: string;
  readonly electron: string;
  readonly chrome: string;
  readonly node: string;
}

/** What `src/preload` exposes on `window.syncmesh` in the Electron window (absent in a browser). */
export interface DesktopApi {
  readonly versions: DesktopVersions;
  readonly inspector: InspectorBridge;
  /** "Connect to a running peer": other peers' inspectors in windows of their own, remembered. */
  readonly peers: RemotePeersApi;
}

/**
 * The peer side: what a bridge serves. Handlers take input as it arrived (unknown: each checks
 * its own) and throw typed errors (`SyncError`), which the bridge turns into values.
 */
export type InspectorHandlers = { readonly [C in CallName]: (input: unknown) => Promise<CallOutput<C>> };

/** One connected inspector (a window, a browser tab): its handlers and its events. */
export interface InspectorSession {
  readonly handlers: InspectorHandlers;
  /** Pushes every event of this session to `send` until `close()`. */
  onEvent(send: <E extends EventName>(event: E, payload: EventPayload<E>) => void): void;
  /**
   * Stops events and frees what this session holds (query results, its log subscription, its
   * write-slot hold). Afterwards every call answers `inspector/closed` and runs nothing.
   */
  close(): void;
}

/** Frames of the WebSocket bridge (JSON text, one per message). */
export type BridgeClientFrame = { readonly type: 'call'; readonly id: number; readonly channel: CallName; readonly input: unknown };
export type BridgeServerFrame =
  | { readonly type: 'result'; readonly id: number; readonly result: CallResult<unknown> }
  | { readonly type: 'event'; readonly event: EventName; readonly payload: unknown };

/** Reads a frame the browser sent; undefined for anything else. Never throws. */
export function decodeClientFrame(text: string): BridgeClientFrame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const frame = value as Record<string, unknown>;
  if (frame['type'] !== 'call' || !Number.isSafeInteger(frame['id']) || !isCallName(frame['channel'])) return undefined;
  return { type: 'call', id: frame['id'] as number, channel: frame['channel'], input: Object.hasOwn(frame, 'input') ? frame['input'] : {} };
}

/** Arguments a statement takes, re-exported for the renderer's console. */
export type StatementArgs = JsonObject;
