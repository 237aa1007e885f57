import { describe, expect, it } from 'vitest';
import { statementCollection, statementKind } from './statement-scan.ts';

describe('statementCollection and statementKind', () => {
  it('finds the collection a statement reads or writes', () => {
    expect(statementCollection('SELECT * FROM orders WHERE a = 1')).toBe('orders');
    expect(statementCollection('select count(*) from `my orders`')).toBe('my orders');
    expect(statementCollection('INSERT INTO COLLECTION people DOCUMENTS (:doc)')).toBe('people');
    expect(statementCollection('UPDATE tasks SET done = true')).toBe('tasks');
    expect(statementCollection('EVICT FROM collection WHERE x = 1')).toBe('collection');
    expect(statementCollection("-- FROM nowhere\nSELECT 'FROM x' AS a FROM /* FROM y */ flights")).toBe('flights');
  });

  it('finds nothing in a statement without a collection', () => {
    expect(statementCollection('')).toBeUndefined();
    expect(statementCollection('SELECT * FROM')).toBeUndefined();
    expect(statementCollection('SELECT * FROM (')).toBeUndefined();
  });

  it('finds no collection of documents in index commands, plans and system collections', () => {
    expect(statementCollection('EXPLAIN SELECT * FROM orders WHERE total > 5')).toBeUndefined();
    expect(statementCollection('CREATE INDEX by_total ON orders (total)')).toBeUndefined();
    expect(statementCollection('drop index by_total on orders')).toBeUndefined();
    expect(statementCollection('SELECT * FROM system:indexes')).toBeUndefined();
    expect(statementCollection('SELECT * FROM `system`')).toBe('system');
  });

  it('tells the kind of statement by its first word, after comments', () => {
    expect(statementKind('  -- hello\n select * from a')).toBe('select');
    expect(statementKind('EVICT FROM a')).toBe('evict');
    expect(statementKind('`select`')).toBeUndefined();
    expect(statementKind('')).toBeUndefined();
  });
});
