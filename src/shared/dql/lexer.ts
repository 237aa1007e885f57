/**
 * The DQL lexer: turns statement text into tokens, one at a time, on demand (like graphql-js's
 * `Lexer`), so that the first error reported is the first one in reading order. The one
 * tokeniser of DQL: the peer's parser reads through it strictly, the inspector's console (its
 * highlighting) and statement scan leniently, so all three agree on what a token is.
 *
 * Whitespace, `-- line comments` and `/* block comments *\/` are skipped (or, with `trivia`,
 * returned as tokens). Every token carries the position where it starts (1-based line and column
 * in UTF-16 code units, 0-based offset); `\n`, `\r\n` and a lone `\r` each end a line.
 *
 * Pure: no Node.js, no DOM, no peer code.
 */
import type { SourcePosition } from './source-position.ts';

export type { SourcePosition };

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
  /** With `trivia` only: a run of white space. */
  SPACE: 'space',
  /** With `trivia` only: a line or block comment, its markers included. */
  COMMENT: 'comment',
  /** In lenient mode only: one character that is no token of DQL (`#`, a lone `!` or `|`). */
  INVALID: 'invalid',
} as const;
export type TokenKind = (typeof TokenKind)[keyof typeof TokenKind];

export interface Token {
  readonly kind: TokenKind;
  /** The token as written in the statement. */
  readonly text: string;
  /**
   * The meaning: the name (without backticks), the decoded string, the parameter name (without
   * the colon), the number or punctuation as written; `''` at the end of input. White space,
   * comments and invalid characters: as written.
   */
  readonly value: string;
  /** For a NAME, its ASCII upper-case form, to compare with keywords; otherwise `''`. */
  readonly keyword: string;
  readonly pos: SourcePosition;
}

/** Builds the error a strict lexer throws for a syntax error (the peer makes it a `ParseError`). */
export type SyntaxErrorFactory = (pos: SourcePosition, expected: string, found: string) => Error;

export interface LexerOptions {
  /**
   * Never throw, for text being typed or shown: an unterminated string, backtick name or comment
   * runs to the end of input; a bad escape stands for itself; a number ends where it stops being
   * one (`1e` is the number `1` and the name `e`, `12abc` is `12` and `abc`); any other character
   * the dialect has no use for is an INVALID token of its own; and any Unicode white space (as
   * JavaScript's `\s` reads it) counts as white space. Positions stay meaningful.
   */
  readonly lenient?: boolean;
  /** Also return white space (SPACE) and comments (COMMENT), so that the tokens' texts join back into the source. */
  readonly trivia?: boolean;
  /** The error a strict lexer throws; a `SyntaxError` with the same message by default. */
  readonly syntaxError?: SyntaxErrorFactory;
}

/** The message of every DQL syntax error: `Syntax error at line L column C: expected X, found Y`. */
export function syntaxErrorMessage(pos: SourcePosition, expected: string, found: string): string {
  return `Syntax error at line ${pos.line} column ${pos.column}: expected ${expected}, found ${found}`;
}

const defaultSyntaxError: SyntaxErrorFactory = (pos, expected, found) => new SyntaxError(syntaxErrorMessage(pos, expected, found));

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
/** The white space of DQL; lenient reading also takes the rest of Unicode's (`\u00A0`, `\u2028`, …). */
function isSpace(char: string | undefined, lenient: boolean): boolean {
  if (char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\f' || char === '\v' || char === '\uFEFF') return true;
  return lenient && char !== undefined && /\s/.test(char);
}

/** Names a character for an error message; invisible ones as `U+XXXX`. */
function describeChar(cp: number): string {
  const char = String.fromCodePoint(cp);
  return /[\p{C}\p{Z}]/u.test(char) ? `U+${cp.toString(16).toUpperCase().padStart(4, '0')}` : char;
}

function asciiUpper(text: string): string {
  return text.replace(/[a-z]+/g, (s) => s.toUpperCase());
}

/**
 * Reads tokens from a statement on demand; `token` is the next one to consume. A strict lexer
 * (the default) throws the error of `options.syntaxError`; a lenient one never throws.
 */
export class Lexer {
  readonly source: string;
  /** The current token: the next one the parser will consume. */
  token: Token;
  readonly #lenient: boolean;
  readonly #trivia: boolean;
  readonly #syntaxError: SyntaxErrorFactory;
  #offset = 0;
  #line = 1;
  #lineStart = 0;
  #peeked: Token | undefined;

  constructor(source: string, options: LexerOptions = {}) {
    this.source = source;
    this.#lenient = options.lenient ?? false;
    this.#trivia = options.trivia ?? false;
    this.#syntaxError = options.syntaxError ?? defaultSyntaxError;
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

  /** Steps over a run of white space or one comment at the cursor; says which, or undefined when there is neither. */
  #skipIgnored(): typeof TokenKind.SPACE | typeof TokenKind.COMMENT | undefined {
    const { source } = this;
    const start = this.#offset;
    while (this.#offset < source.length && isSpace(source[this.#offset], this.#lenient)) {
      const char = source[this.#offset];
      if (char === '\n' || char === '\r') this.#newline();
      else this.#offset += 1;
    }
    if (this.#offset > start) return TokenKind.SPACE;
    const char = source[this.#offset];
    if (char === '-' && source[this.#offset + 1] === '-') {
      while (this.#offset < source.length && source[this.#offset] !== '\n' && source[this.#offset] !== '\r') this.#offset += 1;
      return TokenKind.COMMENT;
    }
    if (char === '/' && source[this.#offset + 1] === '*') {
      const start = this.#position();
      this.#offset += 2;
      for (;;) {
        if (this.#offset >= source.length) {
          if (this.#lenient) return TokenKind.COMMENT;
          throw this.#syntaxError(this.#position(), `*/ to close the comment started at line ${start.line} column ${start.column}`, 'end of input');
        }
        const c = source[this.#offset];
        if (c === '*' && source[this.#offset + 1] === '/') break;
        if (c === '\n' || c === '\r') this.#newline();
        else this.#offset += 1;
      }
      this.#offset += 2;
      return TokenKind.COMMENT;
    }
    return undefined;
  }

  #make(kind: TokenKind, pos: SourcePosition, value?: string): Token {
    const text = this.source.slice(pos.offset, this.#offset);
    return { kind, text, value: value ?? text, keyword: kind === TokenKind.NAME ? asciiUpper(text) : '', pos };
  }

  #read(): Token {
    for (;;) {
      const pos = this.#position();
      const ignored = this.#skipIgnored();
      if (ignored === undefined) break;
      if (this.#trivia) return this.#make(ignored, pos);
    }
    const { source } = this;
    const pos = this.#position();
    if (this.#offset >= source.length) return { kind: TokenKind.EOF, text: '', value: '', keyword: '', pos };
    const char = source[this.#offset] ?? '';
    const cp = source.codePointAt(this.#offset) ?? 0;
    if (isIdentifierStart(cp)) {
      this.#readIdentifier();
      return this.#make(TokenKind.NAME, pos);
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
      return this.#make(TokenKind.PUNCT, pos);
    }
    if (ONE_CHAR_PUNCT.has(char)) {
      this.#offset += 1;
      return this.#make(TokenKind.PUNCT, pos);
    }
    if (this.#lenient) {
      this.#offset += cp > 0xffff ? 2 : 1;
      return this.#make(TokenKind.INVALID, pos);
    }
    if (char === '!') throw this.#syntaxError(pos, '!=', '!');
    if (char === '|') throw this.#syntaxError(pos, '||', '|');
    throw this.#syntaxError(pos, 'a token', describeChar(cp));
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
      throw this.#syntaxError(this.#position(), 'a digit', first === undefined ? 'end of input' : describeChar(first));
    }
    while (isDigit(source.charCodeAt(this.#offset))) this.#offset += 1;
  }

  /** Whether the `e` or `E` at the cursor starts a complete exponent: digits, after an optional sign. */
  #exponentFollows(): boolean {
    const { source } = this;
    const sign = source[this.#offset + 1] === '+' || source[this.#offset + 1] === '-' ? 1 : 0;
    return isDigit(source.charCodeAt(this.#offset + 1 + sign));
  }

  // Number: Digits ("." Digits)? (("e" | "E") ("+" | "-")? Digits)?
  #readNumber(pos: SourcePosition): Token {
    const { source } = this;
    this.#readDigits();
    if (source[this.#offset] === '.' && isDigit(source.charCodeAt(this.#offset + 1))) {
      this.#offset += 1;
      this.#readDigits();
    }
    if ((source[this.#offset] === 'e' || source[this.#offset] === 'E') && (!this.#lenient || this.#exponentFollows())) {
      this.#offset += 1;
      if (source[this.#offset] === '+' || source[this.#offset] === '-') this.#offset += 1;
      this.#readDigits();
    }
    // `12abc` is a mistake, not the number 12 followed by the name abc.
    const next = source.codePointAt(this.#offset);
    if (!this.#lenient && next !== undefined && isIdentifierPart(next)) {
      throw this.#syntaxError(this.#position(), 'a digit or the end of the number', describeChar(next));
    }
    return this.#make(TokenKind.NUMBER, pos);
  }

  // String: a quote, then characters, a doubled quote or a backslash escape, then the same quote.
  #readString(pos: SourcePosition, quote: string): Token {
    const { source } = this;
    this.#offset += 1;
    let value = '';
    let chunkStart = this.#offset;
    for (;;) {
      if (this.#offset >= source.length) {
        if (this.#lenient) return this.#make(TokenKind.STRING, pos, value + source.slice(chunkStart));
        throw this.#syntaxError(this.#position(), `a closing ${quote} for the string started at line ${pos.line} column ${pos.column}`, 'end of input');
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
    const hex = source.slice(this.#offset + 2, this.#offset + 6);
    if (letter === 'u' && /^[0-9a-fA-F]{4}$/.test(hex)) {
      this.#offset += 6;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    if (this.#lenient) {
      // The backslash stands for itself; a line break after it is read as one by the caller.
      this.#offset += letter === '\n' || letter === '\r' ? 1 : 2;
      return source.slice(pos.offset, this.#offset);
    }
    if (letter === 'u') throw this.#syntaxError(pos, String.raw`\u followed by four hex digits`, `\\u${hex}`);
    throw this.#syntaxError(pos, `an escape sequence (${ESCAPE_LIST})`, `\\${describeChar(source.codePointAt(this.#offset + 1) ?? 0)}`);
  }

  // QuotedName: "`", characters or a doubled "`", "`".
  #readQuotedName(pos: SourcePosition): Token {
    const { source } = this;
    this.#offset += 1;
    let value = '';
    let chunkStart = this.#offset;
    for (;;) {
      if (this.#offset >= source.length) {
        if (this.#lenient) return this.#make(TokenKind.QUOTED_NAME, pos, value + source.slice(chunkStart));
        throw this.#syntaxError(this.#position(), `a closing \` for the name started at line ${pos.line} column ${pos.column}`, 'end of input');
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

/** Lexes a whole statement, the end of input included (the parser pulls tokens one at a time instead). */
export function tokenize(source: string, options: LexerOptions = {}): Token[] {
  const lexer = new Lexer(source, options);
  const tokens: Token[] = [];
  for (;;) {
    const token = lexer.advance();
    tokens.push(token);
    if (token.kind === TokenKind.EOF) return tokens;
  }
}
