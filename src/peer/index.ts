/**
 * The public surface of the small peer for applications (docs/api.md): the Sync and its store,
 * queries, observers, subscriptions, transactions, identities, transports, eviction settings,
 * errors and the logger. The Big Peer, the CLI and the desktop app's main process also need the
 * peer's insides (replication, storage engines, certificates, the inspector): those are in
 * `./host.ts`, which re-exports this file too.
 */
export { Sync, webSocketUrl, type SyncOptions, type SyncTransportOptions } from './sync/sync.ts';
export {
  TransportConfig,
  PEER_TO_PEER_TRANSPORTS,
  type PeerToPeerTransport,
  type PeerToPeerOptions,
  type LanOptions,
  type TransportCondition,
  type TransportConditionCode,
} from './replication/transport-config.ts';
export type { ListenOptions } from './replication/ws-listener.ts';
export {
  LAN_SERVICE_TYPE,
  type LanDiscovery,
  type LanDiscoveryFactory,
  type LanDiscoveryOptions,
  type LanSighting,
  type LanAdvertisement,
} from './lan/discovery.ts';
export { MemoryLanNetwork } from './lan/memory-discovery.ts';
export type { PresenceOptions } from './presence/presence-job.ts';
export type { PresenceRecord, PresenceLink, AppMetadata } from './presence/presence-document.ts';
export type { UploadState } from './replication/upload-watch.ts';
export type { AuthStatus } from './auth/auth-client.ts';
export {
  onlinePlayground,
  onlineWithAuthentication,
  type OnlineIdentity,
  type OnlinePlaygroundIdentity,
  type OnlineWithAuthenticationIdentity,
  type AuthenticationHandler,
  type AuthLogin,
  type LoginOutcome,
} from './auth/identity.ts';
export type { FetchLike } from './auth/login-request.ts';
export { LogHub, Logger, type LogBatch, type LogSubscription, type LogHubOptions } from './log/log-hub.ts';
export { SyncLogger } from './log/sync-logger.ts';
export { systemTimers, ManualTimers, type Timers, type TimerHandle } from './time.ts';
export type { Transaction, TransactionOptions } from './store/transaction.ts';
export type { SlotHolder, BlockedWait, WaitingWrite } from './store/write-slot.ts';
export type { SyncSubscription } from './subscriptions/subscription-set.ts';
export type { SubscriptionQuery, SubscriptionSetShape } from '../shared/subscriptions.ts';
export type { ObserverEvent, ObserverHandler, SignalNextHandler, StoreObserver } from './observers/observer-registry.ts';
export {
  Store,
  BUILT_IN_COLLECTIONS,
  isInternalCollection,
  type QueryResult,
  type StoreWithCollections,
  type CommittedTransaction,
  type ExecuteOptions,
} from './store/store.ts';
export { Budget, BudgetExceeded } from './budget.ts';
export { Collection, PendingCursorOperation, PendingIdSpecificOperation, type UpdateHelpers } from './store/collection.ts';
export {
  SyncError,
  ParseError,
  QueryEvaluationError,
  UnsupportedQueryError,
  InvalidArgumentsError,
  StoreError,
  PermissionDeniedError,
  toErrorValue,
  type SourcePosition,
} from './errors.ts';
export type { JsonObject, JsonValue } from '../shared/json.ts';
export type {
  EvictionOptions,
  EvictionStrategyConfig,
  EvictionStrategyKind,
  BigPeerStrategyConfig,
  LocalStrategyConfig,
  EvictionRun,
  EvictionOutcome,
  EvictionRefusalCode,
  EvictionDryRun,
  EvictionStatus,
  EvictionSnapshot,
} from './eviction/types.ts';
export { DRY_RUN_IDS, RUNS_KEPT } from './eviction/types.ts';
export type { EvictionCheck, EvictionOverlap, ResyncEvent } from './store/eviction-watch.ts';
export { EvictionManager } from './eviction/eviction-manager.ts';
export {
  TombstoneReaper,
  SMALL_PEER_TOMBSTONE_TTL_DAYS,
  BIG_PEER_TOMBSTONE_TTL_DAYS,
  type TombstoneOptions,
  type ReapRun,
  type ReapRefusalCode,
  type ReaperSnapshot,
} from './eviction/tombstone-reaper.ts';
export type { ReapHorizon } from './replication/resurrection-guard.ts';
