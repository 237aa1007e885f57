/**
 * `SyncLogger`: the process-wide logging configuration of the spec's API
 * (`SyncLogger.minimumLogLevel = 'DEBUG'` before a peer is created makes its start-up visible).
 * It configures the default hub that every peer uses unless given its own. Text lines go to
 * standard error by default.
 */
import type { LogEntry, LogLevel } from '../../shared/log.ts';
import { LogHub, type LogBatch, type LogSubscription } from './log-hub.ts';
import type { RotatingFileOptions } from './rotating-file.ts';

const defaultHub = new LogHub({ console: (line) => process.stderr.write(`${line}\n`) });
process.once('exit', () => defaultHub.flush());

export const SyncLogger = {
  /** The hub peers use by default. */
  get hub(): LogHub {
    return defaultHub;
  },
  get minimumLogLevel(): LogLevel {
    return defaultHub.minimumLogLevel;
  },
  set minimumLogLevel(level: LogLevel) {
    defaultHub.minimumLogLevel = level;
  },
  get enabled(): boolean {
    return defaultHub.enabled;
  },
  set enabled(on: boolean) {
    defaultHub.enabled = on;
  },
  /** Text lines to standard error (the default), to another sink, or (`undefined`) nowhere. */
  setConsole(write: ((line: string) => void) | undefined): void {
    defaultHub.setConsole(write);
  },
  setCustomLogCallback(callback: ((entry: LogEntry) => void) | undefined): void {
    defaultHub.setCustomLogCallback(callback);
  },
  setLogFile(path: string | undefined, options?: RotatingFileOptions): void {
    defaultHub.setLogFile(path, options);
  },
  exportLogs(path: string): number {
    return defaultHub.exportLogs(path);
  },
  subscribe(listener?: (batch: LogBatch) => void, options?: { capacity?: number }): LogSubscription {
    return defaultHub.subscribe(listener, options);
  },
};
