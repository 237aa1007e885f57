import { describe, expect, it } from 'vitest';
import { columnWidths, extendColumns } from './columns.ts';

describe('result columns', () => {
  it('puts _id first and the other fields in the order they first appear', () => {
    expect(
      extendColumns(
        [],
        [
          { b: 1, _id: 'x' },
          { c: 1, b: 2 },
        ],
      ),
    ).toEqual(['_id', 'b', 'c']);
  });

  it('appends the fields a later page brings, and keeps the same array when there are none', () => {
    const columns = extendColumns([], [{ _id: 1, a: 1 }]);
    expect(extendColumns(columns, [{ _id: 2, a: 2 }])).toBe(columns);
    expect(extendColumns(columns, [{ z: 1 }])).toEqual(['_id', 'a', 'z']);
  });

  it('stops at the column limit', () => {
    expect(extendColumns([], [{ a: 1, b: 1, c: 1 }], 2)).toEqual(['a', 'b']);
  });

  it('sizes columns to their usual values, within bounds', () => {
    const widths = columnWidths(['_id', 'n', 'text'], [{ _id: '0194f1c2-7b3a-7000-8000-000000000000', n: 1, text: 'x'.repeat(500) }]);
    expect(widths['n']).toBe(72);
    expect(widths['text']).toBe(340);
    expect(widths['_id']).toBeGreaterThan(250);
  });
});
