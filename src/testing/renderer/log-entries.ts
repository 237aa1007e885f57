/** Log entries for the Logs panel's tests. */
import type { LogEntry, LogFieldValue, LogLevel } from '../../shared/log.ts';

let seq = 0;

export function logEntry(overrides: Partial<LogEntry> & { readonly fields?: Readonly<Record<string, LogFieldValue>> } = {}): LogEntry {
  seq += 1;
  return {
    seq,
    level: 'INFO',
    timestamp: new Date(Date.UTC(2026, 10, 21, 12, 0, 0, seq % 1000)).toISOString(),
    component: 'txn',
    event: 'txn.committed',
    fields: {},
    message: `entry ${seq}`,
    ...overrides,
  };
}

export function logEntries(count: number, level: LogLevel = 'INFO', component = 'txn'): LogEntry[] {
  return Array.from({ length: count }, () => logEntry({ level, component }));
}
