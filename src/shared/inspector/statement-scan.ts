/**
 * What kind of statement a text is, and which collection it reads or writes, found by a light
 * scan (comments, strings and backticks skipped) rather than a parse: the peer's parser is the
 * authority; the inspector only needs to know where a result's rows live. Pure.
 */
import { QUOTED_WORDS } from './statements.ts';

/** The collection a statement reads or writes (`FROM`, `INTO`, `UPDATE`); undefined when there is none to be found. */
export function statementCollection(statement: string): string | undefined {
  const tokens = scanWords(statement);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as ScanToken;
    const word = token.quoted ? '' : token.text.toUpperCase();
    const isLead = word === 'FROM' || word === 'INTO' || (word === 'UPDATE' && i === 0);
    if (!isLead) continue;
    let next = tokens[i + 1];
    const after = tokens[i + 2];
    if (next !== undefined && !next.quoted && next.text.toUpperCase() === 'COLLECTION' && after !== undefined && (after.quoted || !QUOTED_WORDS.has(after.text.toUpperCase()))) {
      next = after;
    }
    if (next === undefined || next.punct) return undefined;
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

/** Words, backticked names and punctuation of a statement; strings and comments skipped. */
function scanWords(text: string): ScanToken[] {
  const tokens: ScanToken[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    if (/\s/.test(char)) i++;
    else if (text.startsWith('--', i)) {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (char === "'" || char === '"') {
      i++;
      while (i < text.length) {
        if (text[i] === '\\') i += 2;
        else if (text[i] === char) {
          if (text[i + 1] === char) i += 2;
          else break;
        } else i++;
      }
      i++;
      tokens.push({ text: '', quoted: false, punct: true });
    } else if (char === '`') {
      let name = '';
      i++;
      while (i < text.length) {
        if (text[i] === '`') {
          if (text[i + 1] === '`') {
            name += '`';
            i += 2;
          } else break;
        } else name += text[i++];
      }
      i++;
      tokens.push({ text: name, quoted: true, punct: false });
    } else if (/[A-Za-z_$\p{L}]/u.test(char)) {
      const match = /^[A-Za-z0-9_$\p{L}\p{M}\p{Nd}]+/u.exec(text.slice(i, i + 256)) as RegExpExecArray;
      tokens.push({ text: match[0], quoted: false, punct: false });
      i += match[0].length;
    } else {
      tokens.push({ text: char, quoted: false, punct: true });
      i++;
    }
  }
  return tokens;
}
