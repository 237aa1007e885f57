import { describe, expect, it } from 'vitest';
import { SHOW_EVERYTHING, compileFilter, splitByRanges } from './log-filter.ts';
import { logEntry } from '../../../../testing/renderer/log-entries.ts';

describe('compileFilter', () => {
  it('shows a level and every more severe one, in LOG_LEVELS order', () => {
    const { matches } = compileFilter({ ...SHOW_EVERYTHING, level: 'WARN' });
    expect(matches(logEntry({ level: 'ERROR' }))).toBe(true);
    expect(matches(logEntry({ level: 'WARN' }))).toBe(true);
    expect(matches(logEntry({ level: 'INFO' }))).toBe(false);
    expect(matches(logEntry({ level: 'VERBOSE' }))).toBe(false);
  });

  it('shows VERBOSE only when VERBOSE is chosen, DEBUG being above it', () => {
    expect(compileFilter({ ...SHOW_EVERYTHING, level: 'DEBUG' }).matches(logEntry({ level: 'VERBOSE' }))).toBe(false);
    expect(compileFilter({ ...SHOW_EVERYTHING, level: 'VERBOSE' }).matches(logEntry({ level: 'VERBOSE' }))).toBe(true);
  });

  it('leaves out hidden components and shows components it has not heard of', () => {
    const { matches } = compileFilter({ ...SHOW_EVERYTHING, hiddenComponents: ['replication'] });
    expect(matches(logEntry({ component: 'replication' }))).toBe(false);
    expect(matches(logEntry({ component: 'brand-new' }))).toBe(true);
  });

  it('finds text in the message, the event name and the fields, whatever the case', () => {
    const { matches } = compileFilter({ ...SHOW_EVERYTHING, text: 'ORIGINATOR=replication' });
    expect(matches(logEntry({ fields: { originator: 'Replication' } }))).toBe(true);
    expect(matches(logEntry({ fields: { originator: 'User' } }))).toBe(false);
    expect(compileFilter({ ...SHOW_EVERYTHING, text: 'blocked' }).matches(logEntry({ event: 'txn.blocked', message: 'x' }))).toBe(true);
    expect(compileFilter({ ...SHOW_EVERYTHING, text: 'write TXN' }).matches(logEntry({ message: 'Write txn committed' }))).toBe(true);
  });

  it('takes /regular expressions/ with flags', () => {
    const { matches } = compileFilter({ ...SHOW_EVERYTHING, text: '/txn_id = \\d{3}$/' });
    expect(matches(logEntry({ message: 'Write txn committed; txn_id = 123' }))).toBe(true);
    expect(matches(logEntry({ message: 'Write txn committed; txn_id = 12' }))).toBe(false);
    expect(compileFilter({ ...SHOW_EVERYTHING, text: '/WRITE/i' }).matches(logEntry({ message: 'write' }))).toBe(true);
  });

  it('reports a broken regular expression and matches it as plain text instead', () => {
    const compiled = compileFilter({ ...SHOW_EVERYTHING, text: '/[oops/' });
    expect(compiled.textError).toBeDefined();
    expect(compiled.matches(logEntry({ message: 'a /[oops/ b' }))).toBe(true);
  });

  it('says when it lets everything through', () => {
    expect(compileFilter(SHOW_EVERYTHING).passesEverything).toBe(true);
    expect(compileFilter({ ...SHOW_EVERYTHING, text: ' ' }).passesEverything).toBe(true);
    expect(compileFilter({ ...SHOW_EVERYTHING, level: 'DEBUG' }).passesEverything).toBe(false);
  });

  it('finds every place the text occurs for highlighting', () => {
    expect(compileFilter({ ...SHOW_EVERYTHING, text: 'ab' }).ranges('xAbyab')).toEqual([
      [1, 3],
      [4, 6],
    ]);
    expect(compileFilter({ ...SHOW_EVERYTHING, text: '/\\d+/' }).ranges('a12b3')).toEqual([
      [1, 3],
      [4, 5],
    ]);
    expect(compileFilter(SHOW_EVERYTHING).ranges('abc')).toEqual([]);
  });
});

describe('splitByRanges', () => {
  it('cuts text into plain and highlighted pieces', () => {
    expect(splitByRanges('hello world', [[6, 11]])).toEqual([
      { text: 'hello ', hit: false },
      { text: 'world', hit: true },
    ]);
    expect(splitByRanges('abc', [])).toEqual([{ text: 'abc', hit: false }]);
  });
});
