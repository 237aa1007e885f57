import { describe, expect, it } from 'vitest';
import { windowSummary } from './result-window.ts';

const limit = { bytes: 64 * 1024 * 1024, rows: 250_000 };

describe('windowSummary', () => {
  it('names the first window, its share of the rows and the byte limit that cut it', () => {
    expect(windowSummary({ start: 0, statementRows: 100_000, limit, cutBy: 'bytes', placedBy: 'start' }, 83_503)).toEqual({
      rows: 'first 83,503 of 100,000 rows',
      limit: 'limit 64 MB per result',
      hasPrevious: false,
      hasNext: true,
    });
  });

  it('names a later window by its row numbers, counted from 1, and the row limit when rows cut it', () => {
    expect(windowSummary({ start: 250_000, statementRows: 600_000, limit, cutBy: 'rows', placedBy: 'row' }, 250_000)).toEqual({
      rows: 'rows 250,001–500,000 of 600,000 rows',
      limit: 'limit 250,000 rows per result',
      hasPrevious: true,
      hasNext: true,
    });
  });

  it('offers no next window once the last row is shown, and says when nothing is left after a window', () => {
    expect(windowSummary({ start: 83_503, statementRows: 100_000, limit, cutBy: null, placedBy: 'row' }, 16_497)).toMatchObject({
      hasNext: false,
      hasPrevious: true,
    });
    expect(windowSummary({ start: 100_000, statementRows: 100_000, limit, cutBy: null, placedBy: 'row' }, 0)).toMatchObject({
      rows: 'no rows after row 100,000 of 100,000 rows',
      hasNext: false,
    });
  });
});
