/**
 * The Sync of a Big Peer node whose store is on PostgreSQL: what `syncmesh big-peer --storage
 * postgres://…` serves. The Big Peer module itself never loads `pg` (the desktop app bundles it
 * for its local Big Peer on SQLite); the command line opens this and hands it over.
 */
import { hostname } from 'node:os';
import { Sync, type LogHub, type PresenceOptions, type Timers } from '../../peer/host.ts';
import type { PostgresConfig } from '../config.ts';
import { PgStorage, type PgStorageOptions } from './pg-storage.ts';

/** This node's name where none is configured: the machine's and the process's. */
export function defaultNodeName(): string {
  return `${hostname()}:${process.pid}`;
}

/** The Sync of `openPgNodeSync`, which the caller closes. */
export function openPgSync(...args: Parameters<typeof openPgNodeSync>): Sync {
  return openPgNodeSync(...args).sync;
}

/**
 * Opens the node's store (migrating it if this node is the first of a newer version) and a Sync
 * on it; the caller closes the Sync. `storage` overrides the storage's options (tests: its
 * timeouts, or real timers under a Sync on manual ones). `presence`: the node writes the Big
 * Peer's presence document (`--device-name`), as a node on SQLite does; every node of a cluster
 * writes the same one (they share the Big Peer's key), the last write showing. The storage under
 * the Sync is answered too (benchmarks read its statement counters).
 */
export function openPgNodeSync(
  postgres: PostgresConfig,
  nodeName: string | undefined,
  logHub: LogHub,
  timers?: Timers,
  storage?: Partial<PgStorageOptions>,
  presence?: PresenceOptions,
): { readonly sync: Sync; readonly storage: PgStorage } {
  const opened = PgStorage.open({
    url: postgres.url,
    schema: postgres.schema,
    nodeName: nodeName ?? defaultNodeName(),
    pollIntervalMs: postgres.pollIntervalMs,
    logger: logHub.logger('postgres'),
    ...(timers === undefined ? {} : { timers }),
    ...storage,
  });
  try {
    const sync = new Sync({
      storage: opened,
      storageName: `${opened.server} (schema ${opened.schema})`,
      logHub,
      ...(timers === undefined ? {} : { timers }),
      ...(presence === undefined ? {} : { presence }),
    });
    return { sync, storage: opened };
  } catch (error) {
    opened.close();
    throw error;
  }
}
