import { describe, expect, it } from 'vitest';
import { LineSplitter, MAX_LINE_BYTES, jsonLine, jsonText, type InputLine } from './json-lines.ts';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The lines of `chunks`, ends included, as `[number, text]`, or `[number, 'too-long', bytes]`. */
function split(chunks: readonly (Uint8Array | string)[], maxLineBytes?: number): unknown[] {
  const splitter = new LineSplitter(maxLineBytes);
  const lines: InputLine[] = chunks.flatMap((chunk) => splitter.push(chunk));
  const last = splitter.end();
  if (last !== undefined) lines.push(last);
  return lines.map((l) => (l.kind === 'line' ? [l.number, l.text] : [l.number, l.kind, l.bytes]));
}

/** Any line reader's idea of a line end: LF, CRLF, a lone CR, U+2028, U+2029. */
const ANY_LINE_END = /\r\n|[\n\r\u2028\u2029]/;

describe('LineSplitter', () => {
  it('ends lines at LF only, and keeps U+2028, U+2029 and a lone CR inside the line', () => {
    expect(split(['a\u2028b\u2029c\rd\ne\n'])).toEqual([
      [1, 'a\u2028b\u2029c\rd'],
      [2, 'e'],
    ]);
  });

  it('drops one CR before the LF, so that CRLF input reads the same, and only one', () => {
    expect(split(['a\r\nb\r\r\n\r\n'])).toEqual([
      [1, 'a'],
      [2, 'b\r'],
      [3, ''],
    ]);
  });

  it('numbers lines from 1, blank ones included', () => {
    expect(split(['\n\nx\n'])).toEqual([
      [1, ''],
      [2, ''],
      [3, 'x'],
    ]);
  });

  it('gives the last line without a newline at the end of the input, CR dropped the same way, and nothing more after a final newline', () => {
    expect(split(['a\nb'])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(split(['a\r'])).toEqual([[1, 'a']]);
    expect(split(['a\n'])).toEqual([[1, 'a']]);
    expect(split([])).toEqual([]);
  });

  it('reads the same lines whichever byte the chunks end at, inside a CRLF or a UTF-8 character', () => {
    const input = bytes('é€\u2028𝄞 x\r\n\r\ny\u2029\rz\n{"a":"b"}');
    const expected = split([input]);
    expect(expected).toEqual([
      [1, 'é€\u2028𝄞 x'],
      [2, ''],
      [3, 'y\u2029\rz'],
      [4, '{"a":"b"}'],
    ]);
    for (let cut = 0; cut <= input.length; cut++) expect(split([input.subarray(0, cut), input.subarray(cut)])).toEqual(expected);
    expect(split([...input].map((b) => Uint8Array.of(b)))).toEqual(expected);
  });

  it('decodes invalid UTF-8 as U+FFFD and keeps a byte order mark', () => {
    expect(split([Uint8Array.of(0x61, 0xff, 0x62, 0x0a), bytes('\ufeffc\n')])).toEqual([
      [1, 'a\ufffdb'],
      [2, '\ufeffc'],
    ]);
  });

  it('gives a line over the cap as too-long with its length, keeping none of it, and reads the next lines intact', () => {
    expect(split(['0123456789\n', '01234', '567890', '12\r\n', 'ok\n'], 10)).toEqual([
      [1, '0123456789'],
      [2, 'too-long', 13],
      [3, 'ok'],
    ]);
    // The CR of a CRLF does not count; a last line without a newline is held to the cap the same way.
    expect(split(['0123456789\r\n', '0123456789a'], 10)).toEqual([
      [1, '0123456789'],
      [2, 'too-long', 11],
    ]);
  });

  it('caps lines at 16 MiB by default', () => {
    expect(MAX_LINE_BYTES).toBe(16 * 1024 * 1024);
    const chunk = new Uint8Array(1024 * 1024).fill(0x61);
    const splitter = new LineSplitter();
    for (let i = 0; i < 16; i++) expect(splitter.push(chunk)).toEqual([]);
    expect(splitter.push('\n')).toMatchObject([{ kind: 'line', number: 1 }]);
    for (let i = 0; i < 17; i++) splitter.push(chunk);
    expect(splitter.push('\n')).toEqual([{ kind: 'too-long', number: 2, bytes: 17 * 1024 * 1024 }]);
  });
});

describe('jsonText and jsonLine', () => {
  const value = { text: 'a\u2028b\u2029c', 'k\u2028': ['\u2029'], n: 1 };

  it('escape U+2028 and U+2029, so that the text is one line for any line reader and parses back to the same value', () => {
    const line = jsonLine(value);
    expect(line).toBe('{"text":"a\\u2028b\\u2029c","k\\u2028":["\\u2029"],"n":1}\n');
    expect(line.split(ANY_LINE_END)).toEqual([line.slice(0, -1), '']);
    expect(JSON.parse(line)).toEqual(value);
  });

  it('escape them in indented JSON as well', () => {
    const text = jsonText(value, 2);
    expect(text).not.toMatch(/[\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('refuse a value that has no JSON form', () => {
    expect(() => jsonLine(undefined)).toThrow(TypeError);
  });
});
