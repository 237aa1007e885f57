import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineReader, lineTooLongError, type InputLine } from './line-reader.ts';

const text = (line: InputLine | undefined): string | undefined => (line?.kind === 'line' ? line.text : undefined);

describe('LineReader', () => {
  it('gives each line as it arrives, while the input is still open', async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    const first = reader.next();
    input.write('one\u2028still one\ntw');
    expect(text((await first).value)).toBe('one\u2028still one');
    const second = reader.next();
    input.write('o\r\n');
    expect(text((await second).value)).toBe('two');
    input.end('three');
    expect(text((await reader.next()).value)).toBe('three');
    expect(await reader.next()).toEqual({ done: true, value: undefined });
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it('holds the input paused while read lines wait for next(), and reads on when they are taken', async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    input.write('a\nb\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(input.isPaused()).toBe(true);
    expect(text((await reader.next()).value)).toBe('a');
    expect(text((await reader.next()).value)).toBe('b');
    const next = reader.next();
    expect(input.isPaused()).toBe(false);
    input.end('c\n');
    expect(text((await next).value)).toBe('c');
    expect((await reader.next()).done).toBe(true);
  });

  it('on close() ends a waiting next(), pauses the input and lets go of it', async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    const waiting = reader.next();
    reader.close();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(input.isPaused()).toBe(true);
    expect(['data', 'end', 'close', 'error'].map((event) => input.listenerCount(event))).toEqual([0, 0, 0, 0]);
    input.write('ignored\n');
    expect(await reader.next()).toEqual({ done: true, value: undefined });
  });

  it('rejects next() with the error of the input', async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    const next = reader.next();
    input.destroy(new Error('read failed'));
    await expect(next).rejects.toThrow('read failed');
  });

  it('reads to the end in a for await loop, and stops reading when the loop breaks', async () => {
    const input = new PassThrough();
    input.end('a\n\nb');
    const lines: unknown[] = [];
    for await (const line of new LineReader(input)) lines.push([line.number, text(line)]);
    expect(lines).toEqual([
      [1, 'a'],
      [2, ''],
      [3, 'b'],
    ]);
    const open = new PassThrough();
    open.write('x\ny\n');
    for await (const line of new LineReader(open)) if (text(line) === 'x') break;
    expect(open.listenerCount('data')).toBe(0);
  });

  it('gives a line over the cap as too-long, answered by a cli/invalid-line error that says the cap', async () => {
    const input = new PassThrough();
    input.end(`${'x'.repeat(11)}\nok\n`);
    const reader = new LineReader(input, 10);
    const tooLong = (await reader.next()).value as InputLine;
    expect(tooLong).toEqual({ kind: 'too-long', number: 1, bytes: 11 });
    expect(text((await reader.next()).value)).toBe('ok');
    expect(lineTooLongError({ kind: 'too-long', number: 3, bytes: 20_000_000 })).toEqual({
      code: 'cli/invalid-line',
      message: 'line 3 is 20000000 bytes long; a line may hold at most 16777216 bytes',
    });
  });
});
