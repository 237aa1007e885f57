import { describe, expect, it } from 'vitest';
import type { WireDocument } from '../../shared/protocol/messages.ts';
import { countReceivedUpdate, type CollectionTraffic } from './session.ts';

const doc = (collection: string, id: string, text: string): WireDocument => ({ collection, id, value: { text }, meta: {} as WireDocument['meta'] });

describe('update bytes received, by collection', () => {
  it('gives a chunk of one collection all its bytes, and adds up chunks', () => {
    const by = new Map<string, CollectionTraffic>();
    countReceivedUpdate(by, [doc('ticks', 'a', 'x'), doc('ticks', 'b', 'y')], 300);
    countReceivedUpdate(by, [doc('ticks', 'c', 'z')], 120);
    expect(by.get('ticks')).toEqual({ bytes: 420, docs: 3 });
    expect(by.has('orders')).toBe(false);
  });

  it('splits a chunk of several collections by their documents’ encoded size, and counts nothing for a chunk without documents', () => {
    const by = new Map<string, CollectionTraffic>();
    const big = doc('orders', 'o', 'x'.repeat(300));
    const small = doc('ticks', 't', '');
    countReceivedUpdate(by, [big, small], 1000);
    countReceivedUpdate(by, [], 50);
    const orders = by.get('orders') as CollectionTraffic;
    const ticks = by.get('ticks') as CollectionTraffic;
    expect(orders.docs).toBe(1);
    expect(ticks.docs).toBe(1);
    expect(orders.bytes + ticks.bytes).toBeGreaterThanOrEqual(999);
    expect(orders.bytes).toBeGreaterThan(4 * ticks.bytes);
  });
});
