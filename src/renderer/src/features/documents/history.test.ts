import { describe, expect, it } from 'vitest';
import { EMPTY_HISTORY, parseHistory, pickHistory, pushHistory, stepHistory, type HistoryState } from './history.ts';

const entry = (statement: string, args = '', at = 0) => ({ statement, args, at, ok: true });

function withEntries(...statements: string[]): HistoryState {
  return statements.reduce((state, s, i) => pushHistory(state, entry(s, '', i)), EMPTY_HISTORY);
}

describe('console history', () => {
  it('keeps statements newest last and moves a repeated one to the end', () => {
    const state = pushHistory(withEntries('a', 'b', 'c'), entry('a', '', 9));
    expect(state.entries.map((e) => e.statement)).toEqual(['b', 'c', 'a']);
  });

  it('tells the same statement with other arguments apart', () => {
    const state = pushHistory(pushHistory(EMPTY_HISTORY, entry('s', '{"a":1}')), entry('s', '{"a":2}'));
    expect(state.entries).toHaveLength(2);
  });

  it('keeps at most the limit, dropping the oldest', () => {
    let state = EMPTY_HISTORY;
    for (let i = 0; i < 5; i++) state = pushHistory(state, entry(`s${i}`), 3);
    expect(state.entries.map((e) => e.statement)).toEqual(['s2', 's3', 's4']);
  });

  it('does not keep blank or huge statements', () => {
    expect(pushHistory(EMPTY_HISTORY, entry('   ')).entries).toEqual([]);
    expect(pushHistory(EMPTY_HISTORY, entry('x'.repeat(30_000))).entries).toEqual([]);
  });

  it('browses older with -1, newer with +1, and gives back the draft past the newest', () => {
    const draft = { statement: 'typing…', args: '' };
    let state = withEntries('a', 'b');
    let step = stepHistory(state, -1, draft);
    expect(step?.text.statement).toBe('b');
    state = step!.state;
    step = stepHistory(state, -1, step!.text);
    expect(step?.text.statement).toBe('a');
    state = step!.state;
    expect(stepHistory(state, -1, step!.text)).toBeUndefined();
    step = stepHistory(state, 1, step!.text);
    expect(step?.text.statement).toBe('b');
    step = stepHistory(step!.state, 1, step!.text);
    expect(step?.text).toEqual(draft);
    expect(step?.state.cursor).toBeUndefined();
    expect(stepHistory(step!.state, 1, draft)).toBeUndefined();
  });

  it('has nowhere to go when empty', () => {
    expect(stepHistory(EMPTY_HISTORY, -1, { statement: '', args: '' })).toBeUndefined();
  });

  it('picks an entry from the list and browses on from it', () => {
    const picked = pickHistory(withEntries('a', 'b', 'c'), 0, { statement: 'draft', args: '' });
    expect(picked?.text.statement).toBe('a');
    expect(stepHistory(picked!.state, 1, picked!.text)?.text.statement).toBe('b');
  });

  it('stops browsing once a statement runs', () => {
    const browsing = stepHistory(withEntries('a'), -1, { statement: '', args: '' })!.state;
    expect(pushHistory(browsing, entry('z')).cursor).toBeUndefined();
  });

  it('reads back only well-formed stored entries', () => {
    expect(parseHistory([entry('a'), { statement: 1 }, null, entry('b')])?.map((e) => e.statement)).toEqual(['a', 'b']);
    expect(parseHistory('nope')).toBeUndefined();
  });
});
