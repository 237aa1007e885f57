import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json.ts';

describe('jsonEqual', () => {
  it('compares objects by entries and arrays by elements', () => {
    expect(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual(0, -0)).toBe(true);
    expect(jsonEqual(null, {})).toBe(false);
  });
});
