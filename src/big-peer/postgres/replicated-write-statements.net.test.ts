/**
 * The SQL statements a Big Peer node on PostgreSQL sends for one small peer's write that
 * replicates to it (issue 23, part 2): counted by the storage's bridge (`commitCounters`), every
 * statement of every session, over real WebSockets on 127.0.0.1. The budget is the count
 * measured, so that a change that adds statements to this path is seen (docs/benchmarks.md).
 * Needs a PostgreSQL server: without one these tests fail with how to get it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LogHub, Sync } from '../../peer/host.ts';
import { BigPeer } from '../big-peer.ts';
import { bigPeerConfig } from '../config.ts';
import { PLAYGROUND_TOKEN, TEST_APP, TEST_KEY, waitUntil } from '../../testing/big-peer/test-helpers.ts';
import { smallPeerOf } from '../../testing/postgres/pg-nodes.ts';
import { createTestDatabase } from '../../testing/postgres/test-postgres.ts';
import { PgStorage } from './pg-storage.ts';

/**
 * Measured with this test: 17 statements, each its own round trip, before group commit
 * (docs/benchmarks.md counted the same 17 with `log_statement = all`). Now the clock row goes
 * with the NOTIFY in one statement, and a write's BEGIN with its lock and its COMMIT with the
 * NOTIFY in one round trip each (16 statements in 13 round trips). Now the group's NOTIFY
 * statement reads back what it wrote, and the node's sessions read no change page (13 in 10).
 * The least over the rounds is taken: a presence update of a peer may add its own statements
 * to a round.
 */
const STATEMENTS_PER_REPLICATED_WRITE = 13;
const ROUND_TRIPS_PER_REPLICATED_WRITE = 10;

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  database = await createTestDatabase('statements');
});
afterAll(async () => {
  await database?.drop();
});

const closing: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

describe('the statements of a replicated write on PostgreSQL', () => {
  it('sends at most the measured count for one small peer write reaching another peer through the node', async () => {
    if (database === undefined) throw new Error('no test database');
    const storage = PgStorage.open({ url: database.url, schema: `st_${randomBytes(6).toString('hex')}`, pollIntervalMs: 60_000 });
    const hub = new LogHub({ minimumLogLevel: 'ERROR' });
    const sync = new Sync({ storage, storageName: 'postgres', logHub: hub });
    closing.push(() => sync.close());
    const peer = await BigPeer.start(
      bigPeerConfig({ appID: TEST_APP, apiKeys: [TEST_KEY], playgroundToken: PLAYGROUND_TOKEN, maxPendingSessionsPerAddress: 0 }),
      { sync, logHub: hub },
    );
    closing.push(() => peer.close());
    const [a, b] = [smallPeerOf(peer.url), smallPeerOf(peer.url)];
    closing.push(
      () => a.close(),
      () => b.close(),
    );
    for (const s of [a, b]) {
      s.store.registerSubscription('SELECT * FROM orders');
      await s.startSync();
    }
    await waitUntil('both peers have a session', () => a.sessions.length === 1 && b.sessions.length === 1, 10_000);

    const counts: number[] = [];
    const trips: number[] = [];
    for (let round = 0; round < 6; round++) {
      const id = `o${round}`;
      await new Promise((resolve) => setTimeout(resolve, 300)); // what came before is done
      const before = storage.commitCounters;
      await a.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: id } });
      await waitUntil('B has the write', async () => (await b.store.execute('SELECT _id FROM orders WHERE _id = :id', { id })).items.length === 1, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the progress it saves after
      const after = storage.commitCounters;
      counts.push(after.statements - before.statements);
      trips.push(after.roundTrips - before.roundTrips);
    }
    process.stdout.write(`per replicated write, by round: statements ${counts.join(', ')}; round trips ${trips.join(', ')}\n`);
    expect(Math.min(...counts)).toBeLessThanOrEqual(STATEMENTS_PER_REPLICATED_WRITE);
    expect(Math.min(...trips)).toBeLessThanOrEqual(ROUND_TRIPS_PER_REPLICATED_WRITE);
  }, 60_000);
});
