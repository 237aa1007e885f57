import { describe, expect, it } from 'vitest';
import { compactJson, countdown, formatAgo, formatBytes, formatCount, formatDuration, formatElapsed, formatTimestamp, plural, shortKey } from './format.ts';

describe('format', () => {
  it('writes counts with thousands separators', () => {
    expect(formatCount(100000)).toBe('100,000');
    expect(formatCount(0)).toBe('0');
  });

  it('writes sizes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(50 * 1024 * 1024)).toBe('50 MB');
    expect(formatBytes(-1)).toBe('—');
  });

  it('writes durations from milliseconds to days', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(4200)).toBe('4.2 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(2 * 3_600_000 + 7 * 60_000)).toBe('2 h 07 min');
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000)).toBe('3 d 4 h');
  });

  it('writes a statement’s elapsed time with the precision that matters', () => {
    expect(formatElapsed(0.42)).toBe('0.4 ms');
    expect(formatElapsed(12.4)).toBe('12 ms');
    expect(formatElapsed(1300)).toBe('1.30 s');
  });

  it('counts down to a deadline to the second, and says when it has passed', () => {
    expect(countdown(10_000, 0)).toEqual({ expired: false, text: '10 s', remainingMs: 10_000 });
    expect(countdown(3_725_000, 0).text).toBe('1 h 02 min 05 s');
    expect(countdown(249_500, 0).text).toBe('4 min 09 s');
    expect(countdown(2 * 86_400_000 + 3_600_000, 0).text).toBe('2 d 1 h 00 min');
    expect(countdown(0, 61_000)).toEqual({ expired: true, text: '1 min 01 s', remainingMs: -61_000 });
  });

  it('writes timestamps in UTC as the peer logs them', () => {
    expect(formatTimestamp('2026-03-04T05:06:07.089Z')).toBe('2026-03-04 05:06:07.089');
    expect(formatTimestamp(0)).toBe('1970-01-01 00:00:00.000');
    expect(formatTimestamp('not a time')).toBe('not a time');
  });

  it('says how long ago something happened', () => {
    expect(formatAgo(1000, 1500)).toBe('just now');
    expect(formatAgo(0, 12_000)).toBe('12 s ago');
    expect(formatAgo(0, 3 * 60_000)).toBe('3 min ago');
    expect(formatAgo(0, 5 * 86_400_000)).toBe('5 d ago');
  });

  it('shortens long keys and leaves short ones alone', () => {
    expect(shortKey('pk_0123456789abcdef')).toBe('pk_01234…cdef');
    expect(shortKey('short')).toBe('short');
  });

  it('writes JSON in one line, cut to a length', () => {
    expect(compactJson({ a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(compactJson('x'.repeat(10), 5)).toBe('"xxx…');
  });

  it('writes singular and plural', () => {
    expect(plural(1, 'document')).toBe('1 document');
    expect(plural(2000, 'match', 'matches')).toBe('2,000 matches');
  });
});
