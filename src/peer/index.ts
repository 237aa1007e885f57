/**
 * The public surface of the small peer. Everything outside `src/peer` (the Big Peer, the CLI, the
 * Electron main process) imports from here only.
 */
export { Sync, webSocketUrl, type SyncOptions, type SyncTransportOptions } from './sync.ts';
export {
  TransportConfig,
  PEER_TO_PEER_TRANSPORTS,
  type PeerToPeerTransport,
  type PeerToPeerOptions,
  type LanOptions,
  type TransportCondition,
  type TransportConditionCode,
} from './transport-config.ts';
export { LAN_SERVICE_TYPE, type LanDiscovery, type LanDiscoveryFactory, type LanDiscoveryOptions, type LanSighting, type LanAdvertisement } from './lan/discovery.ts';
export { BonjourDiscovery } from './lan/bonjour-discovery.ts';
export { MemoryLanNetwork } from './lan/memory-discovery.ts';
export { Replicator, type SessionInfo, type ReplicatorOptions } from './replication/replicator.ts';
export { Session } from './replication/session.ts';
export type { UploadState } from './replication/upload-watch.ts';
export { SessionRefused, acceptHandshake, dialHandshake, type LocalCredentials, type RemotePeer } from './replication/handshake.ts';
export type { Connection, ConnectionType, ConnectionEvents } from './replication/connection.ts';
export { memoryConnectionPair } from './replication/memory-transport.ts';
export { WsConnection, closeReason } from './replication/ws-connection.ts';
export { AuthClient, type AuthStatus } from './auth/auth-client.ts';
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
export type { Transaction, TransactionOptions } from './txn/transaction.ts';
export type { SlotHolder, BlockedWait, WaitingWrite } from './txn/write-slot.ts';
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
export type { MutationTargets } from './store/targets.ts';
export { QueryThreads, QueryThreadsUnavailable, QUERY_THREAD_GRACE_MS, type SelectAnswer, type TargetsAnswer } from './store/query-threads.ts';
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
export { SqliteStorage } from './storage/sqlite-storage.ts';
export { MemoryStorage } from './storage/memory-storage.ts';
export type {
  StorageEngine,
  StorageReader,
  StorageWriter,
  StoredDocument,
  DocumentQuery,
  ChangeQuery,
  ChangePage,
  ChangeCursor,
  ClockState,
  CollectionInfo,
  ReadTransaction,
  WriteTransaction,
  Savepoint,
  ExternalCommit,
} from './storage/types.ts';
/** For storage engines of the apps (the Big Peer's PostgreSQL): the reference evaluator over rows, and the order-preserving key of `_id`. */
export { runQuery } from './storage/js-query.ts';
export { writeThrough } from './storage/write-through.ts';
export { sortKey } from './dql/sort-key.ts';
export type { DocumentMeta } from './crdt/document-meta.ts';
export { assertSupportedNode } from './storage/node-version.ts';
export { parseStatement } from './dql/parser.ts';
export { LOGIN_PROOF_WINDOW_MS, announceProofText, loginProofText, peerKeyObject, signProof, verifyProof } from './auth/proof.ts';
/** Parses and checks a statement through the store's statement cache (what `execute` runs first). */
export { prepare as prepareStatement, type PreparedStatement } from './store/prepare.ts';
export {
  signCertificate,
  verifyCertificate,
  readClaims,
  generateIssuerKeys,
  CertificateError,
  type IssuerKeys,
  type CertificateFault,
} from './auth/certificate.ts';
export type { JsonObject, JsonValue } from '../shared/json.ts';
export { EvictionManager, type EvictionHost, type ManagerRunOptions } from './eviction/eviction-manager.ts';
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
export type { EvictionCheck, EvictionOverlap, ResyncEvent } from './eviction/eviction-watch.ts';
export { conditionsOverlap, type OverlapVerdict } from './eviction/query-overlap.ts';
export { parseWindow, DEFAULT_WINDOW } from './eviction/schedule.ts';
export {
  runEvictLoopScenario,
  formatCycleLine,
  formatBytes,
  EVICT_LOOP_COLLECTION,
  EVICT_LOOP_MAX_DOCS,
  EVICT_LOOP_MAX_CYCLES,
  EVICT_LOOP_SETTLE_MS,
  type EvictLoopOptions,
  type EvictLoopCycle,
  type EvictLoopTotals,
  type EvictLoopReport,
} from './eviction/evict-loop-scenario.ts';
export { createInspector, type Inspector, type InspectorOptions } from './inspector/inspector.ts';
export { serveCall } from './inspector/serve-call.ts';
export type { TrackedConnection, SeenPeer, LanPeer, TransportKind } from './replication/mesh-tracker.ts';
