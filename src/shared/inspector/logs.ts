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
  /**
   * Entries the peer's ring dropped since the previous batch because this session fell behind
   * (it holds 10,000). It does not count what a bridge loses: the WebSocket bridge cuts a socket
   * that stops reading with over 64 MiB waiting, and what was sent into the cut socket, or logged
   * before the page reconnects (a new session), is lost without a count; `logs:recent` on the
   * new session gives the hub's recent entries again.
   */
  readonly dropped: number;
}
