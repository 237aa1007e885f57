import { describe, expect, it } from 'vitest';
import { idToText, parseIdInput } from './model.ts';

describe('the _id typed for an access check', () => {
  it('reads plain text as a string id and JSON as JSON', () => {
    expect(parseIdInput(' o1 ')).toBe('o1');
    expect(parseIdInput('42')).toBe(42);
    expect(parseIdInput('"42"')).toBe('42');
    expect(parseIdInput('{"shop": 1}')).toEqual({ shop: 1 });
    expect(parseIdInput('true')).toBe('true');
    expect(parseIdInput('[1]')).toBe('[1]');
    expect(parseIdInput('   ')).toBeUndefined();
  });

  it('writes every id so that it reads back the same', () => {
    for (const id of ['o1', '42', 'true', ' padded ', '"quoted"', 42, { shop: 1, n: [1] }]) expect(parseIdInput(idToText(id))).toEqual(id);
  });
});
