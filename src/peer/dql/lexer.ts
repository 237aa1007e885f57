/**
 * The DQL lexer: turns statement text into tokens, one at a time, on demand (like graphql-js's
 * `Lexer`), so that the first error reported is the first one in reading order.
 *
 * Whitespace, `-- line comments` and `/* block comments *\/` are skipped. Every token carries the
 * position where it starts (1-based line and column in UTF-16 code units, 0-based offset); `\n`,
 * `\r\n` and a lone `\r` each end a line.
 */
import { ParseError } from '../errors.ts';
import type { SourcePosition } from '../errors.ts';

export const TokenKind = {
  /** A bare identifier or keyword: `orders`, `SELECT`, `_id`. */
  NAME: 'name',
  /** A backtick-quoted identifier; never a keyword. */
  QUOTED_NAME: 'quoted-name',
  STRING: 'string',
  NUMBER: 'number',
  /** `:name`: a colon immediately followed by an identifier. */
  PARAM: 'param',
  /** Operators and punctuation, including a `:` that does not start a parameter. */
  PUNCT: 'punct',
  EOF: 'eof',
} as const;
export type TokenKind = (typeof TokenKind)[keyof typeof TokenKind];

export interface Token {
  readonly kind: TokenKind;
  /** The token as written in the statement. */
  readonly text: string;
  /**
   * The meaning: the name (without backticks), the decoded string, the parameter name (without
   * the colon), the number or punctuation as written; `''` at the end of input.
   */
  readonly value: string;
  /** For a NAME, its ASCII upper-case form, to compare with keywords; otherwise `''`. */
  readonly keyword: string;
  readonly pos: SourcePosition;
}

/** Builds the `ParseError` of every syntax error: `Syntax error at line L column C: expected X, found Y`. */
export function syntaxError(pos: SourcePosition, expected: string, found: string): ParseError {
  return new ParseError(`Syntax error at line ${pos.line} column ${pos.column}: expected ${expected}, found ${found}`, pos, {
    expected,
    found,
  });
}

const SHOWN_LENGTH = 40;

/** How a token is named in an error message: as written, strings in single quotes. */
export function describeToken(token: Token): string {
  if (token.kind === TokenKind.EOF) return 'end of input';
  const shown = token.kind === TokenKind.STRING ? token.value : token.text;
  const short = shown.length > SHOWN_LENGTH ? `${shown.slice(0, SHOWN_LENGTH)}…` : shown;
  return token.kind === TokenKind.STRING ? `'${short}'` : short;
}

const TWO_CHAR_PUNCT = new Set(['==', '!=', '<>', '<=', '>=', '||']);
const ONE_CHAR_PUNCT = new Set(['(', ')', '[', ']', '{', '}', ',', '.', ';', '*', '/', '%', '+', '-', '=', '<', '>', ':']);
const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  '/': '/',
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
};
const ESCAPE_LIST = String.raw`\\, \', \", \n, \r, \t, \b, \f, \/ or \uXXXX`;

function isAsciiIdentifierStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36;
}
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
/** Identifiers: letters (any script), `_` and `$`, then also digits and combining marks. */
function isIdentifierStart(cp: number): boolean {
  return isAsciiIdentifierStart(cp) || (cp > 127 && /\p{L}/u.test(String.fromCodePoint(cp)));
}
function isIdentifierPart(cp: number): boolean {
  return isAsciiIdentifierStart(cp) || isDigit(cp) || (cp > 127 && /[\p{L}\p{M}\p{Nd}]/u.test(String.fromCodePoint(cp)));
}

/** Names a character for an error message; invisible ones as `U+XXXX`. */
function describeChar(cp: number): string {
  const char = String.fromCodePoint(cp);
  return /[\p{C}\p{Z}]/u.test(char) ? `U+${cp.toString(16).toUpperCase().padStart(4, '0')}` : char;
}

function asciiUpper(text: string): string {
  return text.replace(/[a-z]+/g, (s) => s.toUpperCase());
}

/** Reads tokens from a statement on demand; `token` is the next one to consume. Throws `ParseError`. */
export class Lexer {
  readonly source: string;
  /** The current token: the next one the parser will consume. */
  token: Token;
  #offset = 0;
  #line = 1;
  #lineStart = 0;
  #peeked: Token | undefined;

  constructor(source: string) {
    this.source = source;
    this.token = this.#read();
  }

  /** Consumes the current token and returns it. */
  advance(): Token {
    const consumed = this.token;
    if (consumed.kind !== TokenKind.EOF) {
      this.token = this.#peeked ?? this.#read();
      this.#peeked = undefined;
    }
    return consumed;
  }

  /** The token after the current one, without consuming anything. */
  peek(): Token {
    if (this.token.kind === TokenKind.EOF) return this.token;
    this.#peeked ??= this.#read();
    return this.#peeked;
  }

  /**
   * Re-reads a current PARAM token `:name` as a `:` followed by whatever `name` lexes as. The
   * parser does this where the grammar wants a colon (after an object key), so that `{a:b}` is
   * the key `a` with the path `b` and `{a:true}` has the literal `true`.
   */
  splitParam(): void {
    const { pos } = this.token;
    if (this.token.kind !== TokenKind.PARAM) return;
    this.token = { kind: TokenKind.PUNCT, text: ':', value: ':', keyword: '', pos };
    this.#offset = pos.offset + 1;
    this.#line = pos.line;
    this.#lineStart = pos.offset - pos.column + 1;
    this.#peeked = undefined;
  }

  #position(offset = this.#offset): SourcePosition {
    return { line: this.#line, column: offset - this.#lineStart + 1, offset };
  }

  /** Steps over one character at the cursor that is known to be a line break (`\r\n` counts once). */
  #newline(): void {
    const { source } = this;
    this.#offset += source[this.#offset] === '\r' && source[this.#offset + 1] === '\n' ? 2 : 1;
    this.#line += 1;
    this.#lineStart = this.#offset;
  }

  #skipIgnored(): void {
    const { source } = this;
    while (this.#offset < source.length) {
      const char = source[this.#offset];
      if (char === '\n' || char === '\r') this.#newline();
      else if (char === ' ' || char === '\t' || char === '\f' || char === '\v' || char === '\uFEFF') this.#offset += 1;
      else if (char === '-' && source[this.#offset + 1] === '-') {
        while (this.#offset < source.length && source[this.#offset] !== '\n' && source[this.#offset] !== '\r') this.#offset += 1;
      } else if (char === '/' && source[this.#offset + 1] === '*') {
        const start = this.#position();
        this.#offset += 2;
        for (;;) {
          if (this.#offset >= source.length) {
            throw syntaxError(this.#position(), `*/ to close the comment started at line ${start.line} column ${start.column}`, 'end of input');
          }
          const c = source[this.#offset];
          if (c === '*' && source[this.#offset + 1] === '/') break;
          if (c === '\n' || c === '\r') this.#newline();
          else this.#offset += 1;
        }
        this.#offset += 2;
      } else return;
    }
  }

  #make(kind: TokenKind, pos: SourcePosition, value: string): Token {
    const text = this.source.slice(pos.offset, this.#offset);
    return { kind, text, value, keyword: kind === TokenKind.NAME ? asciiUpper(text) : '', pos };
  }

  #read(): Token {
    this.#skipIgnored();
    const { source } = this;
    const pos = this.#position();
    if (this.#offset >= source.length) return { kind: TokenKind.EOF, text: '', value: '', keyword: '', pos };
    const char = source[this.#offset] ?? '';
    const cp = source.codePointAt(this.#offset) ?? 0;
    if (isIdentifierStart(cp)) {
      this.#readIdentifier();
      return this.#make(TokenKind.NAME, pos, source.slice(pos.offset, this.#offset));
    }
    if (isDigit(cp)) return this.#readNumber(pos);
    if (char === "'" || char === '"') return this.#readString(pos, char);
    if (char === '`') return this.#readQuotedName(pos);
    if (char === ':' && isIdentifierStart(source.codePointAt(this.#offset + 1) ?? 0)) {
      this.#offset += 1;
      this.#readIdentifier();
      return this.#make(TokenKind.PARAM, pos, source.slice(pos.offset + 1, this.#offset));
    }
    const two = source.slice(this.#offset, this.#offset + 2);
    if (TWO_CHAR_PUNCT.has(two)) {
      this.#offset += 2;
      return this.#make(TokenKind.PUNCT, pos, two);
    }
    if (ONE_CHAR_PUNCT.has(char)) {
      this.#offset += 1;
      return this.#make(TokenKind.PUNCT, pos, char);
    }
    if (char === '!') throw syntaxError(pos, '!=', '!');
    if (char === '|') throw syntaxError(pos, '||', '|');
    throw syntaxError(pos, 'a token', describeChar(cp));
  }

  #readIdentifier(): void {
    const { source } = this;
    while (this.#offset < source.length) {
      const cp = source.codePointAt(this.#offset) ?? 0;
      if (!isIdentifierPart(cp)) return;
      this.#offset += cp > 0xffff ? 2 : 1;
    }
  }

  #readDigits(): void {
    const { source } = this;
    const first = source.codePointAt(this.#offset);
    if (first === undefined || !isDigit(first)) {
      throw syntaxError(this.#position(), 'a digit', first === undefined ? 'end of input' : describeChar(first));
    }
    while (isDigit(source.charCodeAt(this.#offset))) this.#offset += 1;
  }

  // Number: Digits ("." Digits)? (("e" | "E") ("+" | "-")? Digits)?
  #readNumber(pos: SourcePosition): Token {
    const { source } = this;
    this.#readDigits();
    if (source[this.#offset] === '.' && isDigit(source.charCodeAt(this.#offset + 1))) {
      this.#offset += 1;
      this.#readDigits();
    }
    if (source[this.#offset] === 'e' || source[this.#offset] === 'E') {
      this.#offset += 1;
      if (source[this.#offset] === '+' || source[this.#offset] === '-') this.#offset += 1;
      this.#readDigits();
    }
    // `12abc` is a mistake, not the number 12 followed by the name abc.
    const next = source.codePointAt(this.#offset);
    if (next !== undefined && isIdentifierPart(next)) throw syntaxError(this.#position(), 'a digit or the end of the number', describeChar(next));
    const text = source.slice(pos.offset, this.#offset);
    return this.#make(TokenKind.NUMBER, pos, text);
  }

  // String: a quote, then characters, a doubled quote or a backslash escape, then the same quote.
  #readString(pos: SourcePosition, quote: string): Token {
    const { source } = this;
    this.#offset += 1;
    let value = '';
    let chunkStart = this.#offset;
    for (;;) {
      if (this.#offset >= source.length) {
        throw syntaxError(this.#position(), `a closing ${quote} for the string started at line ${pos.line} column ${pos.column}`, 'end of input');
      }
      const char = source[this.#offset];
      if (char === quote) {
        value += source.slice(chunkStart, this.#offset);
        if (source[this.#offset + 1] !== quote) break;
        value += quote;
        this.#offset += 2;
        chunkStart = this.#offset;
      } else if (char === '\\') {
        value += source.slice(chunkStart, this.#offset) + this.#readEscape();
        chunkStart = this.#offset;
      } else if (char === '\n' || char === '\r') this.#newline();
      else this.#offset += 1;
    }
    this.#offset += 1;
    return this.#make(TokenKind.STRING, pos, value);
  }

  /** Reads the escape sequence at the cursor (a backslash) and returns the text it stands for. */
  #readEscape(): string {
    const { source } = this;
    const pos = this.#position();
    const letter = source[this.#offset + 1];
    if (letter === undefined) {
      this.#offset += 1; // The string is unterminated; the caller reports that.
      return '';
    }
    const simple = ESCAPES[letter];
    if (simple !== undefined) {
      this.#offset += 2;
      return simple;
    }
    if (letter === 'u') {
      const hex = source.slice(this.#offset + 2, this.#offset + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw syntaxError(pos, String.raw`\u followed by four hex digits`, `\\u${hex}`);
      this.#offset += 6;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    throw syntaxError(pos, `an escape sequence (${ESCAPE_LIST})`, `\\${describeChar(source.codePointAt(this.#offset + 1) ?? 0)}`);
  }

  // QuotedName: "`", characters or a doubled "`", "`".
  #readQuotedName(pos: SourcePosition): Token {
    const { source } = this;
    this.#offset += 1;
    let value = '';
    let chunkStart = this.#offset;
    for (;;) {
      if (this.#offset >= source.length) {
        throw syntaxError(this.#position(), `a closing \` for the name started at line ${pos.line} column ${pos.column}`, 'end of input');
      }
      const char = source[this.#offset];
      if (char === '`') {
        value += source.slice(chunkStart, this.#offset);
        if (source[this.#offset + 1] !== '`') break;
        value += '`';
        this.#offset += 2;
        chunkStart = this.#offset;
      } else if (char === '\n' || char === '\r') this.#newline();
      else this.#offset += 1;
    }
    this.#offset += 1;
    return this.#make(TokenKind.QUOTED_NAME, pos, value);
  }
}

/** Lexes a whole statement; for tests and tools (the parser pulls tokens one at a time). */
export function tokenize(source: string): Token[] {
  const lexer = new Lexer(source);
  const tokens: Token[] = [];
  for (;;) {
    const token = lexer.advance();
    tokens.push(token);
    if (token.kind === TokenKind.EOF) return tokens;
  }
}
