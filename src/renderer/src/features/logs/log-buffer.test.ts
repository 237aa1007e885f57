import { describe, expect, it } from 'vitest';
import { LogBuffer, REFILTER_AT_ONCE } from './log-buffer.ts';
import { SHOW_EVERYTHING } from './log-filter.ts';
import { logEntries, logEntry } from '../../../../testing/renderer/log-entries.ts';

function seqs(buffer: LogBuffer): number[] {
  return [...buffer.entries()].map((e) => e.seq);
}

function accountedFor(buffer: LogBuffer): number {
  return buffer.held + buffer.pending + buffer.evicted + buffer.cleared;
}

describe('LogBuffer', () => {
  it('keeps entries in arrival order and shows them all without a filter', () => {
    const buffer = new LogBuffer(10);
    const batch = logEntries(3);
    buffer.push(batch);
    expect(seqs(buffer)).toEqual(batch.map((e) => e.seq));
    expect(buffer.size).toBe(3);
    expect(buffer.at(0)).toBe(batch[0]);
  });

  it('shows the size it had when last published while batches keep arriving', () => {
    const buffer = new LogBuffer(10);
    buffer.push(logEntries(3));
    expect(buffer.shownSize).toBe(0);
    buffer.publish();
    buffer.push(logEntries(4));
    expect(buffer.size).toBe(7);
    expect(buffer.shownSize).toBe(3);
    buffer.publish();
    expect(buffer.shownSize).toBe(7);
  });

  it('never shows more than the view holds after a filter shrank it', () => {
    const buffer = new LogBuffer(10);
    buffer.push([logEntry({ message: 'alpha' }), logEntry({ message: 'beta' }), logEntry({ message: 'alpha two' })]);
    buffer.publish();
    buffer.setFilter({ ...SHOW_EVERYTHING, text: 'alpha' });
    expect(buffer.shownSize).toBe(2);
  });

  it('matches a text query against a slot reused by a newer entry, not the entry it held before', () => {
    const buffer = new LogBuffer(2);
    buffer.setFilter({ ...SHOW_EVERYTHING, text: 'needle' });
    buffer.push([logEntry({ message: 'needle one' }), logEntry({ message: 'hay' })]);
    expect(seqs(buffer)).toHaveLength(1);
    // Evicts "needle one": its slot now holds "hay again", whose text must be built anew.
    buffer.push([logEntry({ message: 'hay again' })]);
    buffer.setFilter({ ...SHOW_EVERYTHING, text: 'needle' });
    expect(buffer.size).toBe(0);
    buffer.setFilter({ ...SHOW_EVERYTHING, text: 'again' });
    expect([...buffer.entries()].map((e) => e.message)).toEqual(['hay again']);
  });

  it('drops the oldest entries once full and counts every one it dropped', () => {
    const buffer = new LogBuffer(5);
    const batch = logEntries(12);
    buffer.push(batch.slice(0, 7));
    buffer.push(batch.slice(7));
    expect(buffer.held).toBe(5);
    expect(buffer.evicted).toBe(7);
    expect(seqs(buffer)).toEqual(batch.slice(7).map((e) => e.seq));
    expect(accountedFor(buffer)).toBe(buffer.received);
  });

  it('accounts for every entry received after 250,000 entries through a ring of 100,000', () => {
    const buffer = new LogBuffer(100_000);
    for (let i = 0; i < 125; i++) buffer.push(logEntries(2_000));
    expect(buffer.received).toBe(250_000);
    expect(buffer.held).toBe(100_000);
    expect(buffer.evicted).toBe(150_000);
    expect(buffer.size).toBe(100_000);
    expect(accountedFor(buffer)).toBe(buffer.received);
  });

  it('keeps the filtered view in step with evictions without recomputing it', () => {
    const buffer = new LogBuffer(4);
    buffer.setFilter({ ...SHOW_EVERYTHING, level: 'WARN' });
    const warn1 = logEntry({ level: 'WARN' });
    const info = logEntry({ level: 'INFO' });
    const error = logEntry({ level: 'ERROR' });
    const debug = logEntry({ level: 'DEBUG' });
    const warn2 = logEntry({ level: 'WARN' });
    buffer.push([warn1, info, error, debug]);
    expect(seqs(buffer)).toEqual([warn1.seq, error.seq]);
    buffer.push([warn2]);
    expect(seqs(buffer)).toEqual([error.seq, warn2.seq]);
  });

  it('gives each entry a key that no later entry reuses, across evictions and clears', () => {
    const buffer = new LogBuffer(3);
    buffer.push(logEntries(3));
    const first = [0, 1, 2].map((i) => buffer.ordinalAt(i));
    buffer.clear();
    buffer.push(logEntries(3));
    const second = [0, 1, 2].map((i) => buffer.ordinalAt(i));
    expect(new Set([...first, ...second]).size).toBe(6);
  });

  it('recomputes the view when the filter changes, from everything held', () => {
    const buffer = new LogBuffer(100);
    buffer.push([logEntry({ component: 'store' }), logEntry({ component: 'replication' }), logEntry({ component: 'store' })]);
    buffer.setFilter({ ...SHOW_EVERYTHING, hiddenComponents: ['store'] });
    expect(buffer.size).toBe(1);
    buffer.setFilter(SHOW_EVERYTHING);
    expect(buffer.size).toBe(3);
  });

  it('holds entries that arrive while paused, counts them, and shows them on resume', () => {
    const buffer = new LogBuffer(100);
    buffer.push(logEntries(2));
    buffer.pause();
    buffer.push(logEntries(3));
    expect(buffer.size).toBe(2);
    expect(buffer.pending).toBe(3);
    expect(buffer.resume()).toBe(3);
    expect(buffer.size).toBe(5);
    expect(buffer.pending).toBe(0);
  });

  it('counts entries beyond its capacity that arrived while paused as dropped', () => {
    const buffer = new LogBuffer(10);
    buffer.pause();
    buffer.push(logEntries(25));
    expect(buffer.pending).toBe(10);
    expect(buffer.evicted).toBe(15);
    expect(accountedFor(buffer)).toBe(25);
    buffer.resume();
    expect(buffer.held).toBe(10);
    expect(accountedFor(buffer)).toBe(25);
  });

  it('counts cleared entries apart from dropped ones', () => {
    const buffer = new LogBuffer(10);
    buffer.push(logEntries(4));
    buffer.pause();
    buffer.push(logEntries(2));
    buffer.clear();
    expect(buffer.cleared).toBe(6);
    expect(buffer.evicted).toBe(0);
    expect(buffer.size).toBe(0);
    expect(accountedFor(buffer)).toBe(6);
  });

  it('adds only history older than what batches already brought', () => {
    const buffer = new LogBuffer(100);
    const history = logEntries(5);
    const live = logEntries(2);
    // A batch raced ahead of the history's answer and repeats its last two entries.
    buffer.push([...history.slice(3), ...live]);
    expect(buffer.mergeHistory(history)).toBe(3);
    expect(seqs(buffer)).toEqual([...history, ...live].map((e) => e.seq));
    expect(buffer.received).toBe(7);
  });

  it('takes the whole history when nothing arrived before it', () => {
    const buffer = new LogBuffer(3);
    expect(buffer.mergeHistory(logEntries(5))).toBe(5);
    expect(buffer.held).toBe(3);
    expect(buffer.evicted).toBe(2);
  });

  it('never counts the peer’s drops twice when the snapshot total covers earlier batches', () => {
    const buffer = new LogBuffer(10);
    buffer.addPeerDropped(5);
    buffer.reportPeerDropped(5);
    buffer.addPeerDropped(3);
    expect(buffer.peerDropped).toBe(8);
    buffer.reportPeerDropped(2);
    expect(buffer.peerDropped).toBe(8);
  });

  it('counts held entries per level and per component, including evictions', () => {
    const buffer = new LogBuffer(3);
    buffer.push([logEntry({ level: 'ERROR', component: 'auth' }), logEntry({ level: 'DEBUG' }), logEntry({ level: 'DEBUG' }), logEntry({ level: 'WARN' })]);
    expect(buffer.levelCounts()).toEqual({ ERROR: 0, WARN: 1, INFO: 0, DEBUG: 2, VERBOSE: 0 });
    expect(buffer.components()).toEqual([
      ['auth', 0],
      ['txn', 3],
    ]);
  });

  it('takes a batch of 2,000 into a full ring of 100,000 in well under a frame', () => {
    const buffer = new LogBuffer(100_000);
    buffer.setFilter({ ...SHOW_EVERYTHING, level: 'INFO', text: 'entry' });
    for (let i = 0; i < 50; i++) buffer.push(logEntries(2_000));
    const batch = logEntries(2_000);
    const started = performance.now();
    buffer.push(batch);
    expect(performance.now() - started).toBeLessThan(16);
    expect(buffer.at(buffer.size - 1)).toBe(batch.at(-1));
  });

  it('recovers what was logged while the link was down, in its place before what arrived since', () => {
    const buffer = new LogBuffer(100);
    const before = logEntries(3);
    const lost = logEntries(2);
    const since = logEntries(2);
    buffer.push(before);
    const mark = buffer.mark();
    buffer.push(since);
    // The peer's recent history overlaps both what was held and what arrived after.
    expect(buffer.fillGap([...before.slice(1), ...lost, since[0]!], mark)).toBe(2);
    expect(seqs(buffer)).toEqual([...before, ...lost, ...since].map((e) => e.seq));
    expect(accountedFor(buffer)).toBe(buffer.received);
  });

  it('takes all the history of a peer that restarted (its seq began again)', () => {
    const buffer = new LogBuffer(100);
    buffer.push([logEntry({ seq: 500 })]);
    const mark = buffer.mark();
    expect(buffer.fillGap([logEntry({ seq: 1 }), logEntry({ seq: 2 })], mark)).toBe(2);
    expect(seqs(buffer)).toEqual([500, 1, 2]);
  });

  it('keeps the paused list as it was and queues recovered entries for resume', () => {
    const buffer = new LogBuffer(100);
    const before = logEntries(2);
    buffer.push(before);
    buffer.pause();
    const mark = buffer.mark();
    const lost = logEntries(3);
    expect(buffer.fillGap(lost, mark)).toBe(3);
    expect(seqs(buffer)).toEqual(before.map((e) => e.seq));
    expect(buffer.pending).toBe(3);
    buffer.resume();
    expect(seqs(buffer)).toEqual([...before, ...lost].map((e) => e.seq));
  });

  it('applies a filter change over few entries at once', () => {
    const buffer = new LogBuffer(100_000);
    buffer.push([...logEntries(REFILTER_AT_ONCE - 1), logEntry({ level: 'WARN' })]);
    expect(buffer.beginFilter({ ...SHOW_EVERYTHING, level: 'WARN' })).toBe(false);
    expect(buffer.refiltering).toBe(false);
    expect(buffer.size).toBe(1);
  });

  it('spreads a filter change over many entries into steps, showing the previous view until the last', () => {
    const buffer = new LogBuffer(100_000);
    const warns = new Set<number>();
    for (let i = 0; i < 12_000; i++) {
      const entry = logEntry({ level: i % 3 === 0 ? 'WARN' : 'INFO' });
      if (entry.level === 'WARN') warns.add(entry.seq);
      buffer.push([entry]);
    }
    expect(buffer.beginFilter({ ...SHOW_EVERYTHING, level: 'WARN' })).toBe(true);
    let steps = 0;
    while (!buffer.refilterStep(2_000)) {
      steps++;
      expect(buffer.refiltering).toBe(true);
      expect(buffer.size).toBe(12_000);
      expect(buffer.filter.filter.level).toBe('VERBOSE');
    }
    expect(steps).toBe(5);
    expect(buffer.refiltering).toBe(false);
    expect(buffer.filter.filter.level).toBe('WARN');
    expect(seqs(buffer)).toEqual([...warns]);
  });

  it('keeps a filter change under way in step with entries that arrive and entries the ring drops', () => {
    const buffer = new LogBuffer(10_000);
    buffer.push(logEntries(10_000, 'INFO'));
    const oldWarn = logEntry({ level: 'WARN' });
    buffer.push([oldWarn]);
    expect(buffer.beginFilter({ ...SHOW_EVERYTHING, level: 'WARN' })).toBe(true);
    buffer.refilterStep(3_000);
    // Arrivals meanwhile: shown now by the previous filter (everything), and checked by the new one.
    const newWarn = logEntry({ level: 'WARN' });
    const info = logEntry({ level: 'INFO' });
    buffer.push([info, newWarn]);
    expect(buffer.at(buffer.size - 1)).toBe(newWarn);
    // The ring drops 5,000 of the oldest, some already checked.
    buffer.push(logEntries(5_000, 'DEBUG'));
    while (!buffer.refilterStep(3_000));
    expect(seqs(buffer)).toEqual([oldWarn.seq, newWarn.seq]);
    expect(accountedFor(buffer)).toBe(buffer.received);
  });

  it('lets a later filter change replace one under way, and a clear apply it at once', () => {
    const buffer = new LogBuffer(100_000);
    buffer.push(logEntries(8_000, 'INFO'));
    expect(buffer.beginFilter({ ...SHOW_EVERYTHING, level: 'ERROR' })).toBe(true);
    buffer.setFilter({ ...SHOW_EVERYTHING, level: 'INFO' });
    expect(buffer.refiltering).toBe(false);
    expect(buffer.size).toBe(8_000);
    expect(buffer.beginFilter({ ...SHOW_EVERYTHING, level: 'ERROR' })).toBe(true);
    buffer.clear();
    expect(buffer.refiltering).toBe(false);
    buffer.push([logEntry({ level: 'INFO' }), logEntry({ level: 'ERROR' })]);
    expect(buffer.size).toBe(1);
  });
});
