/**
 * DQL for read-only views: statements cut into highlighted tokens by the DQL lexer the peer's
 * parser uses (`src/shared/dql/lexer.ts`, in lenient mode), with its keyword list. Pure.
 */
import { DQL_FUNCTION_NAMES, DQL_KEYWORDS, LITERAL_WORDS } from '../../../shared/dql/keywords.ts';
import { tokenize, TokenKind, type Token } from '../../../shared/dql/lexer.ts';

/** Scalar functions and aggregates, lower-case as the docs write them (names are case-insensitive). */
export const DQL_FUNCTIONS: readonly string[] = DQL_FUNCTION_NAMES;

const KEYWORDS = new Set(DQL_KEYWORDS);

export type DqlTokenKind = 'keyword' | 'literal' | 'param' | 'string' | 'number' | 'name' | 'comment' | 'punct' | 'space';

export interface DqlToken {
  readonly kind: DqlTokenKind;
  readonly text: string;
}

/**
 * A statement cut into tokens for a read-only view (a confirmation, the history list): keywords,
 * literals (`true`, `false`, `null`, `missing`), `:params`, strings, numbers, names (bare or in backticks), comments. Never throws; an
 * unterminated string or comment runs to the end. The tokens' texts join back into the statement.
 */
export function dqlTokens(text: string): DqlToken[] {
  const tokens: DqlToken[] = [];
  for (const token of tokenize(text, { lenient: true, trivia: true })) {
    if (token.kind === TokenKind.EOF) break;
    tokens.push({ kind: kindOf(token, tokens.at(-1)), text: token.text });
  }
  return tokens;
}

function kindOf(token: Token, previous: DqlToken | undefined): DqlTokenKind {
  switch (token.kind) {
    case TokenKind.NAME: {
      // A word right after a dot is a field, whatever it spells (`a.set`).
      const afterDot = previous?.kind === 'punct' && previous.text.endsWith('.');
      return afterDot ? 'name' : LITERAL_WORDS.has(token.keyword) ? 'literal' : KEYWORDS.has(token.keyword) ? 'keyword' : 'name';
    }
    case TokenKind.QUOTED_NAME:
      return 'name';
    case TokenKind.STRING:
    case TokenKind.NUMBER:
    case TokenKind.PARAM:
    case TokenKind.SPACE:
    case TokenKind.COMMENT:
      return token.kind;
    default:
      return 'punct';
  }
}
