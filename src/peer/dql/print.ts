/**
 * Prints an expression back as DQL text: for subscriptions shown in the spec's shape (a query's
 * `expr`) and for the statements the inspector shows. Parsing the output gives the same tree.
 */
import type { Expr, OrderTerm, PathSegment } from './ast.ts';
import { RESERVED_WORDS } from './parse-expression.ts';

const IDENTIFIER = /^[A-Za-z_$\p{L}][A-Za-z0-9_$\p{L}\p{N}]*$/u;

function name(n: string): string {
  return IDENTIFIER.test(n) && !RESERVED_WORDS.has(n.toUpperCase()) ? n : `\`${n.replaceAll('`', '``')}\``;
}

function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "''").replaceAll('\n', '\\n').replaceAll('\r', '\\r')}'`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${literal(k)}: ${literal(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

export function printPath(segments: readonly PathSegment[]): string {
  return segments.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? name(s) : `.${name(s)}`)).join('');
}

/**
 * The DQL text of an expression, fully parenthesised where precedence could matter. With
 * `params`, parameters print as the values bound to them.
 */
export function printExpr(expr: Expr, params?: Readonly<Record<string, unknown>>): string {
  const p = (e: Expr): string => printExpr(e, params);
  switch (expr.kind) {
    case 'literal':
      return literal(expr.value);
    case 'param':
      return params !== undefined && Object.hasOwn(params, expr.name) ? literal(params[expr.name]) : `:${expr.name}`;
    case 'path':
      return printPath(expr.segments);
    case 'array':
      return `[${expr.items.map(p).join(', ')}]`;
    case 'object':
      return `{${expr.entries.map((e) => `${literal(e.key)}: ${p(e.value)}`).join(', ')}}`;
    case 'unary':
      return expr.op === 'NOT' ? `NOT (${p(expr.operand)})` : `${expr.op}(${p(expr.operand)})`;
    case 'binary':
      return `(${p(expr.left)} ${expr.op} ${p(expr.right)})`;
    case 'in':
      return `(${p(expr.needle)} ${expr.negated ? 'NOT IN' : 'IN'} ${p(expr.haystack)})`;
    case 'like':
      return `(${p(expr.value)} ${expr.negated ? 'NOT ' : ''}${expr.caseInsensitive ? 'ILIKE' : 'LIKE'} ${p(expr.pattern)})`;
    case 'between':
      return `(${p(expr.value)} ${expr.negated ? 'NOT ' : ''}BETWEEN ${p(expr.low)} AND ${p(expr.high)})`;
    case 'is':
      return `(${p(expr.value)} IS ${expr.negated ? 'NOT ' : ''}${expr.test})`;
    case 'call':
      return `${expr.name}(${expr.star ? '*' : `${expr.distinct ? 'DISTINCT ' : ''}${expr.args.map(p).join(', ')}`})`;
  }
}

export function printOrderBy(terms: readonly OrderTerm[], params?: Readonly<Record<string, unknown>>): string[] {
  return terms.map((t) => `${printExpr(t.expr, params)} ${t.direction}`);
}
