/**
 * The log hub: level filtering, the spec's text form, the sinks (console, custom callback,
 * rotating file, export) and subscribers with bounded buffers. Each test has its own hub and clock.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOG_EVENTS, LOG_LEVELS, isLevelEnabled, renderLogLine, type LogEntry, type LogLevel } from '../../shared/log.ts';
import { ManualTimers } from '../time.ts';
import { LogHub, type LogBatch, type LogHubOptions } from './log-hub.ts';
import { renderMessage } from './messages.ts';

/** One turn of the event loop: batches scheduled with setImmediate before it have been delivered. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A hub on a manual clock starting at 2026-11-21T12:00:00.000Z, with its console lines collected. */
function hubWithClock(options: Omit<LogHubOptions, 'now' | 'console'> = {}): { hub: LogHub; clock: ManualTimers; lines: string[] } {
  const clock = new ManualTimers(Date.UTC(2026, 10, 21, 12, 0, 0));
  const lines: string[] = [];
  const hub = new LogHub({ ...options, now: () => clock.now(), console: (line) => lines.push(line) });
  return { hub, clock, lines };
}

/** Emits one entry per level, most severe first. */
function emitAtEveryLevel(hub: LogHub): (LogEntry | undefined)[] {
  return LOG_LEVELS.map((level) => hub.emit(level, 'test', LOG_EVENTS.writeTxnCommitted, { txn_id: 1, originator: level }));
}

const commit = (hub: LogHub, txnId: number): LogEntry | undefined =>
  hub.emit('INFO', 'txn', LOG_EVENTS.writeTxnCommitted, { txn_id: txnId, originator: 'User' });

describe('the text form of a log entry', () => {
  it('is [<LEVEL>] <ISO 8601 UTC timestamp with milliseconds>: <message>', () => {
    const { hub, lines } = hubWithClock({ minimumLogLevel: 'DEBUG' });
    hub.logger('store').child('txn').debug(LOG_EVENTS.writeTxnCommitted, { txn_id: 1, originator: 'User' });
    expect(lines).toEqual(['[DEBUG] 2026-11-21T12:00:00.000Z: Write txn committed; txn_id = 1; originator = User']);
  });

  it('stamps each entry with the injected clock, in UTC, with milliseconds', () => {
    const { hub, clock, lines } = hubWithClock();
    hub.emit('WARN', 'txn', LOG_EVENTS.databaseChangeNotified, { transaction: 7 });
    clock.advance(61_007);
    hub.emit('ERROR', 'sync', LOG_EVENTS.shutdownComplete);
    expect(lines).toEqual([
      '[WARN] 2026-11-21T12:00:00.000Z: Notifying a database change; transaction = 7',
      '[ERROR] 2026-11-21T12:01:01.007Z: shutdown complete',
    ]);
    expect(hub.recentEntries().map((e) => e.timestamp)).toEqual(['2026-11-21T12:00:00.000Z', '2026-11-21T12:01:01.007Z']);
  });

  it('renders from the level, timestamp and message alone', () => {
    expect(renderLogLine({ level: 'VERBOSE', timestamp: '2026-01-02T03:04:05.067Z', message: 'Peer shutdown done' })).toBe(
      '[VERBOSE] 2026-01-02T03:04:05.067Z: Peer shutdown done',
    );
  });

  it('has a spec text for every event in LOG_EVENTS', () => {
    for (const event of Object.values(LOG_EVENTS)) {
      expect(renderMessage(event, {}), event).not.toContain(event);
    }
  });

  it('still renders an event it has no text for, as its name and fields', () => {
    const { hub, lines } = hubWithClock();
    hub.emit('INFO', 'test', 'test.unknown-event', { a: 1, b: ['x'] });
    expect(lines).toEqual(['[INFO] 2026-11-21T12:00:00.000Z: test.unknown-event {"a":1,"b":["x"]}']);
  });
});

describe('log levels', () => {
  it('orders them ERROR, WARN, INFO, DEBUG, VERBOSE, from most to least severe', () => {
    expect(LOG_LEVELS).toEqual(['ERROR', 'WARN', 'INFO', 'DEBUG', 'VERBOSE']);
    const shown = (minimum: LogLevel): LogLevel[] => LOG_LEVELS.filter((level) => isLevelEnabled(level, minimum));
    expect(shown('ERROR')).toEqual(['ERROR']);
    expect(shown('WARN')).toEqual(['ERROR', 'WARN']);
    expect(shown('INFO')).toEqual(['ERROR', 'WARN', 'INFO']);
    expect(shown('DEBUG')).toEqual(['ERROR', 'WARN', 'INFO', 'DEBUG']);
    expect(shown('VERBOSE')).toEqual(['ERROR', 'WARN', 'INFO', 'DEBUG', 'VERBOSE']);
  });

  it('records ERROR, WARN and INFO but not DEBUG or VERBOSE at the default minimum of INFO', () => {
    const { hub, lines } = hubWithClock();
    expect(hub.minimumLogLevel).toBe('INFO');
    const returned = emitAtEveryLevel(hub);
    expect(returned.map((e) => e?.level)).toEqual(['ERROR', 'WARN', 'INFO', undefined, undefined]);
    expect(hub.recentEntries().map((e) => e.level)).toEqual(['ERROR', 'WARN', 'INFO']);
    expect(lines.map((l) => l.slice(0, l.indexOf(']') + 1))).toEqual(['[ERROR]', '[WARN]', '[INFO]']);
    expect(hub.isEnabled('INFO')).toBe(true);
    expect(hub.isEnabled('DEBUG')).toBe(false);
    expect(hub.isEnabled('VERBOSE')).toBe(false);
  });

  it('records everything at VERBOSE', () => {
    const { hub } = hubWithClock({ minimumLogLevel: 'VERBOSE' });
    emitAtEveryLevel(hub);
    expect(hub.recentEntries().map((e) => e.level)).toEqual(['ERROR', 'WARN', 'INFO', 'DEBUG', 'VERBOSE']);
  });

  it('records only errors at ERROR', () => {
    const { hub } = hubWithClock({ minimumLogLevel: 'ERROR' });
    emitAtEveryLevel(hub);
    expect(hub.recentEntries().map((e) => e.level)).toEqual(['ERROR']);
  });

  it('takes a new minimum level at once', () => {
    const { hub } = hubWithClock();
    expect(hub.emit('DEBUG', 'test', LOG_EVENTS.deallocating)).toBeUndefined();
    hub.minimumLogLevel = 'DEBUG';
    expect(hub.emit('DEBUG', 'test', LOG_EVENTS.deallocating)?.message).toBe('Deallocating');
    hub.minimumLogLevel = 'WARN';
    expect(hub.emit('INFO', 'test', LOG_EVENTS.deallocating)).toBeUndefined();
  });

  it('records nothing anywhere while disabled, at any level', () => {
    const { hub, lines } = hubWithClock({ minimumLogLevel: 'VERBOSE' });
    const called: LogEntry[] = [];
    hub.setCustomLogCallback((entry) => called.push(entry));
    const subscription = hub.subscribe();
    hub.enabled = false;
    expect(emitAtEveryLevel(hub)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    for (const level of LOG_LEVELS) expect(hub.isEnabled(level)).toBe(false);
    expect(lines).toEqual([]);
    expect(called).toEqual([]);
    expect(hub.recentEntries()).toEqual([]);
    expect(subscription.take()).toEqual({ entries: [], dropped: 0 });
    hub.enabled = true;
    expect(hub.emit('ERROR', 'test', LOG_EVENTS.deallocating)?.seq).toBe(1);
  });
});

describe('log entries', () => {
  it('carry seq, level, timestamp, component, event, fields and message', () => {
    const { hub } = hubWithClock();
    const entry = hub.logger('store').child('txn').info(LOG_EVENTS.writeTxnCommitted, { txn_id: 3, originator: 'Replication' });
    expect(entry).toEqual({
      seq: 1,
      level: 'INFO',
      timestamp: '2026-11-21T12:00:00.000Z',
      component: 'txn',
      event: 'txn.committed',
      fields: { txn_id: 3, originator: 'Replication' },
      message: 'Write txn committed; txn_id = 3; originator = Replication',
    });
    expect(hub.recentEntries()).toEqual([entry]);
  });

  it('number recorded entries 1, 2, 3, … without spending numbers on filtered ones', () => {
    const { hub } = hubWithClock();
    commit(hub, 1);
    hub.emit('DEBUG', 'txn', LOG_EVENTS.deallocating);
    commit(hub, 2);
    hub.emit('VERBOSE', 'txn', LOG_EVENTS.deallocating);
    commit(hub, 3);
    expect(hub.recentEntries().map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('are logged at each level by the matching Logger method, under the logger’s component', () => {
    const { hub } = hubWithClock({ minimumLogLevel: 'VERBOSE' });
    const log = hub.logger('replication');
    log.error(LOG_EVENTS.deallocating);
    log.warn(LOG_EVENTS.deallocating);
    log.info(LOG_EVENTS.deallocating);
    log.debug(LOG_EVENTS.deallocating);
    log.verbose(LOG_EVENTS.deallocating);
    log.log('WARN', LOG_EVENTS.deallocating);
    expect(hub.recentEntries().map((e) => [e.level, e.component, e.event])).toEqual([
      ['ERROR', 'replication', 'shutdown.deallocating'],
      ['WARN', 'replication', 'shutdown.deallocating'],
      ['INFO', 'replication', 'shutdown.deallocating'],
      ['DEBUG', 'replication', 'shutdown.deallocating'],
      ['VERBOSE', 'replication', 'shutdown.deallocating'],
      ['WARN', 'replication', 'shutdown.deallocating'],
    ]);
    expect(log.child('auth').component).toBe('auth');
    expect(log.child('auth').hub).toBe(hub);
    expect(log.isEnabled('VERBOSE')).toBe(true);
  });
});

describe('the console and custom callback sinks', () => {
  it('give each recorded entry to the custom callback, and filtered ones to nobody', () => {
    const { hub } = hubWithClock();
    const received: LogEntry[] = [];
    hub.setCustomLogCallback((entry) => received.push(entry));
    const first = commit(hub, 1);
    hub.emit('DEBUG', 'txn', LOG_EVENTS.deallocating);
    const second = commit(hub, 2);
    expect(received).toEqual([first, second]);
    expect(received[0]).toBe(first);
  });

  it('stop giving entries to a callback or console once it is replaced by undefined', () => {
    const { hub, lines } = hubWithClock();
    const received: LogEntry[] = [];
    hub.setCustomLogCallback((entry) => received.push(entry));
    commit(hub, 1);
    hub.setCustomLogCallback(undefined);
    hub.setConsole(undefined);
    commit(hub, 2);
    expect(received.map((e) => e.fields.txn_id)).toEqual([1]);
    expect(lines).toEqual(['[INFO] 2026-11-21T12:00:00.000Z: Write txn committed; txn_id = 1; originator = User']);
    expect(hub.recentEntries()).toHaveLength(2);
  });

  it('keeps recording, and returns the entry to the caller, when the custom callback throws', () => {
    const { hub, lines } = hubWithClock();
    const subscription = hub.subscribe();
    let calls = 0;
    hub.setCustomLogCallback(() => {
      calls++;
      throw new Error('callback failed');
    });
    const first = commit(hub, 1);
    const second = commit(hub, 2);
    expect(first?.message).toBe('Write txn committed; txn_id = 1; originator = User');
    expect(second?.seq).toBe(2);
    expect(calls).toBe(2);
    expect(lines).toHaveLength(2);
    expect(subscription.take().entries).toEqual([first, second]);
  });

  it('keeps recording, and returns the entry to the caller, when the console throws', () => {
    const { hub } = hubWithClock();
    const received: LogEntry[] = [];
    hub.setCustomLogCallback((entry) => received.push(entry));
    hub.setConsole(() => {
      throw new Error('EPIPE');
    });
    const entry = commit(hub, 1);
    expect(entry?.seq).toBe(1);
    expect(received).toEqual([entry]);
    expect(hub.recentEntries()).toEqual([entry]);
  });
});

describe('the log file', () => {
  let dir: string;
  let hub: LogHub;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'log-hub-'));
    hub = hubWithClock().hub;
  });
  afterEach(() => {
    hub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('receives each recorded entry as a text line once flushed', () => {
    const path = join(dir, 'sync.log');
    hub.setLogFile(path);
    commit(hub, 1);
    hub.emit('DEBUG', 'txn', LOG_EVENTS.deallocating);
    hub.emit('ERROR', 'sync', LOG_EVENTS.garbageCollectedWhileOpen, { path: '/tmp/peer' });
    hub.flush();
    expect(readFileSync(path, 'utf8')).toBe(
      '[INFO] 2026-11-21T12:00:00.000Z: Write txn committed; txn_id = 1; originator = User\n' +
        '[ERROR] 2026-11-21T12:00:00.000Z: A Sync object was garbage collected without close(); path = /tmp/peer. ' +
        'Keep it in a long-lived variable while sync should run, and close() it when done\n',
    );
  });

  it('is flushed on a short timer without anyone asking', async () => {
    const path = join(dir, 'sync.log');
    hub.setLogFile(path);
    commit(hub, 1);
    expect(readFileSync(path, 'utf8')).toBe('');
    let text = '';
    for (let i = 0; i < 100 && text === ''; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      text = readFileSync(path, 'utf8');
    }
    expect(text).toBe('[INFO] 2026-11-21T12:00:00.000Z: Write txn committed; txn_id = 1; originator = User\n');
  });

  it('is flushed and let go when the hub closes, the hub recording on without it', () => {
    const path = join(dir, 'sync.log');
    hub.setLogFile(path);
    commit(hub, 1);
    hub.close();
    commit(hub, 2);
    expect(readFileSync(path, 'utf8')).toBe('[INFO] 2026-11-21T12:00:00.000Z: Write txn committed; txn_id = 1; originator = User\n');
    expect(hub.recentEntries()).toHaveLength(2);
  });

  it('is flushed when replaced by another file, which gets the later lines', () => {
    const first = join(dir, 'first.log');
    const second = join(dir, 'second.log');
    hub.setLogFile(first);
    commit(hub, 1);
    hub.setLogFile(second);
    commit(hub, 2);
    hub.flush();
    expect(readFileSync(first, 'utf8')).toContain('txn_id = 1;');
    expect(readFileSync(first, 'utf8')).not.toContain('txn_id = 2;');
    expect(readFileSync(second, 'utf8')).toBe('[INFO] 2026-11-21T12:00:00.000Z: Write txn committed; txn_id = 2; originator = User\n');
  });

  it('rotates by size with the options given, keeping whole lines', () => {
    const path = join(dir, 'logs', 'sync.log');
    hub.setLogFile(path, { maxBytes: 200, maxFiles: 3 });
    for (let i = 1; i <= 30; i++) commit(hub, i);
    hub.close();
    expect(readdirSync(join(dir, 'logs')).sort()).toEqual(['sync.log', 'sync.log.1', 'sync.log.2']);
    const kept = [`${path}.2`, `${path}.1`, path].map((f) => readFileSync(f, 'utf8')).join('');
    const ids = kept
      .trimEnd()
      .split('\n')
      .map((l) => Number(/^\[INFO\] 2026-11-21T12:00:00\.000Z: Write txn committed; txn_id = (\d+); originator = User$/.exec(l)?.[1]));
    expect(ids.at(-1)).toBe(30);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => 31 - ids.length + i));
  });
});

describe('exportLogs', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'log-export-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the recent entries as text lines, oldest first, and says how many', () => {
    const { hub, clock } = hubWithClock();
    commit(hub, 1);
    clock.advance(1_500);
    hub.emit('DEBUG', 'txn', LOG_EVENTS.deallocating);
    hub.emit('WARN', 'observers', LOG_EVENTS.observerFailed, { id: 4, error: 'boom' });
    const path = join(dir, 'export.log');
    expect(hub.exportLogs(path)).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(
      '[INFO] 2026-11-21T12:00:00.000Z: Write txn committed; txn_id = 1; originator = User\n' +
        '[WARN] 2026-11-21T12:00:01.500Z: Observer failed; id = 4; error = boom\n',
    );
  });

  it('keeps only the newest recentCapacity entries', () => {
    const { hub } = hubWithClock({ recentCapacity: 3 });
    for (let i = 1; i <= 5; i++) commit(hub, i);
    const path = join(dir, 'export.log');
    expect(hub.exportLogs(path)).toBe(3);
    expect(readFileSync(path, 'utf8')).toBe(
      [3, 4, 5].map((n) => `[INFO] 2026-11-21T12:00:00.000Z: Write txn committed; txn_id = ${n}; originator = User\n`).join(''),
    );
    expect(hub.recentEntries().map((e) => e.seq)).toEqual([3, 4, 5]);
  });

  it('writes an empty file when nothing was recorded', () => {
    const { hub } = hubWithClock();
    const path = join(dir, 'export.log');
    expect(hub.exportLogs(path)).toBe(0);
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('');
  });
});

describe('subscribers', () => {
  it('give a pull subscriber that fell behind the newest entries and the count it lost', () => {
    const { hub } = hubWithClock();
    const subscription = hub.subscribe(undefined, { capacity: 10 });
    for (let i = 1; i <= 25; i++) commit(hub, i);
    expect(subscription.dropped).toBe(15);
    const batch = subscription.take();
    expect(batch.dropped).toBe(15);
    expect(batch.entries.map((e) => e.fields.txn_id)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(batch.entries.map((e) => e.seq)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(subscription.take()).toEqual({ entries: [], dropped: 0 });
    expect(subscription.dropped).toBe(15);
  });

  it('total the drops of a subscription across takes', () => {
    const { hub } = hubWithClock();
    const subscription = hub.subscribe(undefined, { capacity: 10 });
    for (let i = 1; i <= 25; i++) commit(hub, i);
    subscription.take();
    for (let i = 26; i <= 37; i++) commit(hub, i);
    expect(subscription.dropped).toBe(17);
    const batch = subscription.take();
    expect(batch.dropped).toBe(2);
    expect(batch.entries.map((e) => e.fields.txn_id)).toEqual([28, 29, 30, 31, 32, 33, 34, 35, 36, 37]);
    expect(subscription.dropped).toBe(17);
  });

  it('see only entries recorded after they subscribed', () => {
    const { hub } = hubWithClock();
    commit(hub, 1);
    const subscription = hub.subscribe();
    commit(hub, 2);
    expect(subscription.take().entries.map((e) => e.fields.txn_id)).toEqual([2]);
  });

  it('deliver to a listener in one batch after the current turn of the event loop', async () => {
    const { hub } = hubWithClock();
    const batches: LogBatch[] = [];
    hub.subscribe((batch) => batches.push(batch));
    commit(hub, 1);
    commit(hub, 2);
    commit(hub, 3);
    expect(batches).toEqual([]);
    await nextTurn();
    expect(batches).toHaveLength(1);
    expect(batches[0]?.dropped).toBe(0);
    expect(batches[0]?.entries.map((e) => e.fields.txn_id)).toEqual([1, 2, 3]);
    commit(hub, 4);
    await nextTurn();
    expect(batches.map((b) => b.entries.map((e) => e.fields.txn_id))).toEqual([[1, 2, 3], [4]]);
  });

  it('tell a listener how many entries it lost when more than its capacity arrive in one turn', async () => {
    const { hub } = hubWithClock();
    const batches: LogBatch[] = [];
    const subscription = hub.subscribe((batch) => batches.push(batch), { capacity: 10 });
    for (let i = 1; i <= 25; i++) commit(hub, i);
    await nextTurn();
    expect(batches).toHaveLength(1);
    expect(batches[0]?.dropped).toBe(15);
    expect(batches[0]?.entries.map((e) => e.fields.txn_id)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(subscription.dropped).toBe(15);
  });

  it('call no listener with an empty batch', async () => {
    const { hub } = hubWithClock();
    const batches: LogBatch[] = [];
    hub.subscribe((batch) => batches.push(batch));
    hub.emit('DEBUG', 'txn', LOG_EVENTS.deallocating);
    await nextTurn();
    await nextTurn();
    expect(batches).toEqual([]);
  });

  it('stop delivering once closed', async () => {
    const { hub } = hubWithClock();
    const batches: LogBatch[] = [];
    const subscription = hub.subscribe((batch) => batches.push(batch));
    commit(hub, 1);
    await nextTurn();
    subscription.close();
    commit(hub, 2);
    await nextTurn();
    expect(batches.map((b) => b.entries.map((e) => e.fields.txn_id))).toEqual([[1]]);
  });

  it('deliver nothing more to a listener closed before its pending batch went out', async () => {
    const { hub } = hubWithClock();
    const batches: LogBatch[] = [];
    const subscription = hub.subscribe((batch) => batches.push(batch));
    commit(hub, 1);
    subscription.close();
    await nextTurn();
    await nextTurn();
    expect(batches).toEqual([]);
  });

  it('never slow the logger down: emit returns at once while a pull subscriber takes nothing', () => {
    const { hub } = hubWithClock();
    hub.setConsole(undefined);
    const stalled = hub.subscribe(undefined, { capacity: 10 });
    const live = hub.subscribe(undefined, { capacity: 200_000 });
    let last: LogEntry | undefined;
    for (let i = 1; i <= 100_000; i++) last = commit(hub, i);
    expect(last?.seq).toBe(100_000);
    expect(stalled.dropped).toBe(99_990);
    expect(stalled.take().entries.map((e) => e.fields.txn_id)).toEqual(Array.from({ length: 10 }, (_, i) => 99_991 + i));
    const all = live.take();
    expect(all.dropped).toBe(0);
    expect(all.entries).toHaveLength(100_000);
  });

  it('never block the logger on a slow listener: emit returns before the listener runs, and batches keep coming', async () => {
    const { hub } = hubWithClock();
    const seen: number[] = [];
    let unfinished = 0;
    hub.subscribe(
      // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a listener that never settles, on purpose: the hub must not wait for it
      (batch) => {
        seen.push(...batch.entries.map((e) => e.fields.txn_id as number));
        unfinished++;
        return new Promise<never>(() => {}); // never finishes with its batch
      },
      { capacity: 5 },
    );
    for (let i = 1; i <= 8; i++) commit(hub, i);
    expect(seen).toEqual([]);
    await nextTurn();
    for (let i = 9; i <= 10; i++) commit(hub, i);
    await nextTurn();
    expect(seen).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect(unfinished).toBe(2);
  });

  it('keep delivering to the others, and crash nothing, when one listener throws', async () => {
    const { hub } = hubWithClock();
    const seen: number[] = [];
    let thrown = 0;
    hub.subscribe(() => {
      thrown++;
      throw new Error('listener failed');
    });
    hub.subscribe((batch) => seen.push(...batch.entries.map((e) => e.fields.txn_id as number)));
    commit(hub, 1);
    await nextTurn();
    commit(hub, 2);
    await nextTurn();
    expect(seen).toEqual([1, 2]);
    expect(thrown).toBe(2);
  });

  it('fill each subscriber’s buffer independently', () => {
    const { hub } = hubWithClock();
    const small = hub.subscribe(undefined, { capacity: 2 });
    const large = hub.subscribe(undefined, { capacity: 10 });
    for (let i = 1; i <= 5; i++) commit(hub, i);
    expect(small.take()).toMatchObject({ dropped: 3 });
    expect(large.take().entries.map((e) => e.fields.txn_id)).toEqual([1, 2, 3, 4, 5]);
    expect(large.dropped).toBe(0);
  });
});

describe('the minimum level setting', () => {
  it('accepts a level in any letter case and refuses an unknown one', () => {
    const hub = new LogHub();
    hub.minimumLogLevel = 'debug' as never;
    expect(hub.minimumLogLevel).toBe('DEBUG');
    expect(() => (hub.minimumLogLevel = 'LOUD' as never)).toThrow('minimumLogLevel takes one of ERROR, WARN, INFO, DEBUG, VERBOSE');
    expect(hub.minimumLogLevel).toBe('DEBUG');
  });
});
