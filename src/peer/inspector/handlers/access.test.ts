import { describe, expect, it } from 'vitest';
import type { PermissionRules } from '../../../shared/permissions.ts';
import { verdict } from './access.ts';

const rules = (queries: Record<string, string[]>, everything = false): PermissionRules => ({ everything, queries_by_collection: queries });
const doc = (value: Record<string, unknown>) => ({ found: true as const, value: value as never });

describe('a read or write verdict', () => {
  it('allows everything when everything is true', () => {
    expect(verdict('read', rules({}, true), 'orders', { found: false })).toEqual({ allowed: true, reason: 'read.everything is true' });
  });

  it('refuses a collection without a rule', () => {
    expect(verdict('write', rules({ people: ['true'] }), 'orders', doc({ _id: 'a' }))).toEqual({
      allowed: false,
      reason: 'no write rule for collection orders',
    });
  });

  it('names the rule that matches', () => {
    const r = rules({ orders: ["locationId = 'B'", "locationId = 'A'"] });
    expect(verdict('read', r, 'orders', doc({ _id: 'a', locationId: 'A' }))).toEqual({
      allowed: true,
      reason: "read.queries_by_collection.orders: locationId = 'A' matches",
    });
  });

  it('lists the rules when none matches', () => {
    const r = rules({ orders: ["locationId = 'A'", 'total > 10'] });
    expect(verdict('read', r, 'orders', doc({ _id: 'a', locationId: 'C', total: 1 }))).toEqual({
      allowed: false,
      reason: "read.queries_by_collection.orders: no rule matches (locationId = 'A'; total > 10)",
    });
  });

  it('cannot decide a condition for a document it does not hold, but decides a whole-collection rule', () => {
    expect(verdict('read', rules({ orders: ["locationId = 'A'"] }), 'orders', { found: false })).toEqual({
      allowed: false,
      reason: 'document not held here: rules with conditions cannot be decided',
    });
    expect(verdict('read', rules({ orders: ['true'] }), 'orders', { found: false })).toEqual({
      allowed: true,
      reason: 'read.queries_by_collection.orders: true matches every document',
    });
  });

  it('allows a tombstone where its collection has a rule, as replication does', () => {
    expect(verdict('read', rules({ orders: ["locationId = 'A'"] }), 'orders', { found: true, value: null }).allowed).toBe(true);
  });

  it('says a rule that does not parse allows nothing, and still decides with the others', () => {
    const r = rules({ orders: ['locationId = = 1', "locationId = 'A'"] });
    expect(verdict('read', r, 'orders', doc({ locationId: 'A' }))).toEqual({
      allowed: true,
      reason: "read.queries_by_collection.orders: locationId = 'A' matches",
    });
    expect(verdict('read', r, 'orders', doc({ locationId: 'B' })).reason).toContain('locationId = = 1 does not parse and allows nothing');
  });

  it('treats a rule that fails to evaluate as not matching, and never throws', () => {
    const r = rules({ orders: ['items[0].qty > 1'] });
    expect(verdict('read', r, 'orders', doc({ items: 'not an array' })).allowed).toBe(false);
  });

  it('allows an offline peer without a certificate its own store', () => {
    expect(verdict('write', undefined, 'orders', { found: false })).toEqual({
      allowed: true,
      reason: 'no certificate: no rules apply to this peer locally (offline)',
    });
  });

  it('never takes an inherited property for a collection’s rules', () => {
    expect(verdict('read', rules({}), 'constructor', doc({})).allowed).toBe(false);
    expect(verdict('read', rules({}), '__proto__', doc({})).allowed).toBe(false);
  });
});
