/**
 * Lines of text and JSON lines, as commands exchange them through pipes.
 *
 * A line ends at LF ("\n") and nowhere else; one CR just before the LF is dropped, so that CRLF
 * input reads the same. U+2028, U+2029 and a CR elsewhere are data, kept inside the line: a reader
 * that also broke lines there (as `node:readline` does) would cut a JSON string in two and read
 * what follows as a line of its own. JSON lines written here escape U+2028 and U+2029, which
 * `JSON.stringify` leaves raw, so that every line reader sees one line per value.
 */

/** The longest line read, in bytes of UTF-8 without its line end: 16 MiB. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** One line of input, numbered from 1 (blank lines count). */
export type InputLine =
  | { readonly kind: 'line'; readonly number: number; readonly text: string }
  /** A line longer than the cap: its bytes were counted and dropped, not kept. */
  | { readonly kind: 'too-long'; readonly number: number; readonly bytes: number };

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a stream of UTF-8 chunks into lines as they arrive. Memory is bounded by the cap and
 * one chunk: past `maxLineBytes` the rest of a line is only counted. Chunks may end anywhere,
 * inside a CRLF or a UTF-8 character; LF never occurs inside a multi-byte character, so each
 * line is cut out as bytes and then decoded whole (invalid UTF-8 reads as U+FFFD).
 */
export class LineSplitter {
  readonly #maxLineBytes: number;
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  readonly #encoder = new TextEncoder();
  /** The bytes of the line so far, while it is within the cap. */
  #parts: Uint8Array[] = [];
  #bytes = 0;
  #lastByte: number | undefined;
  #tooLong = false;
  #number = 0;

  constructor(maxLineBytes: number = MAX_LINE_BYTES) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** The lines that `chunk` completes, in order. */
  push(chunk: Uint8Array | string): InputLine[] {
    const bytes = typeof chunk === 'string' ? this.#encoder.encode(chunk) : chunk;
    const lines: InputLine[] = [];
    let start = 0;
    for (let lf = bytes.indexOf(LF); lf !== -1; lf = bytes.indexOf(LF, start)) {
      this.#take(bytes.subarray(start, lf));
      lines.push(this.#finish());
      start = lf + 1;
    }
    this.#take(bytes.subarray(start));
    return lines;
  }

  /** The last line, when the input ends without a newline after it. */
  end(): InputLine | undefined {
    return this.#bytes === 0 ? undefined : this.#finish();
  }

  #take(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#bytes += bytes.length;
    this.#lastByte = bytes[bytes.length - 1];
    // One byte of slack: a CR that turns out to end the line is not part of it.
    if (this.#bytes > this.#maxLineBytes + 1) {
      this.#tooLong = true;
      this.#parts = [];
    }
    // A copy: the caller may reuse the chunk's memory.
    if (!this.#tooLong) this.#parts.push(bytes.slice());
  }

  #finish(): InputLine {
    const number = ++this.#number;
    const crlf = this.#lastByte === CR;
    const bytes = crlf ? this.#bytes - 1 : this.#bytes;
    const line: InputLine =
      this.#tooLong || bytes > this.#maxLineBytes
        ? { kind: 'too-long', number, bytes }
        : { kind: 'line', number, text: this.#decoder.decode(concat(this.#parts, this.#bytes).subarray(0, bytes)) };
    this.#parts = [];
    this.#bytes = 0;
    this.#lastByte = undefined;
    this.#tooLong = false;
    return line;
  }
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * `JSON.stringify(value, null, space)` with U+2028 and U+2029 escaped as `\u2028` and `\u2029`.
 * Both may only occur inside JSON strings, where the escape means the same character: the text
 * parses back to the same value, and holds no character that some line readers take for a line end.
 */
export function jsonText(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) as string | undefined;
  if (text === undefined) throw new TypeError(`${typeof value} has no JSON form`);
  return text.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

/** `value` as one JSON line, newline included: what a command writes for each answer. */
export function jsonLine(value: unknown): string {
  return `${jsonText(value)}\n`;
}

/** A readable stream, as far as `onLines` needs one (no Node types here). */
export interface LineSource {
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
}

/**
 * Calls `listener` with each line of `source` as it arrives (LF-terminated, as LineSplitter
 * splits them; the last line also without a newline). For pipes between our own processes,
 * where a line over the cap is a bug: it is reported to `onTooLong` and skipped.
 */
export function onLines(source: LineSource, listener: (line: string) => void, onTooLong: (line: InputLine) => void = () => {}): void {
  const splitter = new LineSplitter();
  const deliver = (line: InputLine | undefined): void => {
    if (line === undefined) return;
    if (line.kind === 'line') listener(line.text);
    else onTooLong(line);
  };
  source.on('data', (chunk) => {
    for (const line of splitter.push(chunk)) deliver(line);
  });
  source.on('end', () => deliver(splitter.end()));
}
