import { describe, expect, it } from 'vitest';
import { jsonTokens } from './json-tokens.ts';

const text = (value: unknown, options?: Parameters<typeof jsonTokens>[1]) =>
  jsonTokens(value, options)
    .map((token) => token.text)
    .join('');

describe('jsonTokens', () => {
  it('writes pretty JSON exactly as JSON.stringify with two spaces does', () => {
    const value = { _id: 'a', n: 1.5, ok: true, none: null, list: [1, { b: 'x' }], empty: {}, nothing: [] };
    expect(text(value)).toBe(JSON.stringify(value, null, 2));
  });

  it('writes one line with a space after colons and commas', () => {
    expect(text({ a: [1, 2], b: 'x' }, { indent: 0 })).toBe('{"a": [1, 2], "b": "x"}');
  });

  it('marks keys, strings, numbers and literals apart', () => {
    expect(jsonTokens({ k: 'v', n: 2, t: null }, { indent: 0 }).filter((t) => t.kind !== 'punct')).toEqual([
      { kind: 'key', text: '"k"' },
      { kind: 'string', text: '"v"' },
      { kind: 'key', text: '"n"' },
      { kind: 'number', text: '2' },
      { kind: 'key', text: '"t"' },
      { kind: 'literal', text: 'null' },
    ]);
  });

  it('stops at the length asked and ends with an ellipsis', () => {
    const written = text({ long: 'x'.repeat(100) }, { indent: 0, maxLength: 20 });
    expect(written.length).toBe(21);
    expect(written.endsWith('…')).toBe(true);
  });
});
