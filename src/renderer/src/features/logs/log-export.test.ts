import { describe, expect, it } from 'vitest';
import { exportFileName, exportText, fieldText, timeOfDay } from './log-export.ts';
import { logEntry } from '../../../../testing/renderer/log-entries.ts';

describe('log text', () => {
  it('exports entries in the spec text form, one line each', () => {
    const entries = [
      logEntry({ level: 'DEBUG', timestamp: '2026-11-21T12:00:00.000Z', message: 'Write txn committed; txn_id = 7; originator = User' }),
      logEntry({ level: 'WARN', timestamp: '2026-11-21T12:00:01.500Z', message: 'two\nlines' }),
    ];
    expect(exportText(entries)).toBe(
      '[DEBUG] 2026-11-21T12:00:00.000Z: Write txn committed; txn_id = 7; originator = User\n[WARN] 2026-11-21T12:00:01.500Z: two\\nlines\n',
    );
  });

  it('exports nothing as an empty file', () => {
    expect(exportText([])).toBe('');
  });

  it('shows the time of day of the entry’s own UTC timestamp', () => {
    expect(timeOfDay('2026-11-21T12:34:56.789Z')).toBe('12:34:56.789');
  });

  it('writes field values as text, lists in brackets', () => {
    expect(fieldText(['a', 'b'])).toBe('[a, b]');
    expect(fieldText(null)).toBe('null');
    expect(fieldText(false)).toBe('false');
  });

  it('names export files by time without characters file systems refuse', () => {
    expect(exportFileName(new Date('2026-11-21T12:00:00.123Z'))).toBe('syncmesh-logs-2026-11-21T12-00-00Z.log');
  });
});
