/** The words of DQL (`docs/dql.md`), for highlighting and completion. Pure constants. */

/** Every keyword of the dialect, reserved or contextual, upper-case. */
export const DQL_KEYWORDS: readonly string[] = [
  'SELECT', 'DISTINCT', 'FROM', 'COLLECTION', 'AS', 'WHERE', 'GROUP', 'BY', 'ORDER', 'ASC', 'DESC', 'LIMIT', 'OFFSET',
  'INSERT', 'INTO', 'DOCUMENTS', 'VALUES', 'ON', 'ID', 'CONFLICT', 'FAIL', 'DO', 'NOTHING', 'UPDATE', 'UPDATE_LOCAL_DIFF', 'MERGE',
  'SET', 'UNSET', 'APPLY', 'PN_INCREMENT', 'DELETE', 'EVICT',
  'AND', 'OR', 'NOT', 'IN', 'LIKE', 'ILIKE', 'BETWEEN', 'IS', 'NULL', 'MISSING', 'TRUE', 'FALSE',
];

/** Scalar functions and aggregates, lower-case as the docs write them (names are case-insensitive). */
export const DQL_FUNCTIONS: readonly string[] = [
  'coalesce', 'upper', 'lower', 'trim', 'length', 'array_length', 'array_contains', 'object_length', 'contains', 'starts_with',
  'ends_with', 'concat', 'abs', 'floor', 'ceil', 'round', 'type', 'is_boolean', 'is_number', 'is_string', 'is_array', 'is_object',
  'count', 'sum', 'min', 'max', 'avg',
];

const KEYWORDS = new Set(DQL_KEYWORDS);
const LITERALS = new Set(['TRUE', 'FALSE', 'NULL', 'MISSING']);

export type DqlTokenKind = 'keyword' | 'literal' | 'param' | 'string' | 'number' | 'name' | 'comment' | 'punct' | 'space';

export interface DqlToken {
  readonly kind: DqlTokenKind;
  readonly text: string;
}

/**
 * A statement cut into tokens for a read-only view (a confirmation, the history list): keywords,
 * literals (`true`, `false`, `null`, `missing`), `:params`, strings, numbers, names (bare or in backticks), comments. Never throws; an
 * unterminated string or comment runs to the end.
 */
export function dqlTokens(text: string): DqlToken[] {
  const tokens: DqlToken[] = [];
  let i = 0;
  const take = (kind: DqlTokenKind, end: number) => {
    tokens.push({ kind, text: text.slice(i, end) });
    i = end;
  };
  while (i < text.length) {
    const char = text[i] as string;
    const rest = text.slice(i);
    let match: RegExpExecArray | null;
    if ((match = /^\s+/.exec(rest)) !== null) take('space', i + match[0].length);
    else if (rest.startsWith('--')) {
      const end = rest.search(/[\r\n]/);
      take('comment', end < 0 ? text.length : i + end);
    } else if (rest.startsWith('/*')) {
      const end = text.indexOf('*/', i + 2);
      take('comment', end < 0 ? text.length : end + 2);
    } else if (char === "'" || char === '"' || char === '`') {
      let j = i + 1;
      while (j < text.length) {
        if (text[j] === '\\' && char !== '`') j += 2;
        else if (text[j] === char) {
          if (text[j + 1] === char) j += 2;
          else break;
        } else j++;
      }
      take(char === '`' ? 'name' : 'string', Math.min(text.length, j + 1));
    } else if ((match = /^:[A-Za-z_$\p{L}][\w$\p{L}\p{M}\p{Nd}]*/u.exec(rest)) !== null) take('param', i + match[0].length);
    else if ((match = /^\d+(\.\d+)?([eE][+-]?\d+)?/.exec(rest)) !== null) take('number', i + match[0].length);
    else if ((match = /^[A-Za-z_$\p{L}][\w$\p{L}\p{M}\p{Nd}]*/u.exec(rest)) !== null) {
      const previous = tokens.at(-1);
      const afterDot = previous?.kind === 'punct' && previous.text.endsWith('.');
      const word = match[0].toUpperCase();
      take(afterDot ? 'name' : LITERALS.has(word) ? 'literal' : KEYWORDS.has(word) ? 'keyword' : 'name', i + match[0].length);
    } else take('punct', i + 1);
  }
  return tokens;
}
