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
    let written = 0;
    try {
      for (const text of this.#pending) {
        const bytes = Buffer.byteLength(text);
        if (this.#size > 0 && this.#size + bytes > this.#maxBytes) this.#rotate();
        writeSync(this.#fd, text);
        this.#size += bytes;
        written++;
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
