/**
 * Where a peer's log entries go. A hub filters by level, stamps entries with its clock, keeps
 * the most recent ones (for export and for late subscribers), and hands them to the console,
 * a custom callback, a rotating file, and any number of subscribers, each with its own bounded
 * ring buffer so that a slow subscriber never slows the peer: it loses the oldest entries and
 * is told how many.
 *
 * `SyncLogger` (sync-logger.ts) is the process-wide hub the spec's API configures; peers take a
 * hub as an option, so tests give each peer its own.
 */
import { writeFileSync } from 'node:fs';
import { LOG_LEVELS, isLevelEnabled, renderLogLine, type LogEntry, type LogFieldValue, type LogLevel } from '../../shared/log.ts';
import { renderMessage } from './messages.ts';
import { RingBuffer } from './ring-buffer.ts';
import { RotatingFile, type RotatingFileOptions } from './rotating-file.ts';

export interface LogHubOptions {
  /** Wall-clock milliseconds for timestamps (injected in tests). */
  readonly now?: () => number;
  readonly minimumLogLevel?: LogLevel;
  /** Where text lines go besides the file and callback; none by default. */
  readonly console?: (line: string) => void;
  /** How many recent entries are kept for export (default 10,000). */
  readonly recentCapacity?: number;
}

export interface LogBatch {
  readonly entries: readonly LogEntry[];
  /** Entries this subscriber lost since the previous batch because it fell behind. */
  readonly dropped: number;
}

export interface LogSubscription {
  /** Entries lost so far because the subscriber fell behind. */
  readonly dropped: number;
  /** Takes what is waiting (for pull-style subscribers). */
  take(): LogBatch;
  close(): void;
}

class Subscriber implements LogSubscription {
  readonly ring: RingBuffer<LogEntry>;
  readonly #listener: ((batch: LogBatch) => void) | undefined;
  readonly #hub: LogHub;
  #scheduled = false;
  #closed = false;
  #dropped = 0;

  constructor(hub: LogHub, capacity: number, listener: ((batch: LogBatch) => void) | undefined) {
    this.#hub = hub;
    this.ring = new RingBuffer(capacity);
    this.#listener = listener;
  }

  get dropped(): number {
    return this.#dropped + this.ring.dropped;
  }

  push(entry: LogEntry): void {
    if (this.#closed) return;
    this.ring.push(entry);
    if (this.#listener !== undefined && !this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#deliver());
    }
  }

  #deliver(): void {
    this.#scheduled = false;
    // A batch still pending when the subscription closed is not delivered: close() means no more calls.
    if (this.#closed) return;
    const batch = this.take();
    if (batch.entries.length === 0 && batch.dropped === 0) return;
    try {
      this.#listener?.(batch);
    } catch {
      // A failing listener must not crash the process (this runs on its own turn) or stop later batches.
    }
  }

  take(): LogBatch {
    const { items, dropped } = this.ring.take();
    this.#dropped += dropped;
    return { entries: items, dropped };
  }

  close(): void {
    this.#closed = true;
    this.#hub.unsubscribe(this);
  }
}

export class LogHub {
  #minimumLogLevel: LogLevel = 'INFO';
  /** When false, nothing is recorded. */
  enabled = true;
  readonly #now: () => number;
  readonly #recent: RingBuffer<LogEntry>;
  readonly #subscribers = new Set<Subscriber>();
  #console: ((line: string) => void) | undefined;
  #callback: ((entry: LogEntry) => void) | undefined;
  #file: RotatingFile | undefined;
  #flushTimer: NodeJS.Timeout | undefined;
  #seq = 0;

  constructor(options: LogHubOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.minimumLogLevel = options.minimumLogLevel ?? 'INFO';
    this.#console = options.console;
    this.#recent = new RingBuffer(options.recentCapacity ?? 10_000);
  }

  /** Entries below this level are not recorded anywhere. Accepts any letter case (`'debug'`). */
  get minimumLogLevel(): LogLevel {
    return this.#minimumLogLevel;
  }

  set minimumLogLevel(level: LogLevel) {
    const normalised = String(level).toUpperCase();
    if (!(LOG_LEVELS as readonly string[]).includes(normalised)) {
      throw new TypeError(`minimumLogLevel takes one of ${LOG_LEVELS.join(', ')}, not ${String(level)}`);
    }
    this.#minimumLogLevel = normalised as LogLevel;
  }

  /** Would an entry at this level be recorded? Check before building costly fields. */
  isEnabled(level: LogLevel): boolean {
    return this.enabled && isLevelEnabled(level, this.minimumLogLevel);
  }

  /** Records an entry (if its level is enabled) and returns it. */
  emit(level: LogLevel, component: string, event: string, fields: Readonly<Record<string, LogFieldValue>> = {}): LogEntry | undefined {
    if (!this.isEnabled(level)) return undefined;
    const entry: LogEntry = {
      seq: ++this.#seq,
      level,
      timestamp: new Date(this.#now()).toISOString(),
      component,
      event,
      fields,
      message: renderMessage(event, fields),
    };
    this.#recent.push(entry);
    if (this.#console !== undefined || this.#file !== undefined) {
      const line = renderLogLine(entry);
      // A failing sink (a closed pipe, a full disk) must not break the code that logged, nor the other sinks.
      try {
        this.#console?.(line);
      } catch {
        // the line is lost to this sink only
      }
      try {
        this.#file?.append(line);
      } catch {
        // the line is lost to this sink only
      }
    }
    if (this.#callback !== undefined) {
      try {
        this.#callback(entry);
      } catch {
        // A failing callback must not break the code that logged.
      }
    }
    for (const s of this.#subscribers) s.push(entry);
    return entry;
  }

  /** A logger for one component of a peer. */
  logger(component: string): Logger {
    return new Logger(this, component);
  }

  /** Text lines to a console-like sink (e.g. stderr), or none. */
  setConsole(write: ((line: string) => void) | undefined): void {
    this.#console = write;
  }

  /** Every entry recorded is also given to this function (or to none). */
  setCustomLogCallback(callback: ((entry: LogEntry) => void) | undefined): void {
    this.#callback = callback;
  }

  /** Also write text lines to a file, rotated by size; `undefined` stops writing to a file. */
  setLogFile(path: string | undefined, options: RotatingFileOptions = {}): void {
    this.#file?.close();
    this.#file = path === undefined ? undefined : new RotatingFile(path, options);
    if (this.#flushTimer !== undefined) clearInterval(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#file !== undefined) {
      this.#flushTimer = setInterval(() => {
        try {
          this.flush();
        } catch {
          // A full or vanished disk must not crash the process; lines stay buffered for the next try.
        }
      }, 250);
      this.#flushTimer.unref();
    }
  }

  /** Writes buffered file lines now. */
  flush(): void {
    this.#file?.flush();
  }

  /** Writes the recent entries (oldest first) as text to a file; returns how many. */
  exportLogs(path: string): number {
    const entries = this.#recent.toArray();
    writeFileSync(path, entries.map((e) => `${renderLogLine(e)}\n`).join(''));
    return entries.length;
  }

  /** The recent entries kept by the hub, oldest first. */
  recentEntries(): LogEntry[] {
    return this.#recent.toArray();
  }

  /**
   * Receives entries as they are recorded, in batches delivered after the current turn of the
   * event loop (or taken with `take()` when no listener is given). At most `capacity` entries
   * wait; beyond that the oldest are dropped and counted.
   */
  subscribe(listener?: (batch: LogBatch) => void, options: { capacity?: number } = {}): LogSubscription {
    const s = new Subscriber(this, options.capacity ?? 10_000, listener);
    this.#subscribers.add(s);
    return s;
  }

  /** @internal */
  unsubscribe(s: Subscriber): void {
    this.#subscribers.delete(s);
  }

  /** Flushes and closes the file; the hub keeps working without it. */
  close(): void {
    this.setLogFile(undefined);
  }
}

/** A component's view of a hub: `log.debug(LOG_EVENTS.x, { … })`. */
export class Logger {
  readonly hub: LogHub;
  readonly component: string;

  constructor(hub: LogHub, component: string) {
    this.hub = hub;
    this.component = component;
  }

  child(component: string): Logger {
    return new Logger(this.hub, component);
  }

  isEnabled(level: LogLevel): boolean {
    return this.hub.isEnabled(level);
  }

  log(level: LogLevel, event: string, fields?: Readonly<Record<string, LogFieldValue>>): LogEntry | undefined {
    return this.hub.emit(level, this.component, event, fields);
  }

  error(event: string, fields?: Readonly<Record<string, LogFieldValue>>): LogEntry | undefined {
    return this.hub.emit('ERROR', this.component, event, fields);
  }

  warn(event: string, fields?: Readonly<Record<string, LogFieldValue>>): LogEntry | undefined {
    return this.hub.emit('WARN', this.component, event, fields);
  }

  info(event: string, fields?: Readonly<Record<string, LogFieldValue>>): LogEntry | undefined {
    return this.hub.emit('INFO', this.component, event, fields);
  }

  debug(event: string, fields?: Readonly<Record<string, LogFieldValue>>): LogEntry | undefined {
    return this.hub.emit('DEBUG', this.component, event, fields);
  }

  verbose(event: string, fields?: Readonly<Record<string, LogFieldValue>>): LogEntry | undefined {
    return this.hub.emit('VERBOSE', this.component, event, fields);
  }
}
