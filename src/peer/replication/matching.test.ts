/**
 * Subscriptions and permission rules check documents one by one with the reference evaluator:
 * a range in them holds only between values of one type (issue 20), as it does in queries.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/json.ts';
import { allowsDocument, compileRules, compileSubscriptions, safeMatches } from './matching.ts';

const TTL = '2026-11-18T00:00:00.000Z';

const DOCS: JsonObject[] = [
  { _id: 'old', createdAt: '2026-11-01T00:00:00.000Z' },
  { _id: 'new', createdAt: '2026-11-20T00:00:00.000Z' },
  { _id: 'number', createdAt: 1700000000000 },
  { _id: 'true', createdAt: true },
  { _id: 'null', createdAt: null },
  { _id: 'missing' },
  { _id: 'array', createdAt: ['2026-11-01T00:00:00.000Z'] },
  { _id: 'object', createdAt: { at: '2026-11-01T00:00:00.000Z' } },
];

describe('matching documents against subscriptions and rules', () => {
  it('matches a subscription with createdAt <= a string TTL only for the string createdAt at or before it', () => {
    const compiled = compileSubscriptions({ everything: false, queries: { orders: [{ expr: `createdAt <= '${TTL}'`, order_by: [] }] } });
    const where = compiled.byCollection.get('orders')?.[0]?.where;
    expect(DOCS.filter((d) => safeMatches(where, d)).map((d) => d._id)).toEqual(['old']);
  });

  it('matches NOT (createdAt > TTL) and the checks of the established store the same way', () => {
    const subscription = (expr: string) =>
      compileSubscriptions({ everything: false, queries: { c: [{ expr, order_by: [] }] } }).byCollection.get('c')?.[0]?.where;
    expect(DOCS.filter((d) => safeMatches(subscription(`NOT (createdAt > '${TTL}')`), d)).map((d) => d._id)).toEqual(['old']);
    const values: JsonObject[] = [false, true, 0, 5, 10, 'a', [], [1], { k: 1 }, null].map((v, i) => ({ _id: i, v }));
    const matching = (expr: string) => values.filter((d) => safeMatches(subscription(expr), d)).map((d) => d.v);
    expect(matching('v > false')).toEqual([true]);
    expect(matching('v >= [1]')).toEqual([[1]]);
    expect(matching('v BETWEEN 1 AND 10')).toEqual([5, 10]);
    expect(matching('v < null')).toEqual([]);
  });

  it('lets a permission rule with createdAt <= a string TTL allow only the string createdAt at or before it', () => {
    const rules = compileRules({ everything: false, queries_by_collection: { orders: [`createdAt <= '${TTL}'`] } });
    expect(DOCS.filter((d) => allowsDocument(rules, 'orders', d)).map((d) => d._id)).toEqual(['old']);
  });
});
