/**
 * The Big Peer on PostgreSQL, several nodes sharing one database (docs/deploy.md): its public
 * surface, for the command line. Kept apart from `src/big-peer/index.ts`, which the desktop app
 * bundles for its local Big Peer on SQLite: nothing there loads `pg` or its worker thread.
 */
export { PgStorage, COMMIT_CHANNEL, DEFAULT_POLL_INTERVAL_MS, type PgStorageOptions } from './pg-storage.ts';
export { PG_MIGRATIONS, PG_SCHEMA_VERSION, DEFAULT_SCHEMA, VERSIONS_TABLE } from './pg-schema.ts';
export { describeServer } from './pg-bridge.ts';
export { openPgSync, defaultNodeName } from './open-node.ts';
