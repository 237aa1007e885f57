/**
 * For tests and benchmarks: Big Peer nodes in this process, each on its own PgStorage of one
 * shared PostgreSQL schema, and small peers for them. A node is what `syncmesh big-peer
 * --storage postgres://…` runs, without the process around it.
 */
import { LogHub, Sync, onlinePlayground, type SyncOptions, type Timers } from '../../peer/host.ts';
import type { LogEntry } from '../../shared/log.ts';
import { BigPeer } from '../../big-peer/big-peer.ts';
import { bigPeerConfig, type BigPeerConfig } from '../../big-peer/config.ts';
import { PLAYGROUND_TOKEN, TEST_APP, TEST_KEY } from '../big-peer/test-helpers.ts';
import { openPgNodeSync } from '../../big-peer/postgres/open-node.ts';
import { DEFAULT_POLL_INTERVAL_MS, type PgStorage, type PgStorageOptions } from '../../big-peer/postgres/pg-storage.ts';

export interface PgNode {
  readonly peer: BigPeer;
  /** The node's storage (its statement and round-trip counters). */
  readonly storage: PgStorage;
  readonly logs: LogEntry[];
  readonly url: string;
  close(): Promise<void>;
}

export interface PgNodeOptions {
  readonly url: string;
  readonly schema: string;
  readonly name: string;
  readonly config?: Partial<BigPeerConfig>;
  readonly storage?: Partial<PgStorageOptions>;
  readonly timers?: Timers;
  /** Keep DEBUG entries (default INFO and above, which a busy node writes fewer of). */
  readonly debug?: boolean;
}

/** A Big Peer node on 127.0.0.1:0 with the test app, API key and playground token. */
export async function startPgNode(options: PgNodeOptions): Promise<PgNode> {
  const hub = new LogHub({
    minimumLogLevel: options.debug === true ? 'DEBUG' : 'INFO',
    ...(options.timers === undefined ? {} : { now: () => options.timers?.now() ?? 0 }),
  });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  const { sync, storage } = openPgNodeSync(
    { url: options.url, schema: options.schema, pollIntervalMs: DEFAULT_POLL_INTERVAL_MS },
    options.name,
    hub,
    options.timers,
    options.storage,
  );
  try {
    const peer = await BigPeer.start(
      bigPeerConfig({
        appID: TEST_APP,
        apiKeys: [TEST_KEY],
        playgroundToken: PLAYGROUND_TOKEN,
        // Nodes run behind a TCP balancer here: every session comes from its address (docs/deploy.md).
        maxPendingSessionsPerAddress: 0,
        ...options.config,
      }),
      {
        sync,
        logHub: hub,
        ...(options.timers === undefined ? {} : { timers: options.timers }),
      },
    );
    return {
      peer,
      storage,
      logs,
      url: peer.url,
      close: async () => {
        await peer.close();
        sync.close();
      },
    };
  } catch (error) {
    sync.close();
    throw error;
  }
}

/** A small peer in memory, with the playground identity of the test app, dialing `bigPeerURL`. */
export function smallPeerOf(bigPeerURL: string, options: Partial<SyncOptions> = {}): Sync {
  return new Sync({
    inMemory: true,
    logHub: new LogHub({ minimumLogLevel: 'WARN' }),
    identity: onlinePlayground({ appID: TEST_APP, token: PLAYGROUND_TOKEN, bigPeerURL }),
    sync: { reconnect: { minDelayMs: 20, maxDelayMs: 300 } },
    ...options,
  });
}
