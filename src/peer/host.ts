/**
 * The small peer's insides, for the programs built on it rather than with it: the Big Peer
 * (storage engines, replication sessions, certificates, query threads), the `syncmesh` CLI and
 * the desktop app's main process (the inspector, the evict-loop scenario). Applications import
 * `./index.ts`, which this file re-exports whole; README's "Entry points" says which is which.
 */
export * from './index.ts';
export { BonjourDiscovery } from './lan/bonjour-discovery.ts';
export { Replicator, type SessionInfo, type ReplicatorOptions } from './replication/replicator.ts';
export { Session } from './replication/session.ts';
export { SessionRefused, acceptHandshake, dialHandshake, type LocalCredentials, type RemotePeer } from './replication/handshake.ts';
export type { Connection, ConnectionType, ConnectionEvents } from './replication/connection.ts';
export { memoryConnectionPair } from './replication/memory-transport.ts';
export { WsConnection, closeReason } from './replication/ws-connection.ts';
export { AuthClient } from './auth/auth-client.ts';
export type { MutationTargets } from './query/targets.ts';
export { QueryThreads, QueryThreadsUnavailable, QUERY_THREAD_GRACE_MS, type SelectAnswer, type TargetsAnswer } from './query/query-threads.ts';
export { SqliteStorage } from './storage/sqlite-storage.ts';
export { MemoryStorage } from './storage/memory-storage.ts';
export { PRESENCE_COLLECTION } from './presence/presence-document.ts';
export { readAllPresence } from './presence/presence-source.ts';
export type {
  StorageEngine,
  DiskUsage,
  SharedWriters,
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
  GroupedWriteTransaction,
  Savepoint,
  ExternalCommit,
  TombstoneReap,
  ReapedTombstone,
} from './storage/types.ts';
/** For storage engines of the apps (the Big Peer's PostgreSQL): the reference evaluator over rows, and the order-preserving key of `_id`. */
export { runQuery } from './storage/js-query.ts';
export { writeThrough } from './storage/write-through.ts';
export { sortKey } from './dql/sort-key.ts';
/** For the PostgreSQL translation of DQL (big-peer/postgres/pg-translate.ts): the evaluator's values and rules it mirrors. */
export { evaluate, truth, type Params } from './dql/evaluate.ts';
export { MISSING, RANK, rankOf, comparisonHolds, comparisonTruth, isRangeOperator, type Value } from './dql/values.ts';
export { isLikePatternTooLong } from './dql/like.ts';
export { isConstant } from './storage/sql-translate.ts';
export type { Expr, OrderTerm, PathSegment } from './dql/ast.ts';
export type { IndexDefinition, IndexKey, PlanOperation, StoragePlan } from './storage/index-definition.ts';
export type { DocumentMeta } from './crdt/document-meta.ts';
export { assertSupportedNode } from './storage/node-version.ts';
export { parseStatement, parseCondition } from './dql/parser.ts';
export { LOGIN_PROOF_WINDOW_MS, announceProofText, loginProofText, peerKeyObject, signProof, verifyProof } from './auth/proof.ts';
/** Parses and checks a statement through the store's statement cache (what `execute` runs first). */
export { prepare as prepareStatement, type PreparedStatement } from './query/prepare.ts';
export { isSystemCollection } from './query/commands.ts';
export {
  signCertificate,
  verifyCertificate,
  readClaims,
  generateIssuerKeys,
  CertificateError,
  type IssuerKeys,
  type CertificateFault,
} from './auth/certificate.ts';
export { type EvictionHost, type ManagerRunOptions } from './eviction/eviction-manager.ts';
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
} from './scenarios/evict-loop-scenario.ts';
export { createInspector, type Inspector, type InspectorOptions } from './inspector/inspector.ts';
export { serveCall } from './inspector/serve-call.ts';
export { serveInspector, defaultRendererDir, type ServeInspectorOptions, type ServedInspector } from './inspector/serve-inspector.ts';
export { InspectorServerOptionError } from './inspector/inspector-server-errors.ts';
export type { TrackedConnection, SeenPeer, LanPeer, TransportKind } from './replication/mesh-tracker.ts';
