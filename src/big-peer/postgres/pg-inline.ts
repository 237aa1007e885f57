/**
 * Statements joined into one text, their parameters written in as literals, so that they take
 * one round trip to PostgreSQL instead of one each: a group member's SAVEPOINT (and what waited
 * in its batch) goes with its first statement (pg-storage.ts). `pg` sends a statement with
 * parameters on its own (the extended protocol); a text of several statements has none.
 *
 * A literal is the text `pg` would have sent for the parameter (`prepareValue`), quoted by
 * `escapeLiteral`, and untyped as the parameter was, so PostgreSQL reads the same value in the
 * same place. Values larger than MAX_INLINED_CHARS in all are left as parameters: quoting a bulk
 * load costs more than the round trip it saves.
 */
import pg from 'pg';
import type { Statement } from './pg-protocol.ts';

/** Past this many characters of literals, the statements go one by one, with their parameters. */
export const MAX_INLINED_CHARS = 64 * 1024;

// pg's own conversion of a value to its text form (arrays to array literals, dates, JSON); not in its typings.
const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): string | Buffer | null } }).utils;

/** The SQL literal of a parameter value: NULL, or a quoted string PostgreSQL reads as the parameter's text. */
export function literalOf(value: unknown): string {
  const text = prepareValue(value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value);
  if (text === null) return 'NULL';
  // bytea in its hex form, as PostgreSQL prints it.
  return pg.escapeLiteral(Buffer.isBuffer(text) ? `\\x${text.toString('hex')}` : text);
}

/** Quoted literals and identifiers, which may hold a `$`, or a parameter `$n` outside them. */
const TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)/g;

/** The statement's text with its parameters written in; undefined when it has more than `budget` characters of them. */
function inlined(statement: Statement, budget: { chars: number }): string | undefined {
  const params = statement.params;
  if (params === undefined || params.length === 0) return statement.sql;
  const literals = params.map(literalOf);
  budget.chars -= literals.reduce((sum, l) => sum + l.length, 0);
  if (budget.chars < 0) return undefined;
  let unknown = false;
  const sql = statement.sql.replace(TOKENS, (token, index: string | undefined) => {
    if (index === undefined) return token;
    const literal = literals[Number(index) - 1];
    if (literal === undefined) unknown = true;
    return literal ?? token;
  });
  return unknown ? undefined : sql;
}

/**
 * The statements as one text without parameters, whose result is the last statement's; undefined
 * when their literals would be too large (or a `$n` names no parameter): send them one by one.
 */
export function joinedStatements(statements: readonly Statement[]): Statement | undefined {
  const budget = { chars: MAX_INLINED_CHARS };
  const texts: string[] = [];
  for (const statement of statements) {
    const text = inlined(statement, budget);
    if (text === undefined) return undefined;
    texts.push(text.trimEnd().replace(/;$/, ''));
  }
  return { sql: texts.join('; ') };
}
