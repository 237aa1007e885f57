/**
 * The PostgreSQL a benchmark suite runs against: SYNCMESH_TEST_POSTGRES if set, otherwise a
 * throwaway cluster (scripts/postgres-cluster.js) stopped at the end; a fresh database per
 * measurement, dropped after it. Without PostgreSQL the suite fails with how to get one. Shared
 * by the `nodes` and `nodes-million` suites.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import pg from 'pg';
// @ts-expect-error -- plain JavaScript without declarations
import { POSTGRES_HOW_TO as howTo, startThrowawayCluster } from '../scripts/postgres-cluster.js';
import { describeServer } from '../src/big-peer/postgres/index.ts';
import { errorMessage } from '../src/shared/error-message.ts';
import { median, type Row, type SuiteContext } from './harness.ts';

const POSTGRES_HOW_TO = howTo as string;

export interface PostgresServer {
  readonly url: string;
  stop(): Promise<void>;
}

export interface Database {
  readonly url: string;
}

/** A client of `url` for the length of `use`. */
export async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new Error(`cannot connect to PostgreSQL at ${describeServer(url)}: ${errorMessage(error)}`, { cause: error });
  }
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** SYNCMESH_TEST_POSTGRES, or a throwaway cluster (stopped by `stop`); without PostgreSQL, an error saying how to get it. */
export async function postgresServer(context: SuiteContext): Promise<PostgresServer> {
  const named = process.env.SYNCMESH_TEST_POSTGRES;
  if (named !== undefined && named !== '') {
    context.log(`PostgreSQL: SYNCMESH_TEST_POSTGRES (${describeServer(named)})`);
    try {
      await withClient(named, (client) => client.query('SELECT 1'));
    } catch (error) {
      throw new Error(`${errorMessage(error)}\n${POSTGRES_HOW_TO}`, { cause: error });
    }
    return { url: named, stop: async () => {} };
  }
  let cluster: PostgresServer;
  try {
    cluster = (await startThrowawayCluster()) as PostgresServer;
  } catch (error) {
    const message = errorMessage(error);
    if (message === POSTGRES_HOW_TO) throw error;
    throw new Error(`a throwaway PostgreSQL cluster did not start: ${message}\n${POSTGRES_HOW_TO}`, { cause: error });
  }
  context.log(`PostgreSQL: a throwaway cluster at ${describeServer(cluster.url)}`);
  return cluster;
}

/** Runs `use` with a new empty database on the server (syncmesh_bench_<label>_<random>), dropped after it. */
export async function inFreshDatabase<T>(server: PostgresServer, label: string, use: (db: Database) => Promise<T>): Promise<T> {
  const name = `syncmesh_bench_${label}_${randomBytes(4).toString('hex')}`;
  await withClient(server.url, (admin) => admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  try {
    return await use({ url: url.toString() });
  } finally {
    await withClient(server.url, async (admin) => {
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    });
  }
}

/** utime, stime, cutime and cstime of /proc/<pid>/stat, in clock ticks; undefined when it cannot be read. */
function ticksOf(pid: number): { readonly ppid: number; readonly own: number; readonly children: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The fields after the command's closing parenthesis: state is field 3, ppid 4, utime 14 … cstime 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const at = (field: number): number => Number(fields[field - 3]);
  return { ppid: at(4), own: at(14) + at(15), children: at(16) + at(17) };
}

/** Linux's USER_HZ: /proc's clock ticks per second (100 on every common kernel). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time the PostgreSQL server's processes have used so far, milliseconds: the postmaster,
 * its live children (backends, WAL writer, checkpointer …) and the children it has reaped (its
 * cutime and cstime). Only on the same host (Linux /proc): undefined otherwise, or when the
 * server's processes cannot be read. `backendPid` is any backend's process id (pg_backend_pid()).
 */
export function serverCpuMs(backendPid: number): number | undefined {
  const postmaster = ticksOf(backendPid)?.ppid;
  if (postmaster === undefined) return undefined;
  const root = ticksOf(postmaster);
  if (root === undefined) return undefined;
  let ticks = root.own + root.children;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const process = ticksOf(Number(entry));
    if (process?.ppid === postmaster) ticks += process.own;
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/**
 * The row "CPU per write of PostgreSQL's processes" of a writes benchmark, ours against raw, or
 * none when a repetition could not read the server's CPU time (`serverCpuMs`).
 */
export function postgresCpuRows(label: string, ours: readonly (number | undefined)[], raw: readonly (number | undefined)[]): Row[] {
  if (!ours.every((v) => v !== undefined) || !raw.every((v) => v !== undefined)) return [];
  return [
    {
      name: `${label}: CPU per write of PostgreSQL's processes (raw: the same, for the raw clients)`,
      kind: 'time',
      ours: median(ours as number[]),
      raw: median(raw as number[]),
      repetitions: ours.length,
    },
  ];
}
