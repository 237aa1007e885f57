/** JSON written as coloured tokens, for the inspector's JSON views. Pure. */

export type JsonTokenKind = 'key' | 'string' | 'number' | 'literal' | 'punct' | 'space';

export interface JsonToken {
  readonly kind: JsonTokenKind;
  readonly text: string;
}

export interface JsonTokenOptions {
  /** Spaces per level; 0 writes one line (with a space after `:` and `,`). */
  readonly indent?: number;
  /** Stops once about this many characters are written, ending with `…`. */
  readonly maxLength?: number;
}

/** The tokens of `value` as `JSON.stringify` would write it (with spacing for one-line mode). */
export function jsonTokens(value: unknown, options: JsonTokenOptions = {}): JsonToken[] {
  const indent = options.indent ?? 2;
  const max = options.maxLength ?? Number.POSITIVE_INFINITY;
  const tokens: JsonToken[] = [];
  let length = 0;
  let cut = false;
  const push = (kind: JsonTokenKind, text: string) => {
    if (cut) return;
    if (length + text.length > max) {
      tokens.push({ kind, text: `${text.slice(0, Math.max(0, max - length))}` }, { kind: 'punct', text: '…' });
      cut = true;
      return;
    }
    length += text.length;
    tokens.push({ kind, text });
  };
  const newline = (depth: number) => {
    if (indent > 0) push('space', `\n${' '.repeat(depth * indent)}`);
  };
  const walk = (node: unknown, depth: number) => {
    if (cut) return;
    if (node === null || typeof node === 'boolean') push('literal', String(node));
    else if (typeof node === 'number') push(Number.isFinite(node) ? 'number' : 'literal', Number.isFinite(node) ? String(node) : 'null');
    else if (typeof node === 'string') push('string', JSON.stringify(node));
    else if (Array.isArray(node)) {
      if (node.length === 0) return push('punct', '[]');
      push('punct', '[');
      node.forEach((item, i) => {
        if (i > 0) push('punct', indent > 0 ? ',' : ', ');
        newline(depth + 1);
        walk(item, depth + 1);
      });
      newline(depth);
      push('punct', ']');
    } else if (typeof node === 'object') {
      const entries = Object.entries(node as Record<string, unknown>).filter(([, v]) => v !== undefined);
      if (entries.length === 0) return push('punct', '{}');
      push('punct', '{');
      entries.forEach(([key, item], i) => {
        if (i > 0) push('punct', indent > 0 ? ',' : ', ');
        newline(depth + 1);
        push('key', JSON.stringify(key));
        push('punct', ': ');
        walk(item, depth + 1);
      });
      newline(depth);
      push('punct', '}');
    } else push('literal', 'null');
  };
  walk(value, 0);
  return tokens;
}
