/**
 * The text of each log event, rendered from its fields. The spec's exact wording lives here and
 * nowhere else (sections 3.5, 6 and 8).
 */
import { escapeLogText, LOG_EVENTS, MAX_LOG_FIELD_CHARS, type LogFieldValue } from '../../shared/log.ts';

type Fields = Readonly<Record<string, LogFieldValue>>;

const MESSAGES: Readonly<Record<string, (f: Fields) => string>> = {
  [LOG_EVENTS.storeOpening]: (f) => `Opening store; directory = ${f.directory}`,
  [LOG_EVENTS.storeLocked]: (f) => `Store directory locked; lock_file = ${f.lock_file}`,
  [LOG_EVENTS.storeMigrated]: (f) =>
    `Store database ready; file = ${f.file}; schema_version = ${f.schema_version}${f.migrated_from === f.schema_version ? '' : `; migrated_from = ${f.migrated_from}`}`,
  [LOG_EVENTS.storeOpened]: (f) => `Store opened; path = ${f.path}; peer_key = ${f.peer_key}; last_txn_id = ${f.last_txn_id}`,
  [LOG_EVENTS.indexBuilding]: (f) => `Building index; name = ${f.name}; collection = ${f.collection}; keys = ${f.keys}; documents = ${f.documents}`,
  [LOG_EVENTS.indexBuilt]: (f) => `Index built; name = ${f.name}; collection = ${f.collection}; documents = ${f.documents}; elapsed = ${f.elapsed}`,
  [LOG_EVENTS.indexDropped]: (f) => `Index dropped; name = ${f.name}; collection = ${f.collection}`,
  [LOG_EVENTS.loggerConfigured]: (f) => `Logging at ${f.level}${f.file === undefined ? '' : ` to ${f.file}`}`,
  [LOG_EVENTS.writeTxnCommitted]: (f) => `Write txn committed; txn_id = ${f.txn_id}; originator = ${f.originator}`,
  [LOG_EVENTS.writeTxnRolledBack]: (f) => `Write txn rolled back; txn_id = ${f.txn_id}; originator = ${f.originator}; reason = ${f.reason}`,
  [LOG_EVENTS.databaseChangeNotified]: (f) => `Notifying a database change; transaction = ${f.transaction}`,
  [LOG_EVENTS.externalCommitSeen]: (f) => `Another node committed; txn_id = ${f.txn_id}; collections = ${f.collections}`,
  [LOG_EVENTS.postgresConnected]: (f) => `PostgreSQL store opened; server = ${f.server}; schema = ${f.schema}; last_txn_id = ${f.last_txn_id}`,
  [LOG_EVENTS.postgresGroupFailed]: (f) =>
    `PostgreSQL group commit failed, none of its writes committed; writers = ${f.writers}; first_txn_id = ${f.first_txn_id}; error = ${f.error}`,
  [LOG_EVENTS.postgresListenLost]: (f) => `PostgreSQL notifications lost, polling every ${f.poll_ms} ms until they are back; error = ${f.error}`,
  [LOG_EVENTS.postgresMigrated]: (f) =>
    `PostgreSQL schema ready; schema = ${f.schema}; schema_version = ${f.schema_version}${f.migrated_from === f.schema_version ? '' : `; migrated_from = ${f.migrated_from}`}`,
  [LOG_EVENTS.postgresQueryInJs]: (f) =>
    `Query evaluated in JavaScript; collection = ${f.collection}; reason = ${f.reason}; prefiltered = ${f.prefiltered === true ? 'yes' : 'no'}`,
  [LOG_EVENTS.writeTxnBlocked]: (f) =>
    `Write txn blocked; ${f.hint === null ? `position = ${f.position}` : `hint = ${f.hint}`}; originator = ${f.originator}; ` +
    `blocked_by = ${f.blocked_by}; blocking_txn_id = ${f.blocking_txn_id}; blocked_for = ${f.blocked_for_s} s`,
  [LOG_EVENTS.observerRegistered]: (f) => `Observer registered; id = ${f.id}; statement = ${f.statement}`,
  [LOG_EVENTS.observerCancelled]: (f) => `Observer cancelled; id = ${f.id}`,
  [LOG_EVENTS.observerFailed]: (f) => `Observer failed; id = ${f.id}; error = ${f.error}`,
  [LOG_EVENTS.listenerFailed]: (f) => `Listener failed; listener = ${f.listener}; error = ${f.error}`,
  [LOG_EVENTS.localSubscriptionChanged]: () => 'Application: notifying a local subscription change',
  [LOG_EVENTS.ttlJobRan]: (f) =>
    `TTL job flagged ${f.flagged} documents; collection = ${f.collection}; field = ${f.field}; ttl = ${f.ttl}; txn_id = ${f.txn_id}`,
  [LOG_EVENTS.ttlJobFailed]: (f) => `TTL job failed; collection = ${f.collection}; error = ${f.error}`,
  [LOG_EVENTS.ttlJobScheduled]: (f) => `TTL job scheduled; collection = ${f.collection}; next_run = ${f.next_run}`,
  [LOG_EVENTS.ttlJobSkipped]: (f) => `TTL job already ran for this schedule on another node; collection = ${f.collection}; slot = ${f.slot}`,
  [LOG_EVENTS.bigPeerDraining]: (f) =>
    `Big Peer draining; app_id = ${f.app_id}; reason = ${f.reason}; delay_ms = ${f.delay_ms}; ready_asked = ${f.ready_asked}; sessions = ${f.sessions}`,
  [LOG_EVENTS.bigPeerDrained]: (f) => `Big Peer drained; app_id = ${f.app_id}; sessions_closed = ${f.sessions_closed}; cut_short = ${f.cut_short}`,
  [LOG_EVENTS.bigPeerDrainCutShort]: (f) => `Big Peer drain cut short; app_id = ${f.app_id}; sessions = ${f.sessions}`,
  [LOG_EVENTS.bigPeerUnavailable]: (f) => `Big Peer not ready: the store does not answer; reason = ${f.reason}; error = ${f.error}`,
  [LOG_EVENTS.bigPeerAvailable]: () => 'Big Peer ready: the store answers again',
  [LOG_EVENTS.queryThreadTerminated]: (f) => `Query thread terminated and replaced; reason = ${f.reason}`,
  [LOG_EVENTS.queryThreadsUnavailable]: (f) => `Query threads cannot start: statements run on the event loop; reason = ${f.reason}`,
  [LOG_EVENTS.bigPeerStatementTimedOut]: (f) =>
    `Statement stopped: it ran past its budget; query_type = ${f.query_type}; collection = ${f.collection}; budget_ms = ${f.budget_ms}`,
  [LOG_EVENTS.bigPeerStarted]: (f) => `Big Peer started; app_id = ${f.app_id}; url = ${f.url}; ws_url = ${f.ws_url}; issuer = ${f.issuer}`,
  [LOG_EVENTS.bigPeerStopped]: (f) => `Big Peer stopped; app_id = ${f.app_id}`,
  [LOG_EVENTS.bigPeerRequestFailed]: (f) => `Request failed; method = ${f.method}; path = ${f.path}; status = ${f.status}; error = ${f.error}`,
  [LOG_EVENTS.bigPeerLoginSucceeded]: (f) =>
    `Login succeeded; app_id = ${f.app_id}; user_id = ${f.user_id}; provider = ${f.provider}; peer_key = ${f.peer_key}; expires_at = ${f.expires_at}`,
  [LOG_EVENTS.bigPeerLoginRefused]: (f) => `Login refused; app_id = ${f.app_id}; provider = ${f.provider}; status = ${f.status}; reason = ${f.reason}`,
  // The spec's words (section 7), then where the webhook is.
  [LOG_EVENTS.bigPeerWebhookUnreachable]: (f) => `Could not connect to authentication server; provider = ${f.provider}; url = ${f.url}; error = ${f.error}`,
  [LOG_EVENTS.bigPeerWebhookFailed]: (f) => `${f.message}; provider = ${f.provider}; url = ${f.url}`,
  [LOG_EVENTS.bigPeerSessionAccepted]: (f) => `WebSocket peer announced; peer_key = ${f.peer_key}; user_id = ${f.user_id}; remote = ${f.remote}`,
  [LOG_EVENTS.bigPeerSessionRefused]: (f) => `WebSocket session refused; code = ${f.code}; reason = ${f.reason}; remote = ${f.remote}`,
  [LOG_EVENTS.bigPeerSessionClosed]: (f) => `WebSocket session closed; peer_key = ${f.peer_key}; code = ${f.code}; reason = ${f.reason}`,
  [LOG_EVENTS.shuttingDown]: () => 'Shutting down',
  [LOG_EVENTS.peerShuttingDown]: () => 'Peer shutting down',
  [LOG_EVENTS.httpServerStopping]: (f) => `Stopping the HTTP server${f.running === false ? ' (none running)' : ''}`,
  [LOG_EVENTS.tcpServerStopping]: (f) => `Stopping the TCP server${f.running === false ? ' (none running)' : ''}`,
  [LOG_EVENTS.peerShutdownDone]: () => 'Peer shutdown done',
  [LOG_EVENTS.shutdownComplete]: () => 'shutdown complete',
  [LOG_EVENTS.deallocating]: () => 'Deallocating',
  [LOG_EVENTS.garbageCollectedWhileOpen]: (f) =>
    `A Sync object was garbage collected without close(); path = ${f.path}. Keep it in a long-lived variable while sync should run, and close() it when done`,
  // Authentication (spec 5 and 7): the lines the spec quotes are kept word for word.
  [LOG_EVENTS.authStarting]: (f) => `AuthClient: starting; app_id = ${f.app_id}`,
  [LOG_EVENTS.authCachedCertificateUsed]: (f) => `AuthClient: using the cached certificate; user_id = ${f.user_id}; expires_at = ${f.expires_at}`,
  [LOG_EVENTS.authCachedCertificateIgnored]: (f) => `AuthClient: ignoring the cached certificate: ${f.reason}`,
  [LOG_EVENTS.authUnknownIssuer]: () => 'UnknownIssuer: the certificate was not issued by the known Big Peer; call sync.auth.logout() and reconnect',
  [LOG_EVENTS.authSucceeded]: () => 'AuthClient: authentication request succeeded',
  [LOG_EVENTS.authRefreshScheduled]: (f) => `AuthClient: refreshing token in ${f.seconds} seconds`,
  [LOG_EVENTS.authResponseUndecodable]: (f) => `AuthClient: failed to get JSON for auth response: ${f.error}`,
  [LOG_EVENTS.authNoValidToken]: () => 'No valid Web token present',
  // The Big Peer's own words: `Could not connect to authentication server`, `Failed to authenticate: …`.
  [LOG_EVENTS.authServerError]: (f) => `${f.message}`,
  [LOG_EVENTS.authBigPeerUnreachable]: (f) => `AuthClient: could not connect to the Big Peer at ${f.url}: ${f.error}`,
  [LOG_EVENTS.authCertificateRejected]: (f) => `AuthClient: the certificate from the Big Peer is not valid: ${f.reason}`,
  [LOG_EVENTS.authCertificateFailed]: () => 'failed to obtain a certificate',
  [LOG_EVENTS.authRetryScheduled]: (f) => `AuthClient: retrying authentication in ${f.seconds} seconds`,
  [LOG_EVENTS.authExpiringSoon]: (f) =>
    `AuthClient: the certificate expires in ${f.seconds} seconds; ${f.callback === null ? 'refreshing it' : `calling ${f.callback}`}`,
  [LOG_EVENTS.authRequired]: (f) => `AuthClient: authentication required (${f.reason}); calling authenticationRequired`,
  [LOG_EVENTS.authExpired]: (f) => `AuthClient: the certificate expired at ${f.expires_at}`,
  [LOG_EVENTS.authHandlerFailed]: (f) => `AuthClient: the authentication handler's ${f.callback} failed: ${f.error}`,
  [LOG_EVENTS.authCacheWriteFailed]: (f) => `AuthClient: could not cache the certificate: ${f.error}`,
  [LOG_EVENTS.authLoggedOut]: () => 'AuthClient: logged out; the cached certificate was cleared',
  // TLS failures by the spec's names (section 7), Node's words after them, then the spec's cause and fix.
  [LOG_EVENTS.tlsConnectFailed]: (f) =>
    `${f.name === 'UnknownIssuer' ? 'TLS connect failure' : 'TLS error'}: ${f.name}: ${f.error}${f.code === 'UNSPECIFIED' ? '' : ` (${f.code})`}; url = ${f.url}; ${f.fix}`,
  // Sync and replication (spec 3.4, 3.5): the peer events and the update lines word for word.
  [LOG_EVENTS.syncStarted]: (f) => `Sync started; peer_key = ${f.peer_key}; connect = ${f.connect}`,
  [LOG_EVENTS.syncStopped]: (f) => `Sync stopped; peer_key = ${f.peer_key}`,
  [LOG_EVENTS.permissionsRefreshed]: (f) =>
    `refreshPermissions: no platform permission to request on ${f.platform}: the transports of this platform (${f.transports}) need none; ` +
    'the Bluetooth permission it requests on Android has no counterpart here, where Bluetooth LE is not available',
  [LOG_EVENTS.peerDiscovered]: (f) =>
    `Discovered; peer = ${f.peer}; connect_address = ${f.connect_address}${f.remote === undefined || f.remote === '' ? '' : `; remote = ${f.remote}`}`,
  [LOG_EVENTS.connectionEstablished]: (f) =>
    `ConnectionEstablished; connection_type = ${f.connection_type}; connection = ${f.connection}; remote_address = ${f.remote_address}`,
  [LOG_EVENTS.streamFailed]: (f) => `StreamFailed; connection = ${f.connection}; remote_address = ${f.remote_address}; error = ${f.error}`,
  [LOG_EVENTS.connectionEnded]: (f) => `ConnectionEnded; connection = ${f.connection}; code = ${f.code}; reason = ${f.reason}`,
  [LOG_EVENTS.reconnectScheduled]: (f) => `Reconnecting in ${f.seconds} seconds; connect_address = ${f.connect_address}`,
  [LOG_EVENTS.dialWaiting]: (f) => `Not dialing until this peer holds a valid certificate; connect_address = ${f.connect_address}; reason = ${f.reason}`,
  [LOG_EVENTS.sessionRefused]: (f) =>
    `Session ${f.by === 'remote' ? 'refused by the remote peer' : 'refused'}; connection = ${f.connection}; code = ${f.code}; reason = ${f.reason}`,
  [LOG_EVENTS.phyStarted]: (f) => `phy started; remote = ${f.remote}`,
  [LOG_EVENTS.connectionElected]: (f) =>
    `VirtConnElectedNewConn; remote = ${f.remote}; new_conn = ${f.new_conn}; old_conn = ${f.old_conn === '' ? 'none' : f.old_conn}`,
  [LOG_EVENTS.sessionEnded]: (f) => `Replication session ended; remote = ${f.remote}; connection = ${f.connection}; code = ${f.code}; reason = ${f.reason}`,
  [LOG_EVENTS.subscriptionsPrinted]: (f) => `Active subscriptions; peer = ${f.peer}; subscriptions = ${f.subscriptions}`,
  [LOG_EVENTS.permissionsPrinted]: (f) => `Permissions; peer = ${f.peer}; permissions = ${f.permissions}`,
  [LOG_EVENTS.updateCreating]: (f) => `Creating a sending update, sending_update_path = ${f.sending_update_path}`,
  [LOG_EVENTS.updateCreated]: (f) =>
    `update creation done; since_index = ${f.since_index}; new_update_created = ${f.new_update_created}; num_docs = ${f.num_docs}; elapsed = ${f.elapsed}`,
  [LOG_EVENTS.updateDelivered]: () => 'No next update chunk to send - setting is_ready to false',
  [LOG_EVENTS.noMessageToSend]: () => 'No message to send',
  [LOG_EVENTS.chunkMerged]: (f) =>
    `Merged an update chunk; remote = ${f.remote}; update = ${f.update}; chunk = ${f.chunk}; docs = ${f.docs}; merged = ${f.merged}; refused = ${f.refused}; txn_id = ${f.txn_id}; ids = ${f.ids}`,
  [LOG_EVENTS.updateDocuments]: (f) => `Sending an update; remote = ${f.remote}; update = ${f.update}; num_docs = ${f.num_docs}; ids = ${f.ids}`,
  [LOG_EVENTS.writesRefused]: (f) =>
    `Refused writes the remote peer may not make; remote = ${f.remote}; collection = ${f.collection}; count = ${f.count}; ids = ${f.ids}`,
  [LOG_EVENTS.subscriptionNotServed]: (f) => `Not serving a subscription the remote peer may not read; remote = ${f.remote}; collection = ${f.collection}`,
  [LOG_EVENTS.messageMalformed]: (f) => `Malformed message from a peer, closing its session; remote = ${f.remote}; reason = ${f.reason}`,
  [LOG_EVENTS.remoteError]: (f) => `The remote peer reported an error; remote = ${f.remote}; code = ${f.code}; message = ${f.message}`,
  [LOG_EVENTS.documentTooLarge]: (f) => `A document is too large to replicate; remote = ${f.remote}; collection = ${f.collection}; id = ${f.id}`,
  [LOG_EVENTS.replicationFailed]: (f) => `Replication failed; remote = ${f.remote}; error = ${f.error}`,
  [LOG_EVENTS.subscriptionTooExpensive]: (f) =>
    `Closing the session: matching the remote peer's subscriptions ran past its budget; remote = ${f.remote}; collection = ${f.collection}; budget_ms = ${f.budget_ms}; documents = ${f.documents}`,
  // The evict/re-sync loop (issue 8; spec 1.5, 3.1, 3.2).
  [LOG_EVENTS.evictOverlap]: (f) =>
    `EVICT overlaps an active subscription: its documents will come back; collection = ${f.collection}; subscription = ${f.subscription}; come_back = ${f.come_back} of ${f.evicted}; cancel it before evicting and register the complementary one after (spec 3.2)`,
  [LOG_EVENTS.evictResynced]: (f) =>
    `Evicted documents came back by replication (evict/re-sync loop); collection = ${f.collection}; count = ${f.count}; seconds_after_evict = ${f.seconds_after}; subscriptions = ${f.subscriptions}`,
  [LOG_EVENTS.evictionRan]: (f) =>
    `Eviction ran; collection = ${f.collection}; strategy = ${f.strategy}; trigger = ${f.trigger}; cancelled = ${f.cancelled}; evicted = ${f.evicted}; bytes_freed = ${f.bytes_freed}; store_bytes = ${f.store_bytes_before} -> ${f.store_bytes_after}; registered = ${f.registered}; kept_not_at_big_peer = ${f.kept}; txn_id = ${f.txn_id}`,
  [LOG_EVENTS.evictionRefused]: (f) =>
    `Eviction refused; collection = ${f.collection}; strategy = ${f.strategy}; trigger = ${f.trigger}; code = ${f.code}; reason = ${f.reason}`,
  [LOG_EVENTS.evictionForced]: (f) => `Eviction forced, overriding a rule; collection = ${f.collection}; overriding = ${f.overriding}`,
  [LOG_EVENTS.evictionPostponed]: (f) => `Eviction postponed; collection = ${f.collection}; reason = ${f.reason}; next_run = ${f.next_run}`,
  [LOG_EVENTS.evictionScheduled]: (f) =>
    `Eviction scheduled; collection = ${f.collection}; strategy = ${f.strategy}; next_run = ${f.next_run}; window = ${f.window}`,
  [LOG_EVENTS.evictionFailed]: (f) =>
    `Eviction failed, nothing evicted, cancelled subscriptions registered again; collection = ${f.collection}; error = ${f.error}`,
  [LOG_EVENTS.evictionConfigured]: (f) => `Eviction configured; strategies = ${f.strategies}; window = ${f.window}; scheduled = ${f.scheduled}`,
  // The tombstone reaper and the resurrection guard (issue 20; not in the spec: worded as eviction's lines).
  [LOG_EVENTS.tombstonesReaped]: (f) =>
    `Tombstones reaped; trigger = ${f.trigger}; ttl_days = ${f.ttl_days}; deleted_before = ${f.deleted_before}; reaped = ${f.reaped}; collections = ${f.collections}; ` +
    `only_uploaded_up_to = ${f.only_uploaded_up_to}; horizon = ${f.horizon} (txn_id ${f.horizon_txn_id}); txn_id = ${f.txn_id}`,
  [LOG_EVENTS.tombstonesRefused]: (f) => `Tombstone reaping refused; trigger = ${f.trigger}; code = ${f.code}; reason = ${f.reason}`,
  [LOG_EVENTS.tombstonesScheduled]: (f) => `Tombstone reaping scheduled; next_run = ${f.next_run}; window = ${f.window}; ttl_days = ${f.ttl_days}`,
  // The presence job (issue 21; not in the spec).
  [LOG_EVENTS.presenceWriteFailed]: (f) => `Presence document not written; reason = ${f.reason}; error = ${f.error}`,
  [LOG_EVENTS.presenceExpired]: (f) => `Presence documents expired; removed = ${f.removed}; older_than_days = ${f.older_than_days}; txn_id = ${f.txn_id}`,
  [LOG_EVENTS.presenceExpiryFailed]: (f) => `Presence documents not expired; error = ${f.error}`,
  [LOG_EVENTS.tombstonesFailed]: (f) => `Tombstone reaping failed, nothing reaped; trigger = ${f.trigger}; error = ${f.error}`,
  [LOG_EVENTS.tombstonesConfigured]: (f) =>
    `Tombstone reaping configured; ttl_days = ${f.ttl_days}; window = ${f.window}; scheduled = ${f.scheduled}; only_uploaded = ${f.only_uploaded}`,
  [LOG_EVENTS.reapedDocumentsDropped]: (f) =>
    `Reconciled with the Big Peer past its reap horizon; remote = ${f.remote}; horizon = ${f.horizon} (txn_id ${f.horizon_txn_id}); named = ${f.named}; ` +
    `dropped = ${f.dropped}; collections = ${f.collections}; txn_id = ${f.txn_id}`,
  // LAN and the other peer-to-peer transports (issue 7; not in the spec's tables).
  [LOG_EVENTS.lanStarted]: (f) => `LAN transport started; listen_address = ${f.listen_address}; service = ${f.service}; name = ${f.name}`,
  [LOG_EVENTS.lanPeerIgnored]: (f) =>
    `Not syncing with a LAN peer; name = ${f.name}; connect_address = ${f.connect_address}; remote = ${f.remote === '' ? 'unknown' : f.remote}; reason = ${f.reason}`,
  [LOG_EVENTS.lanFailed]: (f) => `LAN transport failed; condition = ${f.condition}; reason = ${f.reason}`,
  [LOG_EVENTS.lanWarning]: (f) => `LAN discovery warning; reason = ${f.reason}`,
  [LOG_EVENTS.transportUnavailable]: (f) => `Transport unavailable; transport = ${f.transport}; condition = ${f.condition}; reason = ${f.reason}`,
};

function safeValue(value: LogFieldValue): LogFieldValue {
  if (typeof value === 'string') return escapeLogText(value, MAX_LOG_FIELD_CHARS);
  if (Array.isArray(value)) return value.map((v: string) => escapeLogText(v, MAX_LOG_FIELD_CHARS));
  return value;
}

/**
 * The message of an event. Every field value is escaped (no control characters, so a value can
 * never start a new line) and cut at MAX_LOG_FIELD_CHARS; the entry's `fields` stay as given.
 */
export function renderMessage(event: string, fields: Fields): string {
  const render = MESSAGES[event];
  const safe: Record<string, LogFieldValue> = {};
  for (const [k, v] of Object.entries(fields)) safe[k] = safeValue(v);
  return render === undefined ? `${event} ${JSON.stringify(safe)}` : render(safe);
}
