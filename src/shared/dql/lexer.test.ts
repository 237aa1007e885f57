import { describe, expect, it } from 'vitest';
import { tokenize, TokenKind } from './lexer.ts';

/** The tokens as `kind:text` strings, without the end of input. */
function lenient(source: string, trivia = false): string[] {
  return tokenize(source, { lenient: true, trivia })
    .filter((t) => t.kind !== TokenKind.EOF)
    .map((t) => `${t.kind}:${t.text}`);
}

describe('the DQL lexer in lenient mode', () => {
  it('reads a valid statement exactly as the strict lexer does', () => {
    const statement = "SELECT `a``b`, x.y FROM t -- c\nWHERE s = 'it''s\\n' AND n >= 2.5e3 OR p <> :p /* d */ LIMIT 1";
    expect(tokenize(statement, { lenient: true })).toEqual(tokenize(statement));
  });

  it('runs an unterminated string, backtick name or comment to the end of input instead of throwing', () => {
    expect(lenient("a = 'abc")).toEqual(['name:a', 'punct:=', "string:'abc"]);
    expect(tokenize('FROM `my coll', { lenient: true })[1]).toMatchObject({ kind: 'quoted-name', value: 'my coll' });
    expect(lenient('a /* never closed', true)).toEqual(['name:a', 'space: ', 'comment:/* never closed']);
  });

  it('ends a number where it stops being one and reads bad escapes and stray characters as tokens', () => {
    expect(lenient('12abc 1e+ 1e5x')).toEqual(['number:12', 'name:abc', 'number:1', 'name:e', 'punct:+', 'number:1e5', 'name:x']);
    expect(lenient(String.raw`'a\qb' '\u12G4'`)).toEqual([String.raw`string:'a\qb'`, String.raw`string:'\u12G4'`]);
    expect(lenient('a # ! | 😀')).toEqual(['name:a', 'invalid:#', 'invalid:!', 'invalid:|', 'invalid:😀']);
  });

  it('returns white space (any Unicode space) and comments with trivia, so that the texts join back into the source', () => {
    const source = "SELECT\u00a0* -- note\r\nFROM t /* x */ WHERE a = 'unterminated";
    const tokens = tokenize(source, { lenient: true, trivia: true });
    expect(tokens.map((t) => t.text).join('')).toBe(source);
    expect(lenient(source, true).slice(0, 6)).toEqual(['name:SELECT', 'space:\u00a0', 'punct:*', 'space: ', 'comment:-- note', 'space:\r\n']);
    expect(tokens.find((t) => t.text === 'FROM')?.pos).toEqual({ line: 2, column: 1, offset: 18 });
  });

  it('throws in strict mode, a SyntaxError unless the caller supplies its own error', () => {
    expect(() => tokenize('a #')).toThrow(new SyntaxError('Syntax error at line 1 column 3: expected a token, found #'));
  });
});
