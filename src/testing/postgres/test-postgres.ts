/**
 * For tests only: the PostgreSQL server of this test run and fresh databases on it.
 * scripts/vitest-postgres-setup.ts finds the server (SYNCMESH_TEST_POSTGRES, or a throwaway
 * cluster it starts) and provides its URL. Without one, postgresTestUrl() throws the how-to:
 * the PostgreSQL tests fail, they never skip or pass without a server.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { describeServer } from '../../big-peer/postgres/pg-bridge.ts';
// @ts-expect-error -- plain JavaScript without declarations
import { POSTGRES_HOW_TO as howTo } from '../../../scripts/postgres-cluster.js';
import { errorMessage } from '../../shared/error-message.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the run's PostgreSQL server, e.g. postgres://postgres@127.0.0.1:5432/postgres. */
    syncmeshTestPostgres?: string;
    /** Why the run has no PostgreSQL server although the binaries are there (the cluster did not start). */
    syncmeshTestPostgresProblem?: string;
  }
}

/** What to do to get a PostgreSQL server for the tests. */
export const POSTGRES_HOW_TO = howTo as string;

function provided(key: 'syncmeshTestPostgres' | 'syncmeshTestPostgresProblem'): string | undefined {
  try {
    return inject(key);
  } catch {
    return undefined; // not in a vitest worker
  }
}

/** The URL of the test run's PostgreSQL server; throws the how-to when there is none. */
export function postgresTestUrl(): string {
  const url = provided('syncmeshTestPostgres') ?? process.env.SYNCMESH_TEST_POSTGRES;
  if (url !== undefined && url !== '') return url;
  const problem = provided('syncmeshTestPostgresProblem');
  throw new Error(problem ?? POSTGRES_HOW_TO);
}

async function withAdmin<T>(serverUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    const reason = errorMessage(error);
    throw new Error(`Cannot connect to the test PostgreSQL server ${describeServer(serverUrl)}: ${reason}`, { cause: error });
  }
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Creates a fresh, empty database on the test run's server, named syncmesh_t_[prefix_]random.
 * drop() ends its connections and drops it (also when called twice).
 */
export async function createTestDatabase(prefix?: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const serverUrl = postgresTestUrl();
  const tag = (prefix ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .slice(0, 24);
  const name = `syncmesh_t_${tag === '' ? '' : `${tag}_`}${randomBytes(8).toString('hex')}`;
  await withAdmin(serverUrl, (admin) => admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropping: Promise<void> | undefined;
  return {
    url: url.toString(),
    name,
    drop() {
      dropping ??= withAdmin(serverUrl, async (admin) => {
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
        const version = Number((await admin.query<{ server_version_num: string }>('SHOW server_version_num')).rows[0]?.server_version_num);
        // WITH (FORCE) (PostgreSQL 13+) also ends connections made since the line above.
        await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)}${version >= 130000 ? ' WITH (FORCE)' : ''}`);
      }).catch((error: unknown) => {
        dropping = undefined; // so that it can be tried again
        throw error;
      });
      return dropping;
    },
  };
}
