/**
 * The text of each log event, rendered from its fields. The spec's exact wording lives here and
 * nowhere else (sections 3.5, 6 and 8).
 */
import { LOG_EVENTS, type LogFieldValue } from '../../shared/log.ts';

type Fields = Readonly<Record<string, LogFieldValue>>;

const MESSAGES: Readonly<Record<string, (f: Fields) => string>> = {
  [LOG_EVENTS.storeOpening]: (f) => `Opening store; directory = ${f.directory}`,
  [LOG_EVENTS.storeLocked]: (f) => `Store directory locked; lock_file = ${f.lock_file}`,
  [LOG_EVENTS.storeMigrated]: (f) =>
    `Store database ready; file = ${f.file}; schema_version = ${f.schema_version}${f.migrated_from === f.schema_version ? '' : `; migrated_from = ${f.migrated_from}`}`,
  [LOG_EVENTS.storeOpened]: (f) => `Store opened; path = ${f.path}; peer_key = ${f.peer_key}; last_txn_id = ${f.last_txn_id}`,
  [LOG_EVENTS.loggerConfigured]: (f) => `Logging at ${f.level}${f.file === undefined ? '' : ` to ${f.file}`}`,
  [LOG_EVENTS.writeTxnCommitted]: (f) => `Write txn committed; txn_id = ${f.txn_id}; originator = ${f.originator}`,
  [LOG_EVENTS.writeTxnRolledBack]: (f) => `Write txn rolled back; txn_id = ${f.txn_id}; originator = ${f.originator}; reason = ${f.reason}`,
  [LOG_EVENTS.databaseChangeNotified]: (f) => `Notifying a database change; transaction = ${f.transaction}`,
  [LOG_EVENTS.writeTxnBlocked]: (f) =>
    `Write txn blocked; ${f.hint === null ? `position = ${f.position}` : `hint = ${f.hint}`}; originator = ${f.originator}; ` +
    `blocked_by = ${f.blocked_by}; blocking_txn_id = ${f.blocking_txn_id}; blocked_for = ${f.blocked_for_s} s`,
  [LOG_EVENTS.observerRegistered]: (f) => `Observer registered; id = ${f.id}; statement = ${f.statement}`,
  [LOG_EVENTS.observerCancelled]: (f) => `Observer cancelled; id = ${f.id}`,
  [LOG_EVENTS.observerFailed]: (f) => `Observer failed; id = ${f.id}; error = ${f.error}`,
  [LOG_EVENTS.listenerFailed]: (f) => `Listener failed; listener = ${f.listener}; error = ${f.error}`,
  [LOG_EVENTS.localSubscriptionChanged]: () => 'Application: notifying a local subscription change',
  [LOG_EVENTS.ttlJobRan]: (f) => `TTL job flagged ${f.flagged} documents; collection = ${f.collection}; field = ${f.field}; ttl = ${f.ttl}; txn_id = ${f.txn_id}`,
  [LOG_EVENTS.ttlJobFailed]: (f) => `TTL job failed; collection = ${f.collection}; error = ${f.error}`,
  [LOG_EVENTS.ttlJobScheduled]: (f) => `TTL job scheduled; collection = ${f.collection}; next_run = ${f.next_run}`,
  [LOG_EVENTS.shuttingDown]: () => 'Shutting down',
  [LOG_EVENTS.peerShuttingDown]: () => 'Peer shutting down',
  [LOG_EVENTS.httpServerStopping]: (f) => `Stopping the HTTP server${f.running === false ? ' (none running)' : ''}`,
  [LOG_EVENTS.tcpServerStopping]: (f) => `Stopping the TCP server${f.running === false ? ' (none running)' : ''}`,
  [LOG_EVENTS.peerShutdownDone]: () => 'Peer shutdown done',
  [LOG_EVENTS.shutdownComplete]: () => 'shutdown complete',
  [LOG_EVENTS.deallocating]: () => 'Deallocating',
  [LOG_EVENTS.garbageCollectedWhileOpen]: (f) =>
    `A Sync object was garbage collected without close(); path = ${f.path}. Keep it in a long-lived variable while sync should run, and close() it when done`,
};

export function renderMessage(event: string, fields: Fields): string {
  const render = MESSAGES[event];
  return render === undefined ? `${event} ${JSON.stringify(fields)}` : render(fields);
}
