/**
 * The DQL lexer as the parser uses it: the one tokeniser of DQL (`src/shared/dql/lexer.ts`, which
 * the inspector's console and statement scan read leniently), strict, its syntax errors
 * `ParseError`s (`query/invalid`) that name the line and column.
 */
import { ParseError } from '../errors.ts';
import type { SourcePosition } from '../errors.ts';
import { Lexer as DqlLexer, syntaxErrorMessage, tokenize as tokenizeDql, type Token } from '../../shared/dql/lexer.ts';

export { describeToken, TokenKind, type Token } from '../../shared/dql/lexer.ts';

/** Builds the `ParseError` of every syntax error: `Syntax error at line L column C: expected X, found Y`. */
export function syntaxError(pos: SourcePosition, expected: string, found: string): ParseError {
  return new ParseError(syntaxErrorMessage(pos, expected, found), pos, { expected, found });
}

/** Reads tokens from a statement on demand; `token` is the next one to consume. Throws `ParseError`. */
export class Lexer extends DqlLexer {
  constructor(source: string) {
    super(source, { syntaxError });
  }
}

/** Lexes a whole statement; for tests and tools (the parser pulls tokens one at a time). Throws `ParseError`. */
export function tokenize(source: string): Token[] {
  return tokenizeDql(source, { syntaxError });
}
