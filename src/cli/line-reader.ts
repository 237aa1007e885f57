/**
 * A command's standard input as lines, read as they arrive: the peer answers each line while
 * its input is still open. Lines end at LF only (see src/shared/json-lines.ts); a line longer
 * than the cap is counted, not kept, and comes out as a `too-long` line that the command answers
 * with a `cli/invalid-line` error.
 */
import type { ErrorValue } from '../shared/error-codes.ts';
import { LineSplitter, MAX_LINE_BYTES, type InputLine } from '../shared/json-lines.ts';

export type { InputLine } from '../shared/json-lines.ts';

interface Waiter {
  resolve(result: IteratorResult<InputLine, undefined>): void;
  reject(error: unknown): void;
}

/**
 * Reads lines from a stream, one `next()` at a time. While read lines wait for `next()`, the
 * stream is paused, so memory stays bounded by the line cap and one chunk of input. `close()`
 * pauses the stream and lets go of it; a `next()` still waiting then resolves as done.
 */
export class LineReader implements AsyncIterableIterator<InputLine, undefined> {
  readonly #stream: NodeJS.ReadableStream;
  readonly #splitter: LineSplitter;
  /** Lines read and not yet taken, from `#head` on. */
  #queue: InputLine[] = [];
  #head = 0;
  #ended = false;
  #closed = false;
  #failure: { readonly error: unknown } | undefined;
  #waiter: Waiter | undefined;

  constructor(stream: NodeJS.ReadableStream, maxLineBytes: number = MAX_LINE_BYTES) {
    this.#stream = stream;
    this.#splitter = new LineSplitter(maxLineBytes);
    stream.on('data', this.#onData);
    stream.on('end', this.#onEnd);
    // Destroyed without an end: what came after the last newline is not a line.
    stream.on('close', this.#onClose);
    stream.on('error', this.#onError);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next line, or done at the end of the input or after `close()`; rejects on a read error. */
  next(): Promise<IteratorResult<InputLine, undefined>> {
    if (this.#waiter !== undefined) return Promise.reject(new Error('LineReader: one next() at a time'));
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
      this.#settle();
      if (this.#waiter !== undefined) this.#stream.resume();
    });
  }

  /** Stops reading: for `for await`, on a break or a throw. */
  return(): Promise<IteratorResult<InputLine, undefined>> {
    this.close();
    return Promise.resolve({ done: true, value: undefined });
  }

  /** Pauses the stream and removes this reader's listeners; lines not yet taken are dropped. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stream.removeListener('data', this.#onData);
    this.#stream.removeListener('end', this.#onEnd);
    this.#stream.removeListener('close', this.#onClose);
    this.#stream.removeListener('error', this.#onError);
    this.#stream.pause();
    this.#queue = [];
    this.#head = 0;
    this.#settle();
  }

  readonly #onData = (chunk: Uint8Array | string): void => {
    for (const line of this.#splitter.push(chunk)) this.#queue.push(line);
    this.#settle();
    // Hold the input while lines wait for their turn.
    if (this.#head < this.#queue.length) this.#stream.pause();
  };

  readonly #onEnd = (): void => {
    const last = this.#splitter.end();
    if (last !== undefined) this.#queue.push(last);
    this.#ended = true;
    this.#settle();
  };

  readonly #onClose = (): void => {
    this.#ended = true;
    this.#settle();
  };

  readonly #onError = (error: unknown): void => {
    this.#failure ??= { error };
    this.#settle();
  };

  /** Answers a waiting `next()` when there is something to answer it with. */
  #settle(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    if (this.#head < this.#queue.length) {
      const line = this.#queue[this.#head++] as InputLine;
      if (this.#head === this.#queue.length) {
        this.#queue = [];
        this.#head = 0;
      }
      this.#waiter = undefined;
      waiter.resolve({ done: false, value: line });
    } else if (this.#failure !== undefined && !this.#closed) {
      this.#waiter = undefined;
      waiter.reject(this.#failure.error);
    } else if (this.#ended || this.#closed) {
      this.#waiter = undefined;
      waiter.resolve({ done: true, value: undefined });
    }
  }
}

/** The `cli/invalid-line` error that answers a line longer than the cap. */
export function lineTooLongError(line: Extract<InputLine, { kind: 'too-long' }>, maxLineBytes: number = MAX_LINE_BYTES): ErrorValue {
  return {
    code: 'cli/invalid-line',
    message: `line ${line.number} is ${line.bytes} bytes long; a line may hold at most ${maxLineBytes} bytes`,
  };
}
