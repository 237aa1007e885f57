import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogHub, Sync } from '../peer/host.ts';
import { dqlPath, MAX_QUERY_OPERATORS, parseLegacyPath, translateLegacyQuery } from './legacy-query.ts';
import { post, startTestPeer } from '../testing/big-peer/test-helpers.ts';

function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected an error');
}

describe('the older query syntax', () => {
  it('translates the TTL query to DQL with the argument bound as a parameter', () => {
    expect(translateLegacyQuery('createdAt <= $args.TTL && evictionFlag == false', { TTL: '2026-11-18T00:00:00.000Z' })).toEqual({
      where: '((`createdAt` <= :q0) AND (`evictionFlag` = false))',
      params: { q0: '2026-11-18T00:00:00.000Z' },
    });
  });

  it('binds string and number literals as parameters and keeps true and false as keywords', () => {
    const { where, params } = translateLegacyQuery("name != 'Ann' || age >= 42.5 || vip == true");
    expect(where).toBe('((`name` != :q0) OR (`age` >= :q1) OR (`vip` = true))');
    expect(params).toEqual({ q0: 'Ann', q1: 42.5 });
  });

  it('gives && precedence over || and honours parentheses and !', () => {
    expect(translateLegacyQuery('a == 1 || b == 2 && c == 3').where).toBe('((`a` = :q0) OR ((`b` = :q1) AND (`c` = :q2)))');
    expect(translateLegacyQuery('!(a == 1 || b == 2) && !c').where).toBe('((NOT ((`a` = :q0) OR (`b` = :q1))) AND (NOT `c`))');
  });

  it('reads == null as null or absent, and != null as present and not null', () => {
    expect(translateLegacyQuery('x == null').where).toBe('(`x` IS NULL OR `x` IS MISSING)');
    expect(translateLegacyQuery('null != x.y').where).toBe('(`x`.`y` IS NOT NULL AND `x`.`y` IS NOT MISSING)');
    expect(translateLegacyQuery('x == $args.none', { none: null }).where).toBe('(`x` IS NULL OR `x` IS MISSING)');
  });

  it('writes paths as quoted segments: dotted names, indexes and quoted keys', () => {
    expect(dqlPath(parseLegacyPath("items[0]['odd `key'].qty"))).toBe('`items`[0].`odd ``key`.`qty`');
    expect(translateLegacyQuery('$args.range.low < price', { range: { low: 3 } }).params).toEqual({ q0: 3 });
  });

  it('never writes a value into the DQL text, whatever quotes it holds', () => {
    const attack = "x' OR 1 = 1 OR name = 'y";
    const fromArgs = translateLegacyQuery('name == $args.x', { x: attack });
    const fromLiteral = translateLegacyQuery(`name == "x' OR true --"`);
    expect(fromArgs.where).toBe('(`name` = :q0)');
    expect(fromArgs.params).toEqual({ q0: attack });
    expect(fromLiteral.where).toBe('(`name` = :q0)');
    expect(fromLiteral.params).toEqual({ q0: "x' OR true --" });
  });

  it('refuses a backtick, a semicolon or DQL words outside strings, naming the position', () => {
    expect(errorOf(() => translateLegacyQuery('a.`b` == 1')).message).toBe(
      "Syntax error in query at line 1 column 3: expected a path, a value or an operator, found '`'",
    );
    expect(errorOf(() => translateLegacyQuery('a == 1; DELETE FROM x')).message).toMatch(/column 7: expected a path, a value or an operator, found ';'/);
    expect(errorOf(() => translateLegacyQuery('a == 1 OR b == 2')).message).toMatch(/column 8: expected '&&', '\|\|' or end of query, found OR/);
  });

  it('names the line and column of a syntax error', () => {
    expect(errorOf(() => translateLegacyQuery('')).message).toBe('Syntax error in query at line 1 column 1: expected a condition, found end of query');
    expect(errorOf(() => translateLegacyQuery('a ==')).code).toBe('query/invalid');
    expect(errorOf(() => translateLegacyQuery("a == 1 &&\n  b == 'open")).message).toBe(
      "Syntax error in query at line 2 column 8: expected a closing ', found end of query",
    );
    expect(errorOf(() => translateLegacyQuery('$env.HOME == 1')).message).toMatch(/expected \$args\.NAME \(the only variable\), found \$env/);
  });

  it('refuses an $args name that args does not hold, as an arguments error', () => {
    const error = errorOf(() => translateLegacyQuery('a == $args.missing', { other: 1 }));
    expect(error.code).toBe('query/arguments-invalid');
    expect(error.message).toBe('$args.missing at line 1 column 6 has no value in args');
    expect(errorOf(() => translateLegacyQuery('a == $args.toString')).code).toBe('query/arguments-invalid');
  });

  it('bounds nesting and length', () => {
    expect(errorOf(() => translateLegacyQuery(`${'('.repeat(150)}a == 1${')'.repeat(150)}`)).message).toMatch(/at most 100 nested/);
    expect(errorOf(() => translateLegacyQuery(`${'!'.repeat(150)}a`)).message).toMatch(/at most 100 nested/);
    expect(errorOf(() => translateLegacyQuery(`a == '${'x'.repeat(100_001)}'`)).message).toMatch(/at most 100000 characters/);
  });
});

describe('translated queries in a store', () => {
  let sync: Sync;
  const hub = new LogHub();
  hub.enabled = false;

  beforeEach(async () => {
    sync = new Sync({ inMemory: true, logHub: hub });
    await sync.store.execute('INSERT INTO people DOCUMENTS (:docs)', {
      docs: [
        { _id: 'a', name: "O'Brien", age: 30, flag: false },
        { _id: 'b', name: 'Ann', age: 40, flag: true, nick: null },
        { _id: 'c', name: "x' OR 1 = 1 OR name = 'y", age: 50 },
      ],
    });
  });
  afterEach(() => sync.close());

  async function ids(query: string, args: Record<string, unknown> = {}): Promise<unknown[]> {
    const { where, params } = translateLegacyQuery(query, args as never);
    return (await sync.store.execute(`SELECT _id FROM people WHERE ${where}`, params)).items.map((d) => d._id);
  }

  it('runs a flat chain of 900 || terms, and one at the operator limit, even of == null tests', async () => {
    expect(await ids(Array.from({ length: 900 }, (_, i) => `age == ${i}`).join(' || '))).toEqual(['a', 'b', 'c']);
    expect(await ids(Array.from({ length: MAX_QUERY_OPERATORS + 1 }, () => 'nick != null').join(' && '))).toEqual([]);
    expect(await ids(Array.from({ length: MAX_QUERY_OPERATORS + 1 }, () => 'age > 1').join(' || '))).toEqual(['a', 'b', 'c']);
  });

  it('matches what the older syntax means', async () => {
    expect(await ids('age >= 40 && flag == true')).toEqual(['b']);
    expect(await ids("name == 'O\\'Brien' || age > 45")).toEqual(['a', 'c']);
    expect(await ids('nick == null')).toEqual(['a', 'b', 'c']);
    expect(await ids('nick != null')).toEqual([]);
    expect(await ids('!(age < 35)')).toEqual(['b', 'c']);
  });

  it('matches an injection attempt only as the literal text it is', async () => {
    expect(await ids('name == $args.x', { x: "x' OR 1 = 1 OR name = 'y" })).toEqual(['c']);
    expect(await ids('name == $args.x', { x: "' OR '1' = '1" })).toEqual([]);
  });
});

describe('long queries through store/write', () => {
  it('answers a chain of 5,000 terms with a 400 naming the operator over the limit, not a 500', async () => {
    const t = await startTestPeer();
    try {
      const query = Array.from({ length: 5000 }, () => 'a == 1').join(' || ');
      const res = await post(`${t.url}/api/v4/store/write`, { commands: [{ method: 'remove', collection: 'orders', query }] });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('query/invalid');
      const column = MAX_QUERY_OPERATORS * 'a == 1 || '.length + 'a == 1 '.length + 1;
      expect(res.json.error.message).toContain(
        `commands[0].query: Syntax error in query at line 1 column ${column}: expected at most ${MAX_QUERY_OPERATORS} operators`,
      );
      const ok = await post(`${t.url}/api/v4/store/write`, {
        commands: [{ method: 'remove', collection: 'orders', query: query.slice(0, 900 * 'a == 1 || '.length - 4) }],
      });
      expect(ok.status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('translates a long chain without deep recursion', () => {
    const { where } = translateLegacyQuery(Array.from({ length: MAX_QUERY_OPERATORS + 1 }, () => 'a == 1').join(' && '));
    expect(where.startsWith('((`a` = :q0) AND (`a` = :q1) AND')).toBe(true);
  });
});
