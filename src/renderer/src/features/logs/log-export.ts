/** The Logs panel's text: the time column, field values, and the export file. */
import { renderLogLine, type LogEntry, type LogFieldValue } from '../../../../shared/log.ts';

/** `12:00:00.123` from an ISO 8601 UTC timestamp (the log's own time, not the viewer's zone). */
export function timeOfDay(timestamp: string): string {
  const t = timestamp.indexOf('T');
  if (t === -1) return timestamp;
  return timestamp.slice(t + 1).replace(/Z$/, '');
}

export function fieldText(value: LogFieldValue): string {
  if (Array.isArray(value)) return `[${value.join(', ')}]`;
  return value === null ? 'null' : String(value);
}

/** The spec's text form, one line per entry, as log files hold it. */
export function exportText(entries: Iterable<LogEntry>): string {
  const lines: string[] = [];
  for (const entry of entries) lines.push(renderLogLine(entry));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** `syncmesh-logs-2026-11-21T12-00-00Z.log`: sortable, and legal on every file system. */
export function exportFileName(now: Date): string {
  return `syncmesh-logs-${now
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-')}.log`;
}

/**
 * Saves text as a file through an `<a download>`: the same in a browser and in the Electron
 * window (which shows its save dialog), and it needs no privileged API.
 */
export function downloadText(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked on the next turn: the download has taken the Blob by then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
