/**
 * `SyncLogger`, the process-wide logging configuration (spec section 4.6): its minimum level
 * must be set before a `Sync` is created for the start-up lines to be logged. These tests
 * configure the real default hub, print nothing, and put every setting back afterwards.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOG_EVENTS, type LogEntry, type LogLevel } from '../../shared/log.ts';
import { Sync } from './sync.ts';
import type { LogSubscription } from '../log/log-hub.ts';
import { SyncLogger } from '../log/sync-logger.ts';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('SyncLogger', () => {
  let dir: string;
  let savedLevel: LogLevel;
  let savedEnabled: boolean;
  const subscriptions: LogSubscription[] = [];
  const syncs: Sync[] = [];

  const openSync = (): Sync => {
    const sync = new Sync({ persistenceDirectory: dir });
    syncs.push(sync);
    return sync;
  };
  const subscribe = (): LogSubscription => {
    const subscription = SyncLogger.subscribe();
    subscriptions.push(subscription);
    return subscription;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sync-logger-'));
    savedLevel = SyncLogger.minimumLogLevel;
    savedEnabled = SyncLogger.enabled;
    SyncLogger.setConsole(undefined);
  });

  afterEach(() => {
    for (const sync of syncs.splice(0)) sync.close();
    for (const subscription of subscriptions.splice(0)) subscription.close();
    SyncLogger.minimumLogLevel = savedLevel;
    SyncLogger.enabled = savedEnabled;
    SyncLogger.setCustomLogCallback(undefined);
    SyncLogger.setLogFile(undefined);
    SyncLogger.setConsole((line) => process.stderr.write(`${line}\n`));
    rmSync(dir, { recursive: true, force: true });
  });

  /** The start-up lines of a new store in `dir`, as the spec's text. */
  const startUpMessages = (peerKey: string): string[] => [
    `Opening store; directory = ${dir}`,
    `Store directory locked; lock_file = ${join(dir, 'lock')}`,
    `Store database ready; file = ${join(dir, 'store.sqlite')}; schema_version = 5; migrated_from = 0`,
    `Store opened; path = ${dir}; peer_key = ${peerKey}; last_txn_id = 0`,
  ];

  it('is the hub a Sync logs to when given none', () => {
    const received: LogEntry[] = [];
    SyncLogger.setCustomLogCallback((entry) => received.push(entry));
    openSync().close();
    expect(received.map((e) => e.message)).toContain('Shutting down');
    expect(SyncLogger.hub.recentEntries().at(-1)?.message).toBe('Deallocating');
  });

  it('shows the start-up lines through the custom callback when set to DEBUG before the Sync is created', () => {
    const received: LogEntry[] = [];
    SyncLogger.minimumLogLevel = 'DEBUG';
    SyncLogger.setCustomLogCallback((entry) => received.push(entry));
    const sync = openSync();
    expect(received.map((e) => e.message)).toEqual(startUpMessages(sync.peerKey));
    expect(received.map((e) => [e.level, e.component, e.event])).toEqual([
      ['DEBUG', 'store', LOG_EVENTS.storeOpening],
      ['DEBUG', 'store', LOG_EVENTS.storeLocked],
      ['DEBUG', 'store', LOG_EVENTS.storeMigrated],
      ['DEBUG', 'store', LOG_EVENTS.storeOpened],
    ]);
    expect(received[3]?.fields).toEqual({ path: dir, peer_key: sync.peerKey, last_txn_id: 0 });
    for (const entry of received) expect(entry.timestamp).toMatch(ISO_UTC_MS);
  });

  it('shows the start-up lines to a subscriber when set to DEBUG before the Sync is created', () => {
    SyncLogger.minimumLogLevel = 'DEBUG';
    const subscription = subscribe();
    const sync = openSync();
    const batch = subscription.take();
    expect(batch.dropped).toBe(0);
    expect(batch.entries.map((e) => e.message)).toEqual(startUpMessages(sync.peerKey));
  });

  it('renders the start-up lines in the spec’s text form on its console', () => {
    const lines: string[] = [];
    SyncLogger.minimumLogLevel = 'DEBUG';
    SyncLogger.setConsole((line) => lines.push(line));
    const sync = openSync();
    expect(lines).toHaveLength(4);
    lines.forEach((line, i) => {
      const match = /^\[DEBUG\] (\S+): (.*)$/.exec(line);
      expect(match?.[1]).toMatch(ISO_UTC_MS);
      expect(match?.[2]).toBe(startUpMessages(sync.peerKey)[i]);
    });
  });

  it('says the schema was ready without migrating when the store is reopened', () => {
    openSync().close();
    syncs.length = 0;
    SyncLogger.minimumLogLevel = 'DEBUG';
    const subscription = subscribe();
    const sync = openSync();
    expect(subscription.take().entries.map((e) => e.message)).toEqual([
      `Opening store; directory = ${dir}`,
      `Store directory locked; lock_file = ${join(dir, 'lock')}`,
      `Store database ready; file = ${join(dir, 'store.sqlite')}; schema_version = 5`,
      `Store opened; path = ${dir}; peer_key = ${sync.peerKey}; last_txn_id = 0`,
    ]);
  });

  it('hides the start-up lines at INFO', () => {
    expect(SyncLogger.minimumLogLevel).toBe('INFO');
    const received: LogEntry[] = [];
    SyncLogger.setCustomLogCallback((entry) => received.push(entry));
    const subscription = subscribe();
    openSync();
    expect(received).toEqual([]);
    expect(subscription.take()).toEqual({ entries: [], dropped: 0 });
  });

  it('misses the start-up lines when set to DEBUG only after the Sync is created', () => {
    const received: LogEntry[] = [];
    SyncLogger.setCustomLogCallback((entry) => received.push(entry));
    openSync();
    SyncLogger.minimumLogLevel = 'DEBUG';
    expect(received).toEqual([]);
  });

  it('records nothing while disabled, not even the shutdown sequence', () => {
    const received: LogEntry[] = [];
    SyncLogger.minimumLogLevel = 'VERBOSE';
    SyncLogger.enabled = false;
    SyncLogger.setCustomLogCallback((entry) => received.push(entry));
    openSync().close();
    expect(received).toEqual([]);
    expect(SyncLogger.enabled).toBe(false);
  });

  it('configures the default hub through its minimumLogLevel and enabled properties', () => {
    SyncLogger.minimumLogLevel = 'WARN';
    expect(SyncLogger.hub.minimumLogLevel).toBe('WARN');
    expect(SyncLogger.hub.isEnabled('INFO')).toBe(false);
    SyncLogger.enabled = false;
    expect(SyncLogger.hub.enabled).toBe(false);
    expect(SyncLogger.hub.isEnabled('ERROR')).toBe(false);
  });

  it('does not break the Sync when its custom callback throws', () => {
    SyncLogger.minimumLogLevel = 'DEBUG';
    SyncLogger.setCustomLogCallback(() => {
      throw new Error('callback failed');
    });
    const sync = openSync();
    sync.close();
    expect(sync.isClosed).toBe(true);
    openSync(); // the directory was released
  });

  it('writes its lines to a log file and exports its recent lines', () => {
    SyncLogger.minimumLogLevel = 'DEBUG';
    const logFile = join(dir, 'logs', 'sync.log');
    SyncLogger.setLogFile(logFile);
    const sync = openSync();
    sync.close();
    SyncLogger.setLogFile(undefined); // flushes
    const messages = (text: string): string[] =>
      text
        .trimEnd()
        .split('\n')
        .map((line) => line.replace(/^\[[A-Z]+\] \S+: /, ''));
    const expected = [
      ...startUpMessages(sync.peerKey),
      'Shutting down',
      'Peer shutting down',
      'Stopping the HTTP server (none running)',
      'Stopping the TCP server (none running)',
      'Peer shutdown done',
      'shutdown complete',
      'Deallocating',
    ];
    expect(messages(readFileSync(logFile, 'utf8'))).toEqual(expected);
    const exported = join(dir, 'export.log');
    const count = SyncLogger.exportLogs(exported);
    expect(count).toBe(SyncLogger.hub.recentEntries().length);
    expect(messages(readFileSync(exported, 'utf8')).slice(-expected.length)).toEqual(expected);
  });
});
