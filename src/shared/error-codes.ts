/**
 * Every error SyncMesh reports carries one of these stable codes. They cross IPC, HTTP and the
 * CLI as `{ code, message, details? }`; the text beside each code is its one-line meaning.
 */
export const ERROR_CODES = {
  'query/invalid': 'The statement is empty or malformed, or names something that does not exist (a ParseError).',
  'query/evaluation': 'A valid statement failed while running: an id conflict under FAIL, a change of _id, a bad value.',
  'query/unsupported': 'A valid statement used where it is not allowed, such as a non-SELECT as an observer.',
  'query/arguments-invalid': 'The statement arguments are not a JSON object of supported values.',
  'query/timeout':
    "The statement ran past its time budget (the Big Peer's statementTimeoutMs) and was stopped; a mutation was rolled back, nothing of it committed.",
  'store/locked': 'The persistence directory is already opened by another store.',
  'store/node-unsupported': 'This Node.js version cannot load the storage engine.',
  'store/schema-too-new': 'The store was written by a newer SyncMesh and cannot be opened by this one.',
  'store/busy': 'Another program holds the store database file; the write was not made. Try again.',
  'store/closed': 'The store was closed; open a new one.',
  'store/io': 'The persistence directory or its database file could not be read or written.',
  'store/unavailable': 'The database server (PostgreSQL) could not be reached, or did not answer in time; what was being written was not committed.',
  'auth/certificate-invalid': 'A certificate is not signed by the trusted Big Peer (UnknownIssuer), is expired, or is malformed.',
  'auth/failed': 'Authentication with the Big Peer failed: wrong app id or token, or the webhook refused or failed.',
  'auth/unreachable': 'The Big Peer or the authentication webhook could not be reached.',
  'auth/handler-invalid': 'An authentication handler lacks authenticationRequired or authenticationExpiringSoon.',
  'http/unauthorized': 'The request has no valid credential (a Bearer API key or a certificate token).',
  'http/forbidden': 'The credential does not allow this operation on this collection.',
  'http/bad-request': 'The request body is not the JSON the endpoint takes.',
  'http/not-found': 'No such endpoint.',
  'http/method-not-allowed': 'The endpoint does not take this HTTP method.',
  'http/payload-too-large': 'The request body is larger than the server accepts.',
  'http/timeout': 'The request did not finish in time.',
  'sync/not-configured': 'startSync was called on a peer with nowhere to sync: no identity with a Big Peer URL and no peer addresses.',
  'sync/permission-denied': 'This peer may not read the collection it tried to subscribe to (its certificate does not allow it).',
  'sync/listen-failed': 'startSync could not listen at sync.listen (the port is taken, the address is not local, no permission); sync stays stopped.',
  'sync/lan-failed':
    'startSync could not start the LAN transport (it could not listen, or could not open mDNS) and there was nothing else to sync with; sync stays stopped.',
  'sync/closed': 'The Sync was closed; sync cannot start or continue on it.',
  'protocol/malformed': 'A message from a peer is not valid JSON of the wire protocol; its session is closed.',
  'protocol/version': 'The peer speaks an incompatible outer_protocol_version; the session is refused.',
  'protocol/unauthorized': 'The peer has no valid certificate or proof for this app; the session is refused.',
  'inspector/bad-request': 'An inspector call named no known channel, or its input is not what the channel takes.',
  'inspector/not-found': 'An inspector call named something the peer does not hold: an expired query result, a document, a subscription.',
  'inspector/closed': 'The inspector window, tab or session was closed (or the inspector itself); the call was not run.',
  'inspector/link-down':
    'The link from the inspector page to its peer was down when a call that may change the peer was made: it was not sent, and is not sent later; run it again once the link is back.',
  'inspector/cancelled':
    'The call was stopped before it finished: a transactions:hold released while still waiting for the write slot (nothing was held), or an eviction:scenario whose window or tab closed (the peer was put back as it was).',
  'inspector/read-only':
    'The inspector is served read-only (serveInspector readOnly, syncmesh inspect --read-only): a call that may change the peer was refused and not run.',
  'inspector/bad-option': 'serveInspector was given an option it cannot take: a host that is a name or a wildcard, a missing renderer build.',
  'eviction/invalid': 'An eviction strategy or schedule is malformed: unknown kind, no collection, a TTL that is not positive, a bad window or condition.',
  'eviction/not-configured': 'No eviction strategy is configured for this collection.',
  'eviction/too-soon': 'This collection was evicted less than a day ago (spec 8: at most once per day); force overrides, and is logged.',
  'eviction/write-blocked': 'A write transaction was blocked recently or is blocked now: eviction waits for a quiet store; force overrides, and is logged.',
  'eviction/overlap': 'The EVICT and the subscription that follows it overlap: evicted documents would come back (spec 3.2); never overridden.',
  'eviction/busy': 'A run of this collection is already under way.',
  'eviction/failed': 'An eviction run failed while it ran; what it had cancelled was registered again and nothing was evicted.',
  'tombstones/invalid': 'A tombstone reaper setting is malformed: a TTL that is not a number of days above 0, or a bad window.',
  'tombstones/too-soon': 'Tombstones were reaped less than a day ago (here or by another node of the store); force overrides.',
  'tombstones/busy': 'A tombstone reap is already under way.',
  'tombstones/failed': 'A tombstone reap failed while it ran; nothing was reaped.',
  'presence/invalid': 'A presence setting is malformed: a heartbeat under a second or a negative debounce.',
  'scenario/not-connected': 'The scenario needs a running session with a Big Peer.',
  'scenario/busy': 'A scenario is already running on this peer.',
  'scenario/cancelled':
    'The evict-loop scenario was cancelled (Cancel in the Eviction panel, eviction:scenario-cancel); it stopped between steps and the peer was put back as it was.',
  'cli/usage': 'The command line is incomplete or malformed.',
  'cli/invalid-line':
    'A line of input cannot be run: not a JSON object with a string `statement` (exec --jsonl), arguments that are not a JSON object (peer), or longer than 16 MiB.',
  'cli/drain-timeout':
    'At the end of its input, `syncmesh peer` waited --drain-timeout and the Big Peer had not acknowledged every commit of the store; they stay in the store and are uploaded by its next session.',
  'internal/unexpected': 'A fault inside SyncMesh; the message says what failed. Please report it.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** An error as a plain value, the form errors take across every boundary. */
export interface ErrorValue {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: unknown;
}
