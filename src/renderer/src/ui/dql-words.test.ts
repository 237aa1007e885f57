import { describe, expect, it } from 'vitest';
import { dqlTokens } from './dql-words.ts';

const kinds = (text: string) =>
  dqlTokens(text)
    .filter((t) => t.kind !== 'space')
    .map((t) => [t.kind, t.text]);

describe('dqlTokens', () => {
  it('marks keywords, names, parameters, strings and numbers', () => {
    expect(kinds("select * FROM orders WHERE total > 5 AND s = 'a''b' AND _id = :id")).toEqual([
      ['keyword', 'select'],
      ['punct', '*'],
      ['keyword', 'FROM'],
      ['name', 'orders'],
      ['keyword', 'WHERE'],
      ['name', 'total'],
      ['punct', '>'],
      ['number', '5'],
      ['keyword', 'AND'],
      ['name', 's'],
      ['punct', '='],
      ['string', "'a''b'"],
      ['keyword', 'AND'],
      ['name', '_id'],
      ['punct', '='],
      ['param', ':id'],
    ]);
  });

  it('reads backticked names as names and a keyword after a dot as a field', () => {
    expect(kinds('UPDATE `order` SET a.set = 1')).toEqual([
      ['keyword', 'UPDATE'],
      ['name', '`order`'],
      ['keyword', 'SET'],
      ['name', 'a'],
      ['punct', '.'],
      ['name', 'set'],
      ['punct', '='],
      ['number', '1'],
    ]);
  });

  it('tells the literal words from the other keywords', () => {
    expect(kinds('x IS NOT NULL OR y = true')).toEqual([
      ['name', 'x'],
      ['keyword', 'IS'],
      ['keyword', 'NOT'],
      ['literal', 'NULL'],
      ['keyword', 'OR'],
      ['name', 'y'],
      ['punct', '='],
      ['literal', 'true'],
    ]);
  });

  it('keeps comments whole and survives unterminated text', () => {
    expect(kinds('-- note\nSELECT /* x */ "unterminated')).toEqual([
      ['comment', '-- note'],
      ['keyword', 'SELECT'],
      ['comment', '/* x */'],
      ['string', '"unterminated'],
    ]);
  });

  it('gives back the text it was given, token by token', () => {
    const text = 'INSERT INTO c DOCUMENTS (:doc) -- x\n ON ID CONFLICT DO MERGE /* y';
    expect(
      dqlTokens(text)
        .map((t) => t.text)
        .join(''),
    ).toBe(text);
  });
});
