/**
 * What kind of statement a text is, and which collection it reads or writes, found by a light
 * scan of its tokens (the DQL lexer, lenient) rather than a parse: the peer's parser is the
 * authority; the inspector only needs to know where a result's rows live. Pure.
 */
import { tokenize, TokenKind } from '../dql/lexer.ts';
import { QUOTED_WORDS } from './statements.ts';

/** First words of the commands whose rows are no documents of a collection: index statements and plans. */
const COMMANDS = new Set(['CREATE', 'DROP', 'EXPLAIN']);

/**
 * The collection a statement reads or writes (`FROM`, `INTO`, `UPDATE`); undefined when there is
 * none to be found, and for the commands and `system:` collections, whose rows are no stored
 * documents (CREATE INDEX, DROP INDEX, EXPLAIN, `SELECT * FROM system:indexes`).
 */
export function statementCollection(statement: string): string | undefined {
  const tokens = scanWords(statement);
  const first = tokens[0];
  if (first !== undefined && !first.quoted && COMMANDS.has(first.text.toUpperCase())) return undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as ScanToken;
    const word = token.quoted ? '' : token.text.toUpperCase();
    const isLead = word === 'FROM' || word === 'INTO' || (word === 'UPDATE' && i === 0);
    if (!isLead) continue;
    let next = tokens[i + 1];
    const after = tokens[i + 2];
    if (
      next !== undefined &&
      !next.quoted &&
      next.text.toUpperCase() === 'COLLECTION' &&
      after !== undefined &&
      (after.quoted || !QUOTED_WORDS.has(after.text.toUpperCase()))
    ) {
      next = after;
    }
    if (next === undefined || next.punct) return undefined;
    if (!next.quoted && next.text === 'system' && tokens[i + 2]?.text.startsWith(':') === true) return undefined;
    return next.text;
  }
  return undefined;
}

/** The kind of statement by its first word: `select`, `insert`, `update`, `delete`, `evict`, or undefined. */
export function statementKind(statement: string): 'select' | 'insert' | 'update' | 'delete' | 'evict' | undefined {
  const first = scanWords(statement)[0];
  if (first === undefined || first.quoted) return undefined;
  const word = first.text.toLowerCase();
  return word === 'select' || word === 'insert' || word === 'update' || word === 'delete' || word === 'evict' ? word : undefined;
}

interface ScanToken {
  readonly text: string;
  readonly quoted: boolean;
  readonly punct: boolean;
}

/**
 * Names, backticked names and everything else (as punctuation) of a statement, read by the DQL
 * lexer in lenient mode: comments and white space skipped, unfinished text never an error.
 */
function scanWords(text: string): ScanToken[] {
  const tokens: ScanToken[] = [];
  for (const token of tokenize(text, { lenient: true })) {
    if (token.kind === TokenKind.EOF) break;
    const quoted = token.kind === TokenKind.QUOTED_NAME;
    // A name as it reads (backticks removed); anything else as written, so a string is never a word.
    if (quoted || token.kind === TokenKind.NAME) tokens.push({ text: token.value, quoted, punct: false });
    else tokens.push({ text: token.text, quoted: false, punct: true });
  }
  return tokens;
}
