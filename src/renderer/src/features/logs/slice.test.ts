import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOG_RENDER_INTERVAL_MS, createLogsSlice, wireLogsEvents, type LogsSlice } from './slice.ts';
import { logEntries, logEntry } from '../../../../testing/renderer/log-entries.ts';
import { testStore } from '../../../../testing/renderer/test-bridge.ts';
import type { SliceCreator } from '../../store/types.ts';

function setup() {
  const { store, bridge } = testStore<LogsSlice>(createLogsSlice as SliceCreator<Partial<LogsSlice>>);
  const stop = wireLogsEvents(store);
  return { store, bridge, stop };
}

describe('the Logs slice', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('tells the store about a flood of batches at once, then at most once per render interval', () => {
    const { store, bridge } = setup();
    let renders = 0;
    store.subscribe(() => renders++);
    for (let i = 0; i < 200; i++) bridge.emit('logs:batch', { entries: logEntries(10), dropped: 0 });
    expect(renders).toBe(1);
    expect(store.getState().logs.buffer.size).toBe(2_000);
    vi.advanceTimersByTime(LOG_RENDER_INTERVAL_MS);
    expect(renders).toBe(2);
    expect(store.getState().logs.version).toBe(2);
  });

  it('loads the peer’s history and level, and counts what the peer dropped', async () => {
    const { store, bridge } = setup();
    const history = logEntries(3);
    bridge.answer('logs:recent', { entries: history, minimumLogLevel: 'DEBUG', dropped: 4 });
    bridge.emit('logs:batch', { entries: [logEntry()], dropped: 2 });
    await store.getState().loadLogs();
    const { logs } = store.getState();
    expect(logs.status).toBe('ready');
    expect(logs.minimumLogLevel).toBe('DEBUG');
    expect(logs.buffer.size).toBe(4);
    expect(logs.buffer.peerDropped).toBe(4);
    bridge.emit('logs:batch', { entries: [], dropped: 3 });
    expect(store.getState().logs.buffer.peerDropped).toBe(7);
  });

  it('shows the error when the history cannot be loaded', async () => {
    const { store, bridge } = setup();
    bridge.answer('logs:recent', { code: 'internal/unexpected', message: 'boom' });
    await store.getState().loadLogs();
    expect(store.getState().logs.status).toBe('error');
    expect(store.getState().logs.error?.message).toBe('boom');
  });

  it('keeps counting entries while paused and shows them on resume', () => {
    const { store, bridge } = setup();
    store.getState().pauseLogs();
    bridge.emit('logs:batch', { entries: logEntries(5), dropped: 0 });
    expect(store.getState().logs.buffer.size).toBe(0);
    expect(store.getState().logs.buffer.pending).toBe(5);
    store.getState().resumeLogs();
    expect(store.getState().logsView.paused).toBe(false);
    expect(store.getState().logs.buffer.size).toBe(5);
  });

  it('filters at once and re-renders', () => {
    const { store, bridge } = setup();
    bridge.emit('logs:batch', { entries: [logEntry({ level: 'ERROR' }), logEntry({ level: 'DEBUG' })], dropped: 0 });
    store.getState().setLogFilter({ level: 'WARN' });
    expect(store.getState().logs.buffer.size).toBe(1);
    expect(store.getState().logsView.filter.level).toBe('WARN');
  });

  it('filters many entries in steps, one per task, and shows the new view once every entry is checked', () => {
    const { store, bridge } = setup();
    for (let i = 0; i < 10; i++) bridge.emit('logs:batch', { entries: [...logEntries(999), logEntry({ level: 'ERROR' })], dropped: 0 });
    vi.advanceTimersByTime(LOG_RENDER_INTERVAL_MS);
    const version = store.getState().logs.version;
    store.getState().setLogFilter({ level: 'WARN' });
    expect(store.getState().logsView.filter.level).toBe('WARN');
    // The list keeps the previous view until the change is done, a slice of REFILTER_STEP_ENTRIES per task.
    expect(store.getState().logs.buffer.refiltering).toBe(true);
    expect(store.getState().logs.buffer.size).toBe(10_000);
    vi.advanceTimersToNextTimer();
    expect(store.getState().logs.buffer.refiltering).toBe(true);
    vi.advanceTimersByTime(50);
    expect(store.getState().logs.buffer.refiltering).toBe(false);
    expect(store.getState().logs.buffer.size).toBe(10);
    expect(store.getState().logs.version).toBeGreaterThan(version);
  });

  it('sets the peer’s minimum level and reports a refusal', async () => {
    const { store, bridge } = setup();
    bridge.answer('logs:set-level', {});
    await store.getState().setPeerLogLevel('VERBOSE');
    expect(bridge.callsTo('logs:set-level')).toEqual([{ level: 'VERBOSE' }]);
    expect(store.getState().logs.minimumLogLevel).toBe('VERBOSE');
    bridge.answer('logs:set-level', { code: 'inspector/bad-request', message: 'no' });
    await store.getState().setPeerLogLevel('ERROR');
    expect(store.getState().logs.minimumLogLevel).toBe('VERBOSE');
    expect(store.getState().logs.levelChange.error?.code).toBe('inspector/bad-request');
  });

  it('stops taking batches once unwired', () => {
    const { store, bridge, stop } = setup();
    stop();
    bridge.emit('logs:batch', { entries: logEntries(1), dropped: 0 });
    expect(store.getState().logs.buffer.received).toBe(0);
  });

  it('fetches what the peer logged while the link was down, once it is back', async () => {
    const { store, bridge } = setup();
    const before = logEntries(2);
    const lost = logEntries(2);
    bridge.emit('logs:batch', { entries: before, dropped: 0 });
    bridge.answer('logs:recent', { entries: [...before, ...lost], minimumLogLevel: 'INFO', dropped: 0 });
    store.setState({ linkEpoch: 1 });
    store.setState({ linkEpoch: 2 });
    await vi.waitFor(() => expect(store.getState().logs.linkGaps).toEqual({ count: 1, recovered: 2 }));
    expect(store.getState().logs.buffer.size).toBe(4);
  });
});
