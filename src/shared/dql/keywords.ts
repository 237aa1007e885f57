/**
 * The words of DQL (`docs/dql.md`), upper-case: one list for the parser, the inspector's console
 * and the statements it writes. Keywords are case-insensitive; compare a word's ASCII upper-case
 * form (the lexer's `Token.keyword`). Pure constants.
 */

/** Every keyword of the dialect, reserved or contextual, in the order the docs introduce them. */
export const DQL_KEYWORDS: readonly string[] = [
  'SELECT',
  'DISTINCT',
  'FROM',
  'COLLECTION',
  'AS',
  'WHERE',
  'GROUP',
  'BY',
  'ORDER',
  'ASC',
  'DESC',
  'LIMIT',
  'OFFSET',
  'INSERT',
  'INTO',
  'DOCUMENTS',
  'VALUES',
  'ON',
  'ID',
  'CONFLICT',
  'FAIL',
  'DO',
  'NOTHING',
  'UPDATE',
  'UPDATE_LOCAL_DIFF',
  'MERGE',
  'SET',
  'UNSET',
  'APPLY',
  'PN_INCREMENT',
  'DELETE',
  'EVICT',
  'AND',
  'OR',
  'NOT',
  'IN',
  'LIKE',
  'ILIKE',
  'BETWEEN',
  'IS',
  'NULL',
  'MISSING',
  'TRUE',
  'FALSE',
  'CREATE',
  'INDEX',
  'IF',
  'EXISTS',
  'DROP',
  'EXPLAIN',
];

/**
 * Keywords that are never a bare field, collection or alias name (backticks make them usable).
 * Every other keyword is contextual: syntax only where the grammar expects it, a name elsewhere.
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'SELECT',
  'FROM',
  'WHERE',
  'AND',
  'OR',
  'NOT',
  'IN',
  'LIKE',
  'ILIKE',
  'BETWEEN',
  'IS',
  'NULL',
  'MISSING',
  'TRUE',
  'FALSE',
  'ORDER',
  'GROUP',
  'BY',
  'LIMIT',
  'OFFSET',
  'AS',
  'DISTINCT',
]);

/** The keywords that are values: `TRUE`, `FALSE`, `NULL` and `MISSING`. */
export const LITERAL_WORDS: ReadonlySet<string> = new Set(['TRUE', 'FALSE', 'NULL', 'MISSING']);

/**
 * The names of the dialect's functions, scalar then aggregate, lower-case as the docs write them
 * (names are case-insensitive). The peer's evaluator implements exactly these
 * (src/peer/dql/functions.ts; a test holds them equal); the console highlights and completes them.
 */
export const DQL_FUNCTION_NAMES: readonly string[] = [
  'coalesce',
  'upper',
  'lower',
  'trim',
  'length',
  'array_length',
  'array_contains',
  'object_length',
  'contains',
  'starts_with',
  'ends_with',
  'concat',
  'abs',
  'floor',
  'ceil',
  'round',
  'type',
  'is_boolean',
  'is_number',
  'is_string',
  'is_array',
  'is_object',
  'count',
  'sum',
  'min',
  'max',
  'avg',
];
