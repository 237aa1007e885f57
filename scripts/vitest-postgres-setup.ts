/**
 * vitest global setup: a PostgreSQL server for the Big Peer's PostgreSQL tests, once per run.
 * SYNCMESH_TEST_POSTGRES names one (CI's, or your own); otherwise, when PostgreSQL's server
 * binaries are installed, a throwaway cluster is started for the run and stopped at teardown
 * (under a second). Its URL reaches the test workers through provide/inject, under the key
 * 'syncmeshTestPostgres' (typed in src/testing/postgres/test-postgres.ts, which reads it).
 * Without either, nothing is provided and those tests fail with the how-to; if the cluster does
 * not start, they fail with why ('syncmeshTestPostgresProblem') and the other tests still run.
 */
import type { TestProject } from 'vitest/node';
// @ts-expect-error -- plain JavaScript without declarations
import { findPostgresBinaries as findBinaries, startThrowawayCluster as startCluster } from './postgres-cluster.js';
import { errorMessage } from '../src/shared/error-message.ts';

type ThrowawayCluster = { url: string; dir: string; stop(): Promise<void> };
const findPostgresBinaries = findBinaries as () => string | undefined;
const startThrowawayCluster = startCluster as () => Promise<ThrowawayCluster>;

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env.SYNCMESH_TEST_POSTGRES;
  if (given !== undefined && given !== '') {
    project.provide('syncmeshTestPostgres', given);
    return undefined;
  }
  if (findPostgresBinaries() === undefined) return undefined;
  let cluster: ThrowawayCluster;
  try {
    cluster = await startThrowawayCluster();
  } catch (error) {
    // Only the PostgreSQL tests fail, saying why; the rest of the run goes on.
    project.provide('syncmeshTestPostgresProblem', errorMessage(error));
    return undefined;
  }
  project.provide('syncmeshTestPostgres', cluster.url);
  return () => cluster.stop();
}
