import { describe, expect, it } from 'vitest';
import type { Expr } from './ast.ts';
import { parseCondition } from './parser.ts';
import { printExpr } from './print.ts';

const strip = (e: Expr): unknown => JSON.parse(JSON.stringify(e, (k, v: unknown) => (k === 'pos' ? undefined : v)));

describe('printing expressions as DQL', () => {
  it.each([
    'createdAt <= :ttl AND evictionFlag = false',
    'NOT (a OR b) AND c IS NOT MISSING',
    "name ILIKE 'o''brien%' OR tags IN ['x', 'y'] OR n NOT BETWEEN 1 AND 2.5",
    '`order`.`select` = -3 AND coalesce(x, {a: [1, null]}) != "q\\nz"',
    'count(*) > 1 OR upper(s) || lower(t) = :u',
    'a.b[0].c % 2 = 1',
  ])('prints %s so that it parses back to the same tree', (text) => {
    const tree = parseCondition(text);
    expect(strip(parseCondition(printExpr(tree)))).toEqual(strip(tree));
  });

  it('prints the spec’s TTL condition readably', () => {
    expect(printExpr(parseCondition('createdAt <= :ttl AND evictionFlag == false'))).toBe('((createdAt <= :ttl) AND (evictionFlag = false))');
  });
});
