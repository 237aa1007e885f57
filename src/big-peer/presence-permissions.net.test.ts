/**
 * A small peer whose webhook grants reading `orders` only, syncing with a real Big Peer over
 * real sockets: its `__presence` subscription (every peer has it, spec 2.2) is served like
 * any peer's, and the Big Peer logs no refusal for it, at the session start, at each
 * subscription change, or after a reconnection.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogHub, Sync, onlineWithAuthentication } from '../peer/host.ts';
import { startTestPeer, startWebhook, TEST_APP, waitUntil, type TestPeer } from '../testing/big-peer/test-helpers.ts';

const ORDERS_ONLY = {
  read: { everything: false, queriesByCollection: { orders: ['true'] } },
  write: { everything: false, queriesByCollection: { orders: ['true'] } },
};

describe('presence for a peer whose read rules do not name it', () => {
  let bigPeer: TestPeer;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  let sync: Sync | undefined;

  beforeEach(async () => {
    webhook = await startWebhook(() => ({ body: JSON.stringify({ authenticated: true, userID: 'clerk-7', permissions: ORDERS_ONLY }) }));
    bigPeer = await startTestPeer({ authProviders: { corp: { url: webhook.url } } });
  });
  afterEach(async () => {
    sync?.close();
    sync = undefined;
    await bigPeer.close();
    await webhook.close();
  });

  it('is served, and the Big Peer logs no refusal for it however often the session starts or changes', async () => {
    sync = new Sync({
      inMemory: true,
      logHub: new LogHub({ minimumLogLevel: 'WARN' }),
      identity: onlineWithAuthentication({
        appID: TEST_APP,
        bigPeerURL: bigPeer.url,
        provider: 'corp',
        authHandler: { authenticationRequired: (auth) => void auth.login('jwt', 'corp'), authenticationExpiringSoon: (auth) => void auth.login('jwt', 'corp') },
      }),
    });
    const peer = sync;
    await peer.startSync();
    await waitUntil('a session with the Big Peer', () => peer.sessions.length === 1);
    expect(peer.permissions?.read.queries_by_collection).toEqual({ orders: ['true'] });
    for (let i = 0; i < 3; i++) {
      peer.store.registerSubscription('SELECT * FROM orders WHERE n >= :i', { i });
      await bigPeer.peer.sync.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: `o${i}`, n: i } });
      await waitUntil(`order o${i} replicated`, async () => (await peer.store.execute('SELECT * FROM orders')).items.length === i + 1);
    }
    await peer.stopSync();
    await peer.startSync();
    await waitUntil('a session again', () => peer.sessions.length === 1);
    await bigPeer.peer.sync.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'o3', n: 3 } });
    await waitUntil('order o3 replicated', async () => (await peer.store.execute('SELECT * FROM orders')).items.length === 4);
    const refusals = bigPeer.logs.filter((e) => e.event === 'replication.subscription-not-served').map((e) => e.message);
    expect(refusals).toEqual([]);
  });
});
