import { describe, expect, it } from 'vitest';
import { MAX_INLINED_CHARS, joinedStatements, literalOf } from './pg-inline.ts';

describe('statements joined into one text', () => {
  it('writes values as the literals of the text pg would send for them', () => {
    expect(literalOf(null)).toBe('NULL');
    expect(literalOf(undefined)).toBe('NULL');
    expect(literalOf("it's")).toBe("'it''s'");
    expect(literalOf('a\\b')).toBe(" E'a\\\\b'");
    expect(literalOf(true)).toBe("'true'");
    expect(literalOf(42)).toBe("'42'");
    expect(literalOf(Buffer.from([1, 0xab]))).toBe(" E'\\\\x01ab'");
    expect(literalOf(new Uint8Array([2, 3]))).toBe(" E'\\\\x0203'");
    expect(literalOf(['a', "b'c", null])).toBe(`'{"a","b''c",NULL}'`);
  });

  it('puts each parameter in its place, leaving quoted literals and identifiers alone', () => {
    const joined = joinedStatements([
      { sql: 'SAVEPOINT g2' },
      { sql: `SELECT '$1', "col$2", decode($2, 'hex'), $1, $10`, params: ['x', 'ab', 3, 4, 5, 6, 7, 8, 9, '$1'] },
    ]);
    expect(joined).toEqual({ sql: `SAVEPOINT g2; SELECT '$1', "col$2", decode('ab', 'hex'), 'x', '$1'` });
  });

  it('leaves the statements apart when their literals are too large or a parameter is missing', () => {
    expect(joinedStatements([{ sql: 'SAVEPOINT g2' }, { sql: 'SELECT $1', params: ['x'.repeat(MAX_INLINED_CHARS)] }])).toBeUndefined();
    expect(joinedStatements([{ sql: 'SAVEPOINT g2' }, { sql: 'SELECT $2', params: ['x'] }])).toBeUndefined();
  });
});
