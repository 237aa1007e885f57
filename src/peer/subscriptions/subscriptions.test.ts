/**
 * The local subscription set: registered, listed, cancelled and printed in the spec's shape
 * (sections 2.3, 2.4); `__presence` from the start; the change line of section 6.
 */
import { describe, expect, it } from 'vitest';
import { LogHub } from '../log/log-hub.ts';
import { STORAGES, failureOf, freshPeer } from '../../testing/dql-test-peers.ts';

describe.each(STORAGES)('sync subscriptions on %s storage', (_kind, openStorage) => {
  const { peer, open } = freshPeer(openStorage);

  it('starts with the peer subscribed to __presence only', () => {
    expect(peer().store.subscriptionSet()).toEqual({ everything: false, queries: { __presence: [{ expr: 'true', order_by: [] }] } });
    expect(peer().store.subscriptions.map((s) => [s.collection, s.isInternal])).toEqual([['__presence', true]]);
  });

  it('prints registered subscriptions by collection, with their arguments bound, each query once', () => {
    const store = peer().store;
    store.registerSubscription('SELECT * FROM orders WHERE createdAt > :ttl AND isDeleted == false', { ttl: '2026-11-18T00:00:00.000Z' });
    store.registerSubscription("SELECT * FROM orders WHERE locationId = 'L1' ORDER BY createdAt DESC LIMIT 50");
    store.registerSubscription('SELECT * FROM orders WHERE createdAt > :ttl AND isDeleted == false', { ttl: '2026-11-18T00:00:00.000Z' });
    expect(store.subscriptionSet().queries.orders).toEqual([
      { expr: "((createdAt > '2026-11-18T00:00:00.000Z') AND (isDeleted = false))", order_by: [] },
      { expr: "(locationId = 'L1')", order_by: ['createdAt DESC'], limit: 50 },
    ]);
    expect(store.subscriptions).toHaveLength(4);
  });

  it('drops a subscription once cancelled or stopped, and keeps a query another subscription still holds', () => {
    const store = peer().store;
    const a = store.registerSubscription('SELECT * FROM tasks WHERE done = false');
    const b = store.registerSubscription('SELECT * FROM tasks WHERE done = false');
    const c = store.collection('people').find('age > 18').subscribe();
    a.cancel();
    expect(store.subscriptionSet().queries.tasks).toEqual([{ expr: '(done = false)', order_by: [] }]);
    b.stop();
    c.cancel();
    c.cancel();
    expect([a.isCancelled, b.isCancelled, c.isCancelled]).toEqual([true, true, true]);
    expect(Object.keys(store.subscriptionSet().queries)).toEqual(['__presence']);
  });

  it('refuses mutations, projections and aggregates as subscriptions, and an empty query with a ParseError', async () => {
    const store = peer().store;
    expect((await failureOf(() => store.registerSubscription("DELETE FROM t WHERE _id = 'a'"))).code).toBe('query/unsupported');
    expect((await failureOf(() => store.registerSubscription('SELECT name FROM people'))).code).toBe('query/unsupported');
    expect((await failureOf(() => store.registerSubscription('SELECT COUNT(*) FROM people'))).code).toBe('query/unsupported');
    expect((await failureOf(() => store.collection('people').find('').subscribe())).code).toBe('query/invalid');
    expect((await failureOf(() => store.registerSubscription('SELECT * FROM people WHERE age > :min'))).code).toBe('query/invalid');
  });

  it('refuses a subscription whose LIKE or ILIKE pattern is too long, from a literal or an argument, and registers nothing', async () => {
    const store = peer().store;
    const long = 'a'.repeat(1_001);
    const before = store.subscriptions.length;
    for (const [statement, args] of [
      ['SELECT * FROM notes WHERE text LIKE :p', { p: long }],
      [`SELECT * FROM notes WHERE done = false AND (text ILIKE '${long}' OR text = 'x')`, undefined],
      ['SELECT * FROM notes WHERE NOT (text NOT ILIKE :p)', { p: long }],
    ] as const) {
      const failure = await failureOf(() => store.registerSubscription(statement, args));
      expect(failure.code, statement).toBe('query/evaluation');
      expect(failure.message).toMatch(/^I?LIKE pattern is 1001 characters long; patterns hold at most 1000$/);
    }
    expect(store.subscriptions).toHaveLength(before);
    // A pattern read from the document cannot be checked beforehand; one of 1,000 is fine.
    store.registerSubscription('SELECT * FROM notes WHERE text LIKE pattern');
    store.registerSubscription('SELECT * FROM notes WHERE text LIKE :p', { p: 'a'.repeat(1_000) });
    expect(store.subscriptions).toHaveLength(before + 2);
  });

  it('logs the spec’s line each time the application changes the set, and tells listeners', () => {
    const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
    const sync = open({ logHub: hub });
    let changes = 0;
    sync.store.onSubscriptionsChange(() => changes++);
    const s = sync.store.registerSubscription('SELECT * FROM orders');
    s.cancel();
    sync.close();
    expect(hub.recentEntries().filter((e) => e.message === 'Application: notifying a local subscription change')).toHaveLength(2);
    expect(changes).toBe(2);
  });
});
