import { describe, expect, it } from 'vitest';
import { DocumentEditor } from './document-editor.ts';
import type { DocumentMeta, Stamp } from './document-meta.ts';
import type { Hlc } from './hlc.ts';

const created: Stamp = ['0000000000010000' as Hlc, 'A'];
const now: Stamp = ['0000000000020000' as Hlc, 'B'];
const fresh: DocumentMeta = { c: created };

describe('local edits of a document and its merge metadata', () => {
  it('stamps a set field with the edit, leaving the rest on the creation stamp', () => {
    const e = new DocumentEditor({ _id: 'x', a: 1, b: 2 }, fresh, now);
    e.set(['a'], 5);
    expect(e.value).toEqual({ _id: 'x', a: 5, b: 2 });
    expect(e.meta()).toEqual({ c: created, f: { '["a"]': now } });
  });

  it('creates missing objects on a nested SET and stamps the object it created', () => {
    const e = new DocumentEditor({ _id: 'x', a: 7 }, fresh, now);
    e.set(['a', 'b', 'c'], 1);
    expect(e.value).toEqual({ _id: 'x', a: { b: { c: 1 } } });
    expect(e.meta()).toEqual({ c: created, f: { '["a"]': now } });
  });

  it('treats an array as one register: setting an element stamps the array', () => {
    const e = new DocumentEditor({ _id: 'x', tags: ['a', 'b'] }, fresh, now);
    e.set(['tags', 1], 'z');
    expect(e.value).toEqual({ _id: 'x', tags: ['a', 'z'] });
    expect(e.meta()).toEqual({ c: created, f: { '["tags"]': now } });
    expect(() => e.set(['tags', 5], 'q')).toThrow('index 5 is out of range');
  });

  it('records a removal so that it can win a merge, and forgets stamps below it', () => {
    const meta: DocumentMeta = { c: created, f: { '["a","b"]': created } };
    const e = new DocumentEditor({ _id: 'x', a: { b: 1 }, c: 1 }, meta, now);
    e.unset(['a']);
    e.unset(['nope', 'deeper']);
    expect(e.value).toEqual({ _id: 'x', c: 1 });
    expect(e.meta()).toEqual({ c: created, r: { '["a"]': now } });
  });

  it('starts a counter from 0, replacing a plain value, and sums increments per writer', () => {
    const e = new DocumentEditor({ _id: 'x', n: 10 }, fresh, now);
    e.increment(['n'], 2);
    e.increment(['n'], -0.5);
    expect(e.value.n).toBe(1.5);
    expect(e.meta()).toEqual({ c: created, n: { '["n"]': { s: now, t: { B: [2, 0.5] } } } });
    const later: Stamp = ['0000000000030000' as Hlc, 'C'];
    const e2 = new DocumentEditor(e.value, e.meta(), later);
    e2.increment(['n'], 3);
    expect(e2.value.n).toBe(4.5);
    expect(e2.meta().n?.['["n"]']).toEqual({ s: now, t: { B: [2, 0.5], C: [3, 0] } });
  });

  it('replaces a counter with a plain value on SET', () => {
    const e = new DocumentEditor({ _id: 'x' }, fresh, now);
    e.increment(['n'], 1);
    e.set(['n'], 'plain');
    expect(e.meta()).toEqual({ c: created, f: { '["n"]': now } });
  });

  it('refuses counters and removals inside arrays with a clear error', () => {
    const e = new DocumentEditor({ _id: 'x', a: [{ n: 1 }] }, fresh, now);
    expect(() => e.increment(['a', 0, 'n'], 1)).toThrow('counters cannot live inside arrays');
    expect(() => e.unset(['a', 0])).toThrow('SET the whole array');
  });
});
