import { describe, expect, it } from 'vitest';
import { EVERYTHING_KEY } from '../../shared/protocol/messages.ts';
import type { StoredDocument } from '../storage/types.ts';
import { deliveryOf, type DeliveryInputs } from './delivery.ts';
import { compileReadRules, compileSubscriptions } from './matching.ts';

const everything = compileReadRules({ everything: true, queries_by_collection: {} });
const doc = (id: string, value: Record<string, unknown> | null, txnId: number): StoredDocument =>
  ({ id, value: value === null ? null : { _id: id, ...value }, meta: {} as never, txnId }) as StoredDocument;

function inputs(overrides: Partial<DeliveryInputs>): DeliveryInputs {
  return {
    subscriptions: undefined,
    readRules: everything,
    ruleTexts: [],
    since: new Map(),
    inFlight: undefined,
    fromRemote: false,
    windows: new Map(),
    ...overrides,
  };
}

describe('deliveryOf', () => {
  const shops = compileSubscriptions({ everything: false, queries: { orders: [{ expr: "shop = 'B'", order_by: [] }] } });
  const key = shops.keys[0] as string;

  it('waits for the remote’s subscriptions before anything else but an echo', () => {
    expect(deliveryOf('orders', doc('o', { shop: 'B' }, 5), inputs({}))).toEqual({ state: 'awaiting-subscriptions' });
    expect(deliveryOf('orders', doc('o', { shop: 'B' }, 5), inputs({ fromRemote: true }))).toEqual({ state: 'from-remote' });
  });

  it('says pending, in flight, then acknowledged as the remote’s progress passes the document’s commit', () => {
    const o = doc('o', { shop: 'B' }, 5);
    expect(deliveryOf('orders', o, inputs({ subscriptions: shops, since: new Map([[key, 4]]) }))).toEqual({ state: 'pending', query: key });
    expect(deliveryOf('orders', o, inputs({ subscriptions: shops, since: new Map([[key, 4]]), inFlight: { update: 3, progress: { [key]: 5 } } }))).toEqual({
      state: 'in-flight',
      query: key,
      update: 3,
    });
    expect(deliveryOf('orders', o, inputs({ subscriptions: shops, since: new Map([[key, 9]]) }))).toEqual({ state: 'acknowledged', query: key });
  });

  it('says not subscribed for a document no query matches, but sends a tombstone wherever the collection is subscribed', () => {
    expect(deliveryOf('orders', doc('o', { shop: 'A' }, 5), inputs({ subscriptions: shops }))).toEqual({ state: 'not-subscribed' });
    expect(deliveryOf('invoices', doc('i', { shop: 'B' }, 5), inputs({ subscriptions: shops }))).toEqual({ state: 'not-subscribed' });
    expect(deliveryOf('orders', doc('o', null, 5), inputs({ subscriptions: shops }))).toEqual({ state: 'pending', query: key });
  });

  it('names the read rules that keep a document from the remote', () => {
    const rules = compileReadRules({ everything: false, queries_by_collection: { orders: ["shop = 'A'"] } });
    expect(deliveryOf('orders', doc('o', { shop: 'B' }, 5), inputs({ subscriptions: shops, readRules: rules, ruleTexts: ["shop = 'A'"] }))).toEqual({
      state: 'not-readable',
      rules: ["shop = 'A'"],
    });
  });

  it('counts a windowed query only for the documents in its window, and a subscription to everything for all', () => {
    const windowed = compileSubscriptions({ everything: false, queries: { orders: [{ expr: 'true', order_by: ['total DESC'], limit: 1 }] } });
    const wkey = windowed.keys[0] as string;
    const top = doc('top', { total: 9 }, 5);
    const other = doc('other', { total: 1 }, 5);
    const windows = new Map([[wkey, new Set([JSON.stringify('top')])]]);
    expect(deliveryOf('orders', top, inputs({ subscriptions: windowed, windows }))).toEqual({ state: 'pending', query: wkey });
    expect(deliveryOf('orders', other, inputs({ subscriptions: windowed, windows }))).toEqual({ state: 'not-subscribed' });
    const all = compileSubscriptions({ everything: true, queries: {} });
    expect(deliveryOf('anything', other, inputs({ subscriptions: all, since: new Map([[EVERYTHING_KEY, 5]]) }))).toEqual({
      state: 'acknowledged',
      query: EVERYTHING_KEY,
    });
  });
});
