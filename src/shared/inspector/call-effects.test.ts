import { describe, expect, it } from 'vitest';
import { CALL_NAMES } from './contract.ts';
import { isReadStatement, mayChangePeer, READ_CALLS } from './call-effects.ts';

describe('mayChangePeer', () => {
  it('lets reads wait and takes every other call, and statements other than SELECT and EXPLAIN, for a change', () => {
    expect(mayChangePeer('overview:get', {})).toBe(false);
    expect(mayChangePeer('documents:trace', { collection: 'c', id: 'a' })).toBe(false);
    // Another window of a kept SELECT: the statement runs again, and it only reads.
    expect(mayChangePeer('documents:window', { resultId: 'r', direction: 'next' })).toBe(false);
    expect(mayChangePeer('documents:query', { statement: '/* x */ SELECT 1 FROM c' })).toBe(false);
    expect(mayChangePeer('documents:query', { statement: 'explain delete from c' })).toBe(false);
    expect(mayChangePeer('documents:query', { statement: 'INSERT INTO c DOCUMENTS ({})' })).toBe(true);
    expect(mayChangePeer('documents:query', { statement: 'CREATE INDEX i ON c (a)' })).toBe(true);
    expect(mayChangePeer('documents:query', {})).toBe(true);
    expect(mayChangePeer('transactions:hold', { ms: 10 })).toBe(true);
    expect(mayChangePeer('sync:stop', {})).toBe(true);
  });

  it('reads a statement’s first word past comments, and never takes a quoted name or an empty text for a read', () => {
    expect(isReadStatement('-- orders\n  select * from orders')).toBe(true);
    expect(isReadStatement('`SELECT` FROM c')).toBe(false);
    expect(isReadStatement("'SELECT'")).toBe(false);
    expect(isReadStatement('   ')).toBe(false);
    expect(isReadStatement('/* unfinished')).toBe(false);
    expect(isReadStatement('EVICT FROM orders WHERE true')).toBe(false);
    expect(isReadStatement('UPDATE orders SET a = 1')).toBe(false);
  });

  it('names only calls the contract has', () => {
    for (const name of READ_CALLS) expect(CALL_NAMES).toContain(name);
  });
});
