/**
 * Structured log entries, as the peer emits them and the inspector receives them. Their text
 * form is `[<LEVEL>] <ISO 8601 timestamp with milliseconds>: <message>` (spec section 6).
 */

/** Levels from most to least severe; VERBOSE is below DEBUG. */
export const LOG_LEVELS = ['ERROR', 'WARN', 'INFO', 'DEBUG', 'VERBOSE'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Is an entry of `level` shown when the minimum level is `minimum`? */
export function isLevelEnabled(level: LogLevel, minimum: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(minimum);
}

export type LogFieldValue = string | number | boolean | null | readonly string[];

export interface LogEntry {
  /** Position in the stream of this log hub, from 1; gaps mean nothing, counts of drops are separate. */
  readonly seq: number;
  readonly level: LogLevel;
  /** ISO 8601, UTC, with milliseconds. */
  readonly timestamp: string;
  /** The part of the peer that logged it: `store`, `txn`, `auth`, `replication`, … */
  readonly component: string;
  /** A name from LOG_EVENTS. */
  readonly event: string;
  readonly fields: Readonly<Record<string, LogFieldValue>>;
  /** The spec's text for this event. */
  readonly message: string;
}

/** A field value longer than this many characters is cut, ending in `…`. */
export const MAX_LOG_FIELD_CHARS = 1000;

// C0 controls, DEL, and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is its purpose
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/g;
const escapeControl = (c: string): string =>
  c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Text that came from outside (an app id, a statement, an error) made safe for a log line: control
 * characters written as `\n`, `\r`, `\t`, `\u00XX`, so a value can never start a new line or
 * forge an entry; over `max` characters it is cut and ends in `…`.
 */
export function escapeLogText(text: string, max: number = Number.POSITIVE_INFINITY): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(CONTROL, escapeControl);
}

/** The text form of an entry: always one line (a message's control characters are escaped). */
export function renderLogLine(entry: Pick<LogEntry, 'level' | 'timestamp' | 'message'>): string {
  return `[${entry.level}] ${entry.timestamp}: ${escapeLogText(entry.message)}`;
}

/** Event names: one constant per kind of entry, so that tools filter on names, not on text. */
export const LOG_EVENTS = {
  storeOpening: 'store.opening',
  storeLocked: 'store.directory-locked',
  storeMigrated: 'store.schema',
  storeOpened: 'store.opened',
  indexBuilding: 'store.index-building',
  indexBuilt: 'store.index-built',
  indexDropped: 'store.index-dropped',
  loggerConfigured: 'log.configured',
  writeTxnCommitted: 'txn.committed',
  writeTxnRolledBack: 'txn.rolled-back',
  writeTxnBlocked: 'txn.blocked',
  databaseChangeNotified: 'txn.change-notified',
  externalCommitSeen: 'txn.external-commit',
  postgresConnected: 'postgres.connected',
  postgresListenLost: 'postgres.listen-lost',
  postgresGroupFailed: 'postgres.group-failed',
  postgresMigrated: 'postgres.schema',
  postgresQueryInJs: 'postgres.query-in-javascript',
  observerRegistered: 'observer.registered',
  observerCancelled: 'observer.cancelled',
  observerFailed: 'observer.failed',
  listenerFailed: 'listener.failed',
  localSubscriptionChanged: 'subscriptions.local-changed',
  ttlJobRan: 'ttl.ran',
  ttlJobFailed: 'ttl.failed',
  ttlJobScheduled: 'ttl.scheduled',
  ttlJobSkipped: 'ttl.skipped',
  bigPeerStarted: 'big-peer.started',
  bigPeerStopped: 'big-peer.stopped',
  bigPeerRequestFailed: 'big-peer.request-failed',
  bigPeerLoginSucceeded: 'big-peer.login-succeeded',
  bigPeerLoginRefused: 'big-peer.login-refused',
  bigPeerWebhookUnreachable: 'big-peer.webhook-unreachable',
  bigPeerWebhookFailed: 'big-peer.webhook-failed',
  bigPeerSessionAccepted: 'big-peer.session-accepted',
  bigPeerSessionRefused: 'big-peer.session-refused',
  bigPeerSessionClosed: 'big-peer.session-closed',
  bigPeerDraining: 'big-peer.draining',
  bigPeerDrainCutShort: 'big-peer.drain-cut-short',
  bigPeerDrained: 'big-peer.drained',
  bigPeerUnavailable: 'big-peer.store-unavailable',
  bigPeerAvailable: 'big-peer.store-available',
  bigPeerStatementTimedOut: 'big-peer.statement-timed-out',
  queryThreadTerminated: 'query-threads.thread-terminated',
  queryThreadsUnavailable: 'query-threads.unavailable',
  shuttingDown: 'shutdown.shutting-down',
  peerShuttingDown: 'shutdown.peer-shutting-down',
  httpServerStopping: 'shutdown.http-server-stopping',
  tcpServerStopping: 'shutdown.tcp-server-stopping',
  peerShutdownDone: 'shutdown.peer-shutdown-done',
  shutdownComplete: 'shutdown.complete',
  deallocating: 'shutdown.deallocating',
  garbageCollectedWhileOpen: 'sync.garbage-collected-while-open',
  authStarting: 'auth.starting',
  authCachedCertificateUsed: 'auth.cached-certificate-used',
  authCachedCertificateIgnored: 'auth.cached-certificate-ignored',
  authUnknownIssuer: 'auth.unknown-issuer',
  authSucceeded: 'auth.succeeded',
  authRefreshScheduled: 'auth.refresh-scheduled',
  authResponseUndecodable: 'auth.response-undecodable',
  authNoValidToken: 'auth.no-valid-token',
  authServerError: 'auth.server-error',
  authBigPeerUnreachable: 'auth.big-peer-unreachable',
  authCertificateRejected: 'auth.certificate-rejected',
  authCertificateFailed: 'auth.certificate-failed',
  authRetryScheduled: 'auth.retry-scheduled',
  authExpiringSoon: 'auth.expiring-soon',
  authRequired: 'auth.required',
  authExpired: 'auth.expired',
  authHandlerFailed: 'auth.handler-failed',
  authCacheWriteFailed: 'auth.cache-write-failed',
  authLoggedOut: 'auth.logged-out',
  tlsConnectFailed: 'tls.connect-failed',
  syncStarted: 'sync.started',
  syncStopped: 'sync.stopped',
  permissionsRefreshed: 'sync.permissions-refreshed',
  peerDiscovered: 'peer.discovered',
  connectionEstablished: 'peer.connection-established',
  streamFailed: 'peer.stream-failed',
  connectionEnded: 'peer.connection-ended',
  reconnectScheduled: 'peer.reconnect-scheduled',
  dialWaiting: 'peer.dial-waiting',
  sessionRefused: 'peer.session-refused',
  phyStarted: 'replication.phy-started',
  connectionElected: 'replication.connection-elected',
  sessionEnded: 'replication.session-ended',
  subscriptionsPrinted: 'replication.subscriptions',
  permissionsPrinted: 'replication.permissions',
  updateCreating: 'replication.update-creating',
  updateCreated: 'replication.update-created',
  updateDelivered: 'replication.update-delivered',
  noMessageToSend: 'replication.no-message',
  chunkMerged: 'replication.chunk-merged',
  updateDocuments: 'replication.update-documents',
  writesRefused: 'replication.writes-refused',
  subscriptionNotServed: 'replication.subscription-not-served',
  messageMalformed: 'replication.message-malformed',
  remoteError: 'replication.remote-error',
  documentTooLarge: 'replication.document-too-large',
  replicationFailed: 'replication.failed',
  subscriptionTooExpensive: 'replication.subscription-too-expensive',
  evictOverlap: 'eviction.overlap',
  evictResynced: 'eviction.resynced',
  evictionRan: 'eviction.ran',
  evictionRefused: 'eviction.refused',
  evictionForced: 'eviction.forced',
  evictionPostponed: 'eviction.postponed',
  evictionScheduled: 'eviction.scheduled',
  evictionFailed: 'eviction.failed',
  evictionConfigured: 'eviction.configured',
  tombstonesReaped: 'tombstones.reaped',
  tombstonesRefused: 'tombstones.refused',
  tombstonesScheduled: 'tombstones.scheduled',
  tombstonesFailed: 'tombstones.failed',
  tombstonesConfigured: 'tombstones.configured',
  presenceWriteFailed: 'presence.write-failed',
  presenceExpired: 'presence.expired',
  presenceExpiryFailed: 'presence.expiry-failed',
  reapedDocumentsDropped: 'replication.reaped-dropped',
  lanStarted: 'lan.started',
  lanPeerIgnored: 'lan.peer-ignored',
  lanFailed: 'lan.failed',
  lanWarning: 'lan.warning',
  transportUnavailable: 'transport.unavailable',
} as const;

export type LogEvent = (typeof LOG_EVENTS)[keyof typeof LOG_EVENTS];
