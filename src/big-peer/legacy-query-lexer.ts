/**
 * The lexer of the older query syntax (see legacy-query.ts): names, strings in single or double
 * quotes (backslash escapes), JSON numbers, and the operators `== != < <= > >= && || !`,
 * parentheses, `.` and brackets. Every token carries its line and column.
 */
import { ParseError, type SourcePosition } from '../peer/host.ts';

export type TokenKind = 'name' | 'string' | 'number' | 'punct' | 'eof';
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** The decoded string, the name, the number or punctuation as written. */
  readonly value: string;
  readonly pos: SourcePosition;
}

const TWO_CHAR = new Set(['==', '!=', '<=', '>=', '&&', '||']);
const ONE_CHAR = new Set(['<', '>', '!', '(', ')', '.', '[', ']']);
const NAME_START = /[\p{L}_$]/u;
const NAME_PART = /[\p{L}\p{N}_$]/u;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', '/': '/', n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };

export function describe(token: Token): string {
  if (token.kind === 'eof') return 'end of query';
  return token.kind === 'string' ? `'${token.value.slice(0, 40)}'` : token.text.slice(0, 40);
}

export function syntaxError(pos: SourcePosition, expected: string, found: string): ParseError {
  return new ParseError(`Syntax error in query at line ${pos.line} column ${pos.column}: expected ${expected}, found ${found}`, pos, { expected, found });
}

export class Lexer {
  readonly #text: string;
  #offset = 0;
  #line = 1;
  #lineStart = 0;

  constructor(text: string) {
    this.#text = text;
  }

  #pos(): SourcePosition {
    return { line: this.#line, column: this.#offset - this.#lineStart + 1, offset: this.#offset };
  }

  next(): Token {
    const text = this.#text;
    while (this.#offset < text.length && /\s/.test(text[this.#offset] as string)) {
      if (text[this.#offset] === '\n') {
        this.#line++;
        this.#lineStart = this.#offset + 1;
      }
      this.#offset++;
    }
    const pos = this.#pos();
    const start = this.#offset;
    if (start >= text.length) return { kind: 'eof', text: '', value: '', pos };
    const c = text[start] as string;
    const two = text.slice(start, start + 2);
    if (TWO_CHAR.has(two)) return this.#take('punct', two, two, pos);
    if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = start;
      const m = NUMBER.exec(text);
      if (m === null) throw syntaxError(pos, 'a number', `'${c}'`);
      return this.#take('number', m[0], m[0], pos);
    }
    if (ONE_CHAR.has(c)) return this.#take('punct', c, c, pos);
    if (c === "'" || c === '"') return this.#string(c, pos);
    if (NAME_START.test(c)) {
      let end = start + 1;
      while (end < text.length && NAME_PART.test(text[end] as string)) end++;
      const name = text.slice(start, end);
      return this.#take('name', name, name, pos);
    }
    throw syntaxError(pos, 'a path, a value or an operator', `'${String.fromCodePoint(text.codePointAt(start) as number)}'`);
  }

  #take(kind: TokenKind, text: string, value: string, pos: SourcePosition): Token {
    this.#offset += text.length;
    return { kind, text, value, pos };
  }

  #string(quote: string, pos: SourcePosition): Token {
    const text = this.#text;
    let value = '';
    let i = this.#offset + 1;
    for (;;) {
      if (i >= text.length || text[i] === '\n') throw syntaxError(pos, `a closing ${quote}`, i >= text.length ? 'end of query' : 'end of line');
      const c = text[i] as string;
      if (c === quote) break;
      if (c === '\\') {
        const e = text[i + 1] ?? '';
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
          continue;
        }
        const decoded = ESCAPES[e];
        if (decoded === undefined)
          throw syntaxError({ ...pos, column: pos.column + i - this.#offset, offset: i }, 'an escape such as \\n or \\u0041', `'\\${e}'`);
        value += decoded;
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    const raw = text.slice(this.#offset, i + 1);
    return this.#take('string', raw, value, pos);
  }
}
