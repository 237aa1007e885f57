import { describe, expect, it } from 'vitest';
import { ParseError } from '../errors.ts';
import { Lexer, tokenize, TokenKind } from './lexer.ts';

/** The tokens as `kind:value` strings, without the end of input. */
function kinds(source: string): string[] {
  return tokenize(source)
    .filter((t) => t.kind !== TokenKind.EOF)
    .map((t) => `${t.kind}:${t.value}`);
}

function lexError(source: string): ParseError {
  try {
    tokenize(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ParseError);
    return error as ParseError;
  }
  throw new Error(`expected ${JSON.stringify(source)} not to lex`);
}

describe('the DQL lexer', () => {
  it('reads names, keywords, numbers, strings and punctuation with their positions', () => {
    expect(tokenize('SELECT a FROM t')).toEqual([
      { kind: 'name', text: 'SELECT', value: 'SELECT', keyword: 'SELECT', pos: { line: 1, column: 1, offset: 0 } },
      { kind: 'name', text: 'a', value: 'a', keyword: 'A', pos: { line: 1, column: 8, offset: 7 } },
      { kind: 'name', text: 'FROM', value: 'FROM', keyword: 'FROM', pos: { line: 1, column: 10, offset: 9 } },
      { kind: 'name', text: 't', value: 't', keyword: 'T', pos: { line: 1, column: 15, offset: 14 } },
      { kind: 'eof', text: '', value: '', keyword: '', pos: { line: 1, column: 16, offset: 15 } },
    ]);
  });

  it('gives keywords an upper-case form whatever case they are written in', () => {
    expect(tokenize('select SeLeCt').map((t) => t.keyword)).toEqual(['SELECT', 'SELECT', '']);
  });

  it('reads every operator, taking the longest match', () => {
    expect(kinds('= == != <> < <= > >= || + - * / % ( ) [ ] { } , . ; :')).toEqual(
      '= == != <> < <= > >= || + - * / % ( ) [ ] { } , . ; :'.split(' ').map((p) => `punct:${p}`),
    );
    expect(kinds('a<>b<=c')).toEqual(['name:a', 'punct:<>', 'name:b', 'punct:<=', 'name:c']);
  });

  it('reads identifiers with digits, underscores, dollars and letters of any script', () => {
    expect(kinds('_id $x a1 prénom 名前')).toEqual(['name:_id', 'name:$x', 'name:a1', 'name:prénom', 'name:名前']);
  });

  it('reads integers, decimals and exponents as written', () => {
    expect(kinds('0 42 3.25 1e3 2.5E-2 7e+1')).toEqual(['number:0', 'number:42', 'number:3.25', 'number:1e3', 'number:2.5E-2', 'number:7e+1']);
  });

  it('stops a number before a dot that is not followed by a digit', () => {
    expect(kinds('1.x')).toEqual(['number:1', 'punct:.', 'name:x']);
  });

  it('rejects a number running into a name and an exponent without digits', () => {
    expect(lexError('12abc').message).toBe('Syntax error at line 1 column 3: expected a digit or the end of the number, found a');
    expect(lexError('1e+').message).toBe('Syntax error at line 1 column 4: expected a digit, found end of input');
  });

  it('decodes single- and double-quoted strings with doubled quotes and backslash escapes', () => {
    expect(kinds(String.raw`'it''s' "say ""hi""" 'a\'b\"c\\d\/e'`)).toEqual(["string:it's", 'string:say "hi"', 'string:a\'b"c\\d/e']);
    expect(tokenize(String.raw`'\n\r\t\b\f\u00e9\uD83D\uDE00'`)[0]?.value).toBe('\n\r\t\b\f\u00e9\u{1F600}');
  });

  it('keeps the text of a string token as written', () => {
    expect(tokenize(`"a""b"`)[0]?.text).toBe(`"a""b"`);
  });

  it('reads backtick-quoted names, which are never keywords, with doubled backticks', () => {
    const [token] = tokenize('`select``s name`');
    expect(token).toMatchObject({ kind: 'quoted-name', value: 'select`s name', keyword: '' });
  });

  it('reads a colon followed by an identifier as a parameter and any other colon as punctuation', () => {
    expect(kinds(':name : x ::p :1')).toEqual(['param:name', 'punct::', 'name:x', 'punct::', 'param:p', 'punct::', 'number:1']);
    expect(tokenize(':ttl')[0]?.text).toBe(':ttl');
  });

  it('skips line and block comments and whitespace', () => {
    expect(kinds('a -- comment * ; \n b /* block\n comment */ c--end')).toEqual(['name:a', 'name:b', 'name:c']);
  });

  it('counts lines across \\n, \\r\\n, \\r and multi-line strings and comments', () => {
    const tokens = tokenize("a\r\nb\rc\n/*\n*/ 'x\ny' d");
    expect(tokens.map((t) => [t.value, t.pos.line, t.pos.column])).toEqual([
      ['a', 1, 1],
      ['b', 2, 1],
      ['c', 3, 1],
      ['x\ny', 5, 4],
      ['d', 6, 4],
      ['', 6, 5],
    ]);
  });

  it('reports an unterminated string at the end of input, naming where it started', () => {
    const error = lexError("SELECT 'abc");
    expect(error.message).toBe("Syntax error at line 1 column 12: expected a closing ' for the string started at line 1 column 8, found end of input");
    expect(error.position).toEqual({ line: 1, column: 12, offset: 11 });
    expect(error.code).toBe('query/invalid');
    expect(error.details).toEqual({
      expected: "a closing ' for the string started at line 1 column 8",
      found: 'end of input',
      line: 1,
      column: 12,
    });
  });

  it('reports an unterminated double-quoted string and a string ending in a backslash', () => {
    expect(lexError('"ab\ncd').message).toBe(
      'Syntax error at line 2 column 3: expected a closing " for the string started at line 1 column 1, found end of input',
    );
    expect(lexError("'ab\\").message).toBe(
      "Syntax error at line 1 column 5: expected a closing ' for the string started at line 1 column 1, found end of input",
    );
  });

  it('reports an unterminated block comment and an unterminated backtick name', () => {
    expect(lexError('a /* never\nclosed').message).toBe(
      'Syntax error at line 2 column 7: expected */ to close the comment started at line 1 column 3, found end of input',
    );
    expect(lexError('x `odd').message).toBe(
      'Syntax error at line 1 column 7: expected a closing ` for the name started at line 1 column 3, found end of input',
    );
  });

  it('reports a bad escape at its backslash', () => {
    expect(lexError(String.raw`'ab\q'`).message).toBe(
      String.raw`Syntax error at line 1 column 4: expected an escape sequence (\\, \', \", \n, \r, \t, \b, \f, \/ or \uXXXX), found \q`,
    );
    expect(lexError(String.raw`'\u12G4'`).message).toBe(String.raw`Syntax error at line 1 column 2: expected \u followed by four hex digits, found \u12G4`);
  });

  it('reports an unexpected character, naming invisible ones by code point', () => {
    expect(lexError('SELECT # FROM t').message).toBe('Syntax error at line 1 column 8: expected a token, found #');
    expect(lexError('a\u00a0b').message).toBe('Syntax error at line 1 column 2: expected a token, found U+00A0');
    expect(lexError('a ! b').message).toBe('Syntax error at line 1 column 3: expected !=, found !');
    expect(lexError('a | b').message).toBe('Syntax error at line 1 column 3: expected ||, found |');
  });

  it('lexes lazily, so an error after the current token is not reported until it is reached', () => {
    const lexer = new Lexer('a #');
    expect(lexer.token.value).toBe('a');
    expect(() => lexer.advance()).toThrow('expected a token, found #');
  });

  it('peeks at the next token without consuming the current one', () => {
    const lexer = new Lexer('a b');
    expect(lexer.peek().value).toBe('b');
    expect(lexer.advance().value).toBe('a');
    expect(lexer.advance().value).toBe('b');
    expect(lexer.token.kind).toBe('eof');
  });

  it('splits a parameter token into a colon and the name after it when asked', () => {
    const lexer = new Lexer('{a:true}');
    lexer.advance();
    lexer.advance();
    expect(lexer.token).toMatchObject({ kind: 'param', value: 'true' });
    lexer.splitParam();
    expect(lexer.token).toMatchObject({ kind: 'punct', value: ':', pos: { line: 1, column: 3, offset: 2 } });
    expect(lexer.advance().value).toBe(':');
    expect(lexer.token).toMatchObject({ kind: 'name', value: 'true', keyword: 'TRUE', pos: { line: 1, column: 4, offset: 3 } });
  });
});
