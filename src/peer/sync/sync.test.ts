/**
 * Shutting a `Sync` down: the spec's shutdown sequence (section 6) on close(), a closed store,
 * a released directory, and the same sequence, after an ERROR, for a `Sync` garbage collected
 * while open. The last one runs for real in a child process started with `--expose-gc`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOG_EVENTS, type LogEntry } from '../../shared/log.ts';
import { SyncError } from '../errors.ts';
import { LogHub, type LogHubOptions } from '../log/log-hub.ts';
import { Sync, type SyncOptions } from './sync.ts';
import { ManualTimers } from '../time.ts';

const SHUTDOWN_MESSAGES = [
  'Shutting down',
  'Peer shutting down',
  'Stopping the HTTP server (none running)',
  'Stopping the TCP server (none running)',
  'Peer shutdown done',
  'shutdown complete',
  'Deallocating',
];

const SHUTDOWN_EVENTS = [
  LOG_EVENTS.shuttingDown,
  LOG_EVENTS.peerShuttingDown,
  LOG_EVENTS.httpServerStopping,
  LOG_EVENTS.tcpServerStopping,
  LOG_EVENTS.peerShutdownDone,
  LOG_EVENTS.shutdownComplete,
  LOG_EVENTS.deallocating,
];

/** The error a call fails with, synchronously or as a rejected promise. */
async function failureOf(work: () => unknown): Promise<SyncError> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(SyncError);
    return error as SyncError;
  }
  throw new Error('expected the call to fail');
}

describe('closing a Sync', () => {
  let dir: string;
  let clock: ManualTimers;
  const opened: Sync[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sync-close-'));
    clock = new ManualTimers(Date.UTC(2026, 10, 21, 12, 0, 0));
  });
  afterEach(() => {
    for (const sync of opened.splice(0)) sync.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A hub on the test clock, collecting its text lines. */
  const hubFor = (options: Omit<LogHubOptions, 'now' | 'console'> = {}): { hub: LogHub; lines: string[] } => {
    const lines: string[] = [];
    return { hub: new LogHub({ ...options, now: () => clock.now(), console: (line) => lines.push(line) }), lines };
  };
  const open = (options: SyncOptions): Sync => {
    const sync = new Sync({ timers: clock, ...options });
    opened.push(sync);
    return sync;
  };

  it('logs the shutdown sequence at INFO, in order, in the spec’s words', () => {
    const { hub, lines } = hubFor();
    const sync = open({ persistenceDirectory: dir, logHub: hub });
    expect(lines).toEqual([]);
    clock.advance(1_234);
    sync.close();
    expect(lines).toEqual(SHUTDOWN_MESSAGES.map((m) => `[INFO] 2026-11-21T12:00:01.234Z: ${m}`));
  });

  it('logs the shutdown sequence as structured entries of the sync component', () => {
    const { hub } = hubFor();
    const sync = open({ persistenceDirectory: dir, logHub: hub });
    sync.close();
    const entries = hub.recentEntries();
    expect(entries.map((e) => [e.level, e.component, e.event])).toEqual(SHUTDOWN_EVENTS.map((event) => ['INFO', 'sync', event]));
    expect(entries.map((e) => e.fields)).toEqual([{}, {}, { running: false }, { running: false }, {}, {}, {}]);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('logs the same sequence for an in-memory Sync', () => {
    const { hub } = hubFor();
    open({ inMemory: true, logHub: hub }).close();
    expect(hub.recentEntries().map((e) => e.message)).toEqual(SHUTDOWN_MESSAGES);
  });

  it('logs no shutdown line below the minimum level of WARN', () => {
    const { hub, lines } = hubFor({ minimumLogLevel: 'WARN' });
    open({ persistenceDirectory: dir, logHub: hub }).close();
    expect(lines).toEqual([]);
  });

  it('logs nothing more when closed a second time', () => {
    const { hub, lines } = hubFor({ minimumLogLevel: 'VERBOSE' });
    const sync = open({ persistenceDirectory: dir, logHub: hub });
    expect(sync.isClosed).toBe(false);
    sync.close();
    const count = lines.length;
    sync.close();
    expect(lines).toHaveLength(count);
    expect(sync.isClosed).toBe(true);
  });

  it('finishes closing the store before it says the shutdown is done, and logs nothing after Deallocating', async () => {
    const { hub } = hubFor({ minimumLogLevel: 'DEBUG' });
    const sync = open({ persistenceDirectory: dir, logHub: hub });
    const observer = sync.store.registerObserver('SELECT * FROM cars', () => {});
    await sync.store.execute("INSERT INTO cars DOCUMENTS ({_id: 'c1'})");
    const before = hub.recentEntries().length;
    sync.close();
    expect(observer.isCancelled).toBe(true);
    expect(
      hub
        .recentEntries()
        .slice(before)
        .map((e) => e.message),
    ).toEqual([
      'Shutting down',
      'Peer shutting down',
      'Stopping the HTTP server (none running)',
      'Stopping the TCP server (none running)',
      'Observer cancelled; id = 1',
      'Peer shutdown done',
      'shutdown complete',
      'Deallocating',
    ]);
  });

  it('refuses every store call afterwards with store/closed', async () => {
    const sync = open({ persistenceDirectory: dir, logHub: new LogHub() });
    await sync.store.execute("INSERT INTO cars DOCUMENTS ({_id: 'c1'})");
    const cars = sync.store.collection('cars');
    sync.close();
    const calls: [string, () => unknown][] = [
      ['execute SELECT', () => sync.store.execute('SELECT * FROM cars')],
      ['execute INSERT', () => sync.store.execute("INSERT INTO cars DOCUMENTS ({_id: 'c2'})")],
      ['transaction', () => sync.store.transaction(() => 1)],
      ['read-only transaction', () => sync.store.transaction(() => 1, { isReadOnly: true })],
      ['registerObserver', () => sync.store.registerObserver('SELECT * FROM cars', () => {})],
      ['collections', () => sync.store.collections()],
      ['find', () => cars.find('_id == "c1"').exec()],
      ['findByID', () => cars.findByID('c1').exec()],
      ['upsert', () => cars.upsert({ _id: 'c3' })],
      ['update', () => cars.findByID('c1').update(() => {})],
    ];
    for (const [name, call] of calls) {
      expect((await failureOf(call)).code, name).toBe('store/closed');
    }
  });

  it('releases the directory, so that a new Sync opens it with everything committed', async () => {
    const first = open({ persistenceDirectory: dir, logHub: new LogHub() });
    await first.store.execute("INSERT INTO cars DOCUMENTS ({_id: 'c1', make: 'Volvo'})");
    expect(() => new Sync({ persistenceDirectory: dir, logHub: new LogHub() })).toThrow(expect.objectContaining({ code: 'store/locked' }));
    first.close();
    const second = open({ persistenceDirectory: dir, logHub: new LogHub() });
    expect(second.peerKey).toBe(first.peerKey);
    expect((await second.store.execute('SELECT * FROM cars')).items).toEqual([{ _id: 'c1', make: 'Volvo' }]);
  });

  it('closes the store and releases the directory even when every log sink throws', () => {
    const hub = new LogHub({
      console: () => {
        throw new Error('EPIPE');
      },
    });
    hub.setCustomLogCallback(() => {
      throw new Error('callback failed');
    });
    const sync = open({ persistenceDirectory: dir, logHub: hub });
    expect(() => sync.close()).not.toThrow();
    expect(hub.recentEntries().map((e) => e.message)).toEqual(SHUTDOWN_MESSAGES);
    open({ persistenceDirectory: dir, logHub: new LogHub() });
  });

  it('gives its shutdown entries to a subscriber, which loses none of them', async () => {
    const { hub } = hubFor();
    const batches: LogEntry[][] = [];
    const subscription = hub.subscribe((batch) => batches.push([...batch.entries]), { capacity: 7 });
    open({ persistenceDirectory: dir, logHub: hub }).close();
    await new Promise((resolve) => setImmediate(resolve));
    subscription.close();
    expect(batches.map((b) => b.map((e) => e.message))).toEqual([SHUTDOWN_MESSAGES]);
    expect(subscription.dropped).toBe(0);
  });
});

describe('a Sync garbage collected without close()', () => {
  const script = fileURLToPath(new URL('../../testing/forgotten-sync.ts', import.meta.url));
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sync-forgotten-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Splits the child's output into phases: `phase <name>` lines start one. */
  function phases(stdout: string): Map<string, string[]> {
    const out = new Map<string, string[]>();
    let current: string[] = [];
    out.set('', current);
    for (const line of stdout.split('\n')) {
      if (line === '') continue;
      if (line.startsWith('phase ')) out.set(line.slice('phase '.length), (current = []));
      else current.push(line);
    }
    return out;
  }

  /** `[LEVEL] message` of a rendered line whose timestamp is ISO 8601 UTC with milliseconds. */
  const withoutTimestamp = (line: string): string => {
    const match = /^\[([A-Z]+)\] (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z): (.*)$/.exec(line);
    return match === null ? `unrendered: ${line}` : `[${match[1]}] ${match[3]}`;
  };
  const info = (messages: readonly string[]): string[] => messages.map((m) => `[INFO] ${m}`);

  it('logs an ERROR saying so, then the shutdown sequence, and releases its directory', async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--expose-gc', script, dir], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
    });
    expect(stderr).toBe('');
    const byPhase = phases(stdout);
    expect([...byPhase.keys()]).toEqual(['', 'closed', 'forgotten', 'reopen', 'done']);
    expect(byPhase.get('')).toEqual([]);
    // A Sync closed explicitly logs the sequence once, and nothing when it is collected later.
    expect(byPhase.get('closed')?.map(withoutTimestamp)).toEqual(info(SHUTDOWN_MESSAGES));
    expect(byPhase.get('forgotten')?.map(withoutTimestamp)).toEqual([
      `[ERROR] A Sync object was garbage collected without close(); path = ${join(dir, 'forgotten')}. ` +
        'Keep it in a long-lived variable while sync should run, and close() it when done',
      ...info(SHUTDOWN_MESSAGES),
    ]);
    // The directory was released: a new Sync opened it (no store/locked), and closes normally.
    expect(byPhase.get('reopen')?.map(withoutTimestamp)).toEqual(['unrendered: reopened', ...info(SHUTDOWN_MESSAGES)]);
    expect(byPhase.get('done')).toEqual([]);
  });
});

describe('servers attached to a Sync', () => {
  it('are stopped in their place in the shutdown sequence, and named as running', () => {
    const hub = new LogHub();
    const sync = new Sync({ inMemory: true, logHub: hub });
    const stopped: string[] = [];
    sync.attachServer('HTTP', { stop: () => stopped.push('http') });
    const detach = sync.attachServer('TCP', { stop: () => stopped.push('tcp') });
    detach();
    sync.close();
    expect(stopped).toEqual(['http']);
    expect(hub.recentEntries().map((e) => e.message)).toEqual([
      'Shutting down',
      'Peer shutting down',
      'Stopping the HTTP server',
      'Stopping the TCP server (none running)',
      'Peer shutdown done',
      'shutdown complete',
      'Deallocating',
    ]);
  });
});
