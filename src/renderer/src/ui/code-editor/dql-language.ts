/**
 * DQL for CodeMirror: lang-sql's tokenizer given DQL's words (`SQLDialect.define`), `:name`
 * parameters, backtick names, strings in either quote with backslash escapes, `--` and block comments.
 */
import { autocompletion, type Completion, type CompletionSource } from '@codemirror/autocomplete';
import { keywordCompletionSource, schemaCompletionSource, SQLDialect } from '@codemirror/lang-sql';
import type { Extension } from '@codemirror/state';
import { DQL_KEYWORDS } from '../../../../shared/dql/keywords.ts';
import { DQL_FUNCTIONS } from '../dql-words.ts';

export const DQL_DIALECT = SQLDialect.define({
  // true, false and null are lang-sql's own literal words; MISSING joins the keywords.
  keywords: DQL_KEYWORDS.filter((word) => !['TRUE', 'FALSE', 'NULL'].includes(word))
    .map((word) => word.toLowerCase())
    .join(' '),
  builtin: DQL_FUNCTIONS.join(' '),
  types: '',
  backslashEscapes: true,
  doubleQuotedStrings: true,
  identifierQuotes: '`',
  specialVar: ':',
  operatorChars: '*+-%<>!=|/',
  caseInsensitiveIdentifiers: true,
});

/**
 * DQL highlighting and completion: keywords (upper-case), functions, the peer's collections, and
 * the fields seen in each collection (`fields`): after `collection.`, and without a prefix for
 * the statement's own collection (`current`).
 */
export function dqlLanguage(collections: readonly string[], fields: Readonly<Record<string, readonly string[]>> = {}, current?: string): Extension {
  const schema: Record<string, Completion[]> = {};
  for (const name of collections) schema[name] = (fields[name] ?? []).map((field) => ({ label: field, type: 'property', detail: `field of ${name}` }));
  const sources: CompletionSource[] = [
    keywordCompletionSource(DQL_DIALECT, true),
    schemaCompletionSource({
      dialect: DQL_DIALECT,
      schema,
      ...(current !== undefined && Object.hasOwn(schema, current) ? { defaultTable: current } : {}),
    }),
  ];
  return [DQL_DIALECT.extension, autocompletion({ override: sources, icons: false, activateOnTyping: true })];
}
