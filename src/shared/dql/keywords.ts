/**
 * The words of DQL (`docs/dql.md`), upper-case: one list for the parser, the inspector's console
 * and the statements it writes. Keywords are case-insensitive; compare a word's ASCII upper-case
 * form (the lexer's `Token.keyword`). Pure constants.
 */

/** Every keyword of the dialect, reserved or contextual, in the order the docs introduce them. */
export const DQL_KEYWORDS: readonly string[] = [
  'SELECT', 'DISTINCT', 'FROM', 'COLLECTION', 'AS', 'WHERE', 'GROUP', 'BY', 'ORDER', 'ASC', 'DESC', 'LIMIT', 'OFFSET',
  'INSERT', 'INTO', 'DOCUMENTS', 'VALUES', 'ON', 'ID', 'CONFLICT', 'FAIL', 'DO', 'NOTHING', 'UPDATE', 'UPDATE_LOCAL_DIFF', 'MERGE',
  'SET', 'UNSET', 'APPLY', 'PN_INCREMENT', 'DELETE', 'EVICT',
  'AND', 'OR', 'NOT', 'IN', 'LIKE', 'ILIKE', 'BETWEEN', 'IS', 'NULL', 'MISSING', 'TRUE', 'FALSE',
];

/**
 * Keywords that are never a bare field, collection or alias name (backticks make them usable).
 * Every other keyword is contextual: syntax only where the grammar expects it, a name elsewhere.
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'SELECT', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'IN', 'LIKE', 'ILIKE', 'BETWEEN', 'IS', 'NULL',
  'MISSING', 'TRUE', 'FALSE', 'ORDER', 'GROUP', 'BY', 'LIMIT', 'OFFSET', 'AS', 'DISTINCT',
]);

/** The keywords that are values: `TRUE`, `FALSE`, `NULL` and `MISSING`. */
export const LITERAL_WORDS: ReadonlySet<string> = new Set(['TRUE', 'FALSE', 'NULL', 'MISSING']);
