/** The Logs panel: the live stream of structured entries. */
import type { LogEntry, LogLevel } from '../log.ts';

export interface LogsSnapshot {
  /** The peer's recent entries, oldest first. */
  readonly entries: readonly LogEntry[];
  readonly minimumLogLevel: LogLevel;
  /** Entries the peer dropped for this client so far (it fell behind). */
  readonly dropped: number;
}

/** A batch pushed to the inspector. */
export interface LogBatchEvent {
  readonly entries: readonly LogEntry[];
  /** Entries lost since the previous batch because the client fell behind; never hidden. */
  readonly dropped: number;
}
