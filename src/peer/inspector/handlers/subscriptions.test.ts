import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_COALESCE_MS } from '../inspector.ts';
import { inspectorKit, type InspectorKit } from '../../../testing/inspector/test-kit.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

async function withOrders(): Promise<InspectorKit> {
  const k = inspectorKit();
  const docs = Array.from({ length: 10 }, (_, i) => ({ _id: `o${i}`, n: i, locationId: i % 2 === 0 ? 'A' : 'B' }));
  await k.sync.store.execute(`INSERT INTO orders DOCUMENTS ${docs.map((_, i) => `(:d${i})`).join(', ')}`, Object.fromEntries(docs.map((d, i) => [`d${i}`, d])));
  await k.sync.store.execute("DELETE FROM orders WHERE _id = 'o0'");
  return k;
}

describe('subscriptions:list', () => {
  it('lists the local subscriptions with the documents each matches now, LIMIT and OFFSET respected, and the set in the spec’s shape', async () => {
    kit = await withOrders();
    kit.sync.store.registerSubscription('SELECT * FROM orders WHERE locationId = :loc', { loc: 'A' });
    kit.sync.store.registerSubscription('SELECT * FROM orders ORDER BY n LIMIT 3 OFFSET 7');
    kit.sync.store.registerSubscription('SELECT * FROM orders WHERE n > 100');
    const snapshot = await kit.call('subscriptions:list');
    expect(snapshot.local.map((s) => [s.id, s.collection, s.internal, s.matchingDocuments])).toEqual([
      [1, '__presence', true, 0],
      [2, 'orders', false, 4],
      [3, 'orders', false, 2],
      [4, 'orders', false, 0],
    ]);
    expect(snapshot.local[1]).toMatchObject({
      statement: 'SELECT * FROM orders WHERE locationId = :loc',
      args: { loc: 'A' },
      query: { expr: "(locationId = 'A')", order_by: [] },
    });
    expect(snapshot.localSet).toEqual(kit.sync.store.subscriptionSet());
    expect(snapshot.remotes).toEqual([]);
  });
});

describe('subscriptions:register and subscriptions:cancel', () => {
  it('registers as the app would, answers the subscription with its count, and cancels it by id', async () => {
    kit = await withOrders();
    const sub = await kit.call('subscriptions:register', { statement: 'SELECT * FROM orders WHERE n >= :n', args: { n: 8 } });
    expect(sub).toMatchObject({ id: 2, collection: 'orders', internal: false, matchingDocuments: 2, args: { n: 8 } });
    expect(kit.sync.store.subscriptions.map((s) => s.id)).toEqual([1, 2]);
    expect(await kit.call('subscriptions:cancel', { id: 2 })).toEqual({});
    expect(kit.sync.store.subscriptions.map((s) => s.id)).toEqual([1]);
  });

  it('refuses to cancel the peer’s own presence subscription, or an unknown id, with typed errors', async () => {
    kit = inspectorKit();
    expect(await kit.fail('subscriptions:cancel', { id: 1 })).toMatchObject({
      code: 'inspector/bad-request',
      message: expect.stringMatching(/^id: .*__presence/),
    });
    expect(await kit.fail('subscriptions:cancel', { id: 99 })).toMatchObject({ code: 'inspector/not-found', message: expect.stringMatching(/^id:/) });
    expect(kit.sync.store.subscriptions).toHaveLength(1);
  });

  it('answers a statement a subscription cannot take with its own code', async () => {
    kit = inspectorKit();
    expect(await kit.fail('subscriptions:register', { statement: 'SELECT n FROM orders' })).toMatchObject({ code: 'query/unsupported' });
    expect(await kit.fail('subscriptions:register', { statement: '' })).toMatchObject({ code: 'query/invalid' });
    expect(await kit.fail('subscriptions:register', { statement: 'DELETE FROM orders' })).toMatchObject({ code: 'query/unsupported' });
    expect(kit.sync.store.subscriptions).toHaveLength(1);
  });

  it('refuses bad input naming the field', async () => {
    kit = inspectorKit();
    const cases: [string, unknown, string][] = [
      ['subscriptions:register', {}, 'statement'],
      ['subscriptions:register', { statement: 1 }, 'statement'],
      ['subscriptions:register', { statement: 'SELECT * FROM a', args: 'x' }, 'args'],
      ['subscriptions:register', { statement: 'SELECT * FROM a', live: true }, 'live'],
      ['subscriptions:cancel', {}, 'id'],
      ['subscriptions:cancel', { id: '2' }, 'id'],
      ['subscriptions:cancel', { id: 0 }, 'id'],
      ['subscriptions:cancel', { id: 1.5 }, 'id'],
      ['subscriptions:list', { all: true }, 'all'],
    ];
    for (const [channel, input, field] of cases) {
      const error = await kit.fail(channel, input);
      expect([channel, error.code, error.message.split(':')[0]]).toEqual([channel, 'inspector/bad-request', field]);
    }
    expect(kit.sync.store.subscriptions).toHaveLength(1);
  });
});

describe('subscriptions:changed', () => {
  it('is pushed once, coalesced, after local subscriptions change', async () => {
    kit = inspectorKit();
    const a = kit.sync.store.registerSubscription('SELECT * FROM a');
    await kit.call('subscriptions:register', { statement: 'SELECT * FROM b' });
    expect(kit.eventsOf('subscriptions:changed')).toHaveLength(0);
    kit.clock.advance(EVENT_COALESCE_MS);
    expect(kit.eventsOf('subscriptions:changed')).toEqual([{}]);
    a.cancel();
    kit.clock.advance(EVENT_COALESCE_MS);
    expect(kit.eventsOf('subscriptions:changed')).toHaveLength(2);
    kit.clock.advance(10 * EVENT_COALESCE_MS);
    expect(kit.eventsOf('subscriptions:changed')).toHaveLength(2);
  });
});
