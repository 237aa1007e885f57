/**
 * The Big Peer's state acceptance suite on PostgreSQL: a fresh schema per case in a database of
 * its own. Needs a PostgreSQL server: without one these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { LogHub } from '../../peer/host.ts';
import { runBigPeerStateTests } from '../../testing/big-peer/state-acceptance.ts';
import { openPgSync } from './open-node.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('state');
});
afterAll(async () => {
  await database?.drop();
});

runBigPeerStateTests('PostgreSQL', () => {
  const schema = `st_${randomBytes(6).toString('hex')}`;
  return {
    open: () => {
      if (database === undefined) throw new Error('no test database');
      return openPgSync(
        { url: database.url, schema, pollIntervalMs: 1_000 },
        `node-${randomBytes(2).toString('hex')}`,
        new LogHub({ minimumLogLevel: 'ERROR' }),
      );
    },
  };
});
