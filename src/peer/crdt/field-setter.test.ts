import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/json.ts';
import { DocumentEditor } from './document-editor.ts';
import type { DocumentMeta, Stamp } from './document-meta.ts';
import { FieldSetter } from './field-setter.ts';
import type { Hlc } from './hlc.ts';

const created: Stamp = ['0000000000010000' as Hlc, 'A'];
const now: Stamp = ['0000000000020000' as Hlc, 'B'];

/** What the editor gives for the same SETs: the reference. */
function edited(value: JsonObject, meta: DocumentMeta, fields: string[], values: JsonObject[keyof JsonObject][]): { value: JsonObject; meta: DocumentMeta } {
  const editor = new DocumentEditor(structuredClone(value), meta, now);
  fields.forEach((f, i) => editor.set([f], values[i] ?? null));
  return { value: editor.value, meta: editor.meta() };
}

describe('setting top-level fields of many documents at one stamp', () => {
  it('takes only paths of one field name', () => {
    expect(FieldSetter.of([['a'], ['b']], now)).toBeDefined();
    expect(FieldSetter.of([['a', 'b']], now)).toBeUndefined();
    expect(FieldSetter.of([[0]], now)).toBeUndefined();
  });

  it('gives what the editor gives, for documents that share their metadata and for those that do not', () => {
    const shared: DocumentMeta = {
      c: created,
      f: { '["a","x"]': created, '["b"]': created },
      r: { '["a","y"]': created },
      n: { '["n"]': { s: created, t: { A: [2, 0] } } },
    };
    const other: DocumentMeta = { c: now };
    const docs: [JsonObject, DocumentMeta][] = [
      [{ _id: 1, a: { x: 1 }, b: 2, n: 2 }, shared],
      [{ _id: 2, a: 5 }, shared],
      [{ _id: 3 }, other],
      [{ _id: 4, b: [1] }, other],
      [{ _id: 5, a: { x: { y: 1 } } }, shared],
    ];
    const fields = ['a', 'n', 'b', 'a'];
    const values = [{ z: [1, 2] }, 'text', null, 7];
    const setter = FieldSetter.of(
      fields.map((f) => [f]),
      now,
    ) as FieldSetter;
    for (const [value, meta] of docs) {
      const expected = edited(value, meta, fields, values);
      const mine = structuredClone(value);
      expect(setter.apply(mine, meta, values)).toEqual(expected.meta);
      expect(mine).toEqual(expected.value);
    }
  });

  it('copies object values, so that no two documents share one', () => {
    const meta: DocumentMeta = { c: created };
    const setter = FieldSetter.of([['tags']], now) as FieldSetter;
    const tags = ['a'];
    const first: JsonObject = { _id: 1 };
    const second: JsonObject = { _id: 2 };
    setter.apply(first, meta, [tags]);
    setter.apply(second, meta, [tags]);
    (first.tags as string[]).push('b');
    expect(second.tags).toEqual(['a']);
    expect(tags).toEqual(['a']);
  });
});
