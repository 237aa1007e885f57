/**
 * A log file with rotation by size: `sync.log`, then `sync.log.1` … `sync.log.<maxFiles-1>`,
 * the oldest deleted. Lines are buffered and written in batches so that DEBUG logging does not
 * cost a system call per line; `flush()` writes what is buffered (called on a short timer, at
 * close, and at process exit).
 */
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface RotatingFileOptions {
  /** Rotate once the file reaches this many bytes (default 10 MiB). */
  readonly maxBytes?: number;
  /** Files kept, the current one included (default 5). */
  readonly maxFiles?: number;
}

const FLUSH_BYTES = 64 * 1024;

export class RotatingFile {
  readonly path: string;
  readonly #maxBytes: number;
  readonly #maxFiles: number;
  #fd: number;
  #size: number;
  #pending: string[] = [];
  #pendingBytes = 0;

  constructor(path: string, options: RotatingFileOptions = {}) {
    this.path = path;
    this.#maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.#maxFiles = Math.max(1, options.maxFiles ?? 5);
    mkdirSync(dirname(path), { recursive: true });
    this.#fd = openSync(path, 'a');
    this.#size = statSync(path).size;
  }

  /** Buffers one line (a newline is added). */
  append(line: string): void {
    const text = `${line}\n`;
    this.#pending.push(text);
    this.#pendingBytes += Buffer.byteLength(text);
    if (this.#pendingBytes >= FLUSH_BYTES || this.#size + this.#pendingBytes >= this.#maxBytes) this.flush();
  }

  get hasPending(): boolean {
    return this.#pending.length > 0;
  }

  /** Writes the buffered lines, rotating whenever the file would pass its size. */
  flush(): void {
    // Lines go out in as few writes as rotation allows: one per file, not one per line.
    let written = 0;
    try {
      while (written < this.#pending.length) {
        if (this.#size > 0 && this.#size + Buffer.byteLength(this.#pending[written] as string) > this.#maxBytes) this.#rotate();
        let end = written;
        let bytes = 0;
        while (end < this.#pending.length) {
          const next = Buffer.byteLength(this.#pending[end] as string);
          if (end > written && this.#size + bytes + next > this.#maxBytes) break;
          bytes += next;
          end++;
        }
        writeSync(this.#fd, this.#pending.slice(written, end).join(''));
        this.#size += bytes;
        written = end;
      }
    } finally {
      // Lines written are gone from the buffer even when a later write fails: none is written twice.
      this.#pending = this.#pending.slice(written);
      this.#pendingBytes = this.#pending.reduce((n, t) => n + Buffer.byteLength(t), 0);
    }
  }

  #rotate(): void {
    closeSync(this.#fd);
    const oldest = `${this.path}.${this.#maxFiles - 1}`;
    if (this.#maxFiles === 1) rmSync(this.path, { force: true });
    else if (existsSync(oldest)) rmSync(oldest, { force: true });
    for (let i = this.#maxFiles - 2; i >= 1; i--) {
      if (existsSync(`${this.path}.${i}`)) renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
    }
    if (this.#maxFiles > 1 && existsSync(this.path)) renameSync(this.path, `${this.path}.1`);
    this.#fd = openSync(this.path, 'a');
    this.#size = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.#fd);
  }
}
