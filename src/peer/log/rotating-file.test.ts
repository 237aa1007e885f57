/** The rotating log file, on real files in a temporary directory. */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RotatingFile } from './rotating-file.ts';

/** `line-0001` … : ten bytes each with the newline. */
const line = (n: number): string => `line-${String(n).padStart(4, '0')}`;
const lines = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => line(from + i));

describe('RotatingFile', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rotating-file-'));
    path = join(dir, 'sync.log');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const read = (file: string): string => readFileSync(file, 'utf8');
  const logFiles = (): string[] => readdirSync(dir).sort();

  it('creates the file, and its directory, when opened', () => {
    const nested = join(dir, 'a', 'b', 'sync.log');
    const file = new RotatingFile(nested);
    file.close();
    expect(existsSync(nested)).toBe(true);
    expect(read(nested)).toBe('');
  });

  it('buffers lines until flushed, then writes each with a newline, in order', () => {
    const file = new RotatingFile(path);
    file.append('first');
    file.append('second');
    expect(file.hasPending).toBe(true);
    expect(read(path)).toBe('');
    file.flush();
    expect(file.hasPending).toBe(false);
    expect(read(path)).toBe('first\nsecond\n');
    file.close();
  });

  it('flushes what is buffered on close', () => {
    const file = new RotatingFile(path);
    for (const l of lines(1, 5)) file.append(l);
    expect(read(path)).toBe('');
    file.close();
    expect(read(path)).toBe(
      lines(1, 5)
        .map((l) => `${l}\n`)
        .join(''),
    );
  });

  it('writes on its own once 64 KiB are buffered, without waiting for a flush', () => {
    const file = new RotatingFile(path);
    const long = 'x'.repeat(1023); // 1 KiB with the newline
    for (let i = 0; i < 63; i++) file.append(long);
    expect(statSync(path).size).toBe(0);
    file.append(long);
    expect(statSync(path).size).toBe(64 * 1024);
    expect(file.hasPending).toBe(false);
    file.close();
  });

  it('appends to an existing file when reopened, and counts its size towards rotation', () => {
    const first = new RotatingFile(path, { maxBytes: 30, maxFiles: 3 });
    for (const l of lines(1, 2)) first.append(l);
    first.close();
    const second = new RotatingFile(path, { maxBytes: 30, maxFiles: 3 });
    for (const l of lines(3, 4)) second.append(l);
    second.close();
    // Two lines (20 bytes) were there: the third fills the file to 30 bytes, the fourth starts a new one.
    expect(read(`${path}.1`)).toBe('line-0001\nline-0002\nline-0003\n');
    expect(read(path)).toBe('line-0004\n');
  });

  it('rotates by size into sync.log, sync.log.1 and sync.log.2, the newest lines in sync.log', () => {
    const file = new RotatingFile(path, { maxBytes: 30, maxFiles: 3 });
    for (const l of lines(1, 20)) file.append(l);
    file.close();
    expect(logFiles()).toEqual(['sync.log', 'sync.log.1', 'sync.log.2']);
    expect(read(`${path}.2`)).toBe('line-0013\nline-0014\nline-0015\n');
    expect(read(`${path}.1`)).toBe('line-0016\nline-0017\nline-0018\n');
    expect(read(path)).toBe('line-0019\nline-0020\n');
  });

  it('never keeps more than maxFiles files, however many lines arrive', () => {
    const file = new RotatingFile(path, { maxBytes: 25, maxFiles: 4 });
    for (let n = 1; n <= 200; n++) {
      file.append(line(n));
      if (n % 7 === 0) file.flush();
      expect(logFiles().length).toBeLessThanOrEqual(4);
    }
    file.close();
    expect(logFiles()).toEqual(['sync.log', 'sync.log.1', 'sync.log.2', 'sync.log.3']);
  });

  it('keeps whole lines in order across rotations, oldest file first, none over maxBytes', () => {
    const file = new RotatingFile(path, { maxBytes: 64, maxFiles: 5 });
    // Lines of varied lengths, some with multi-byte characters, so that files end at different places.
    const written = Array.from({ length: 60 }, (_, i) => `${i}:${'é'.repeat(i % 9)}${'z'.repeat(i % 5)}`);
    for (const l of written) file.append(l);
    file.close();
    const files = [`${path}.4`, `${path}.3`, `${path}.2`, `${path}.1`, path];
    const contents = files.map(read);
    for (const [i, text] of contents.entries()) {
      expect(text.endsWith('\n')).toBe(true);
      expect(statSync(files[i] as string).size).toBeLessThanOrEqual(64);
    }
    const kept = contents.join('').split('\n').slice(0, -1);
    expect(kept.length).toBeGreaterThan(5);
    expect(kept).toEqual(written.slice(written.length - kept.length));
  });

  it('puts a line longer than maxBytes whole into a file of its own', () => {
    const file = new RotatingFile(path, { maxBytes: 30, maxFiles: 3 });
    file.append(line(1));
    file.append('L'.repeat(50));
    file.append(line(2));
    file.close();
    expect(read(`${path}.2`)).toBe('line-0001\n');
    expect(read(`${path}.1`)).toBe(`${'L'.repeat(50)}\n`);
    expect(read(path)).toBe('line-0002\n');
  });

  it('keeps only sync.log, with the newest lines, when maxFiles is 1', () => {
    const file = new RotatingFile(path, { maxBytes: 30, maxFiles: 1 });
    for (const l of lines(1, 8)) file.append(l);
    file.close();
    expect(logFiles()).toEqual(['sync.log']);
    expect(read(path)).toBe('line-0007\nline-0008\n');
  });

  it('leaves unrelated files in the directory alone', () => {
    writeFileSync(join(dir, 'other.txt'), 'keep me');
    const file = new RotatingFile(path, { maxBytes: 10, maxFiles: 2 });
    for (const l of lines(1, 5)) file.append(l);
    file.close();
    expect(logFiles()).toEqual(['other.txt', 'sync.log', 'sync.log.1']);
    expect(read(join(dir, 'other.txt'))).toBe('keep me');
    expect(read(`${path}.1`)).toBe('line-0004\n');
    expect(read(path)).toBe('line-0005\n');
  });
});
