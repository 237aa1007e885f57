/**
 * The older query syntax of `POST /api/v4/store/write` (`createdAt <= $args.TTL && evictionFlag
 * == false`), translated to a DQL condition. Every value (string and number literals, `$args`
 * values) is bound as a named parameter, never written into the DQL text; paths are written as
 * backtick-quoted segments. So nothing in a query or its arguments can change the statement's shape.
 *
 * Grammar (one rule per parse method below):
 *   Or         : And ("||" And)*
 *   And        : Not ("&&" Not)*
 *   Not        : "!" Not | Comparison
 *   Comparison : Operand (("==" | "!=" | "<" | "<=" | ">" | ">=") Operand)?
 *   Operand    : "(" Or ")" | String | Number | true | false | null | Arg | Path
 *   Arg        : "$args" Segment+
 *   Path       : Name Segment*          Segment : "." Name | "[" (Integer | String) "]"
 */
import type { JsonValue } from '../shared/json.ts';
import { InvalidArgumentsError, ParseError, type SourcePosition } from '../peer/host.ts';
import { Lexer, describe, syntaxError, type Token } from './legacy-query-lexer.ts';

/** Queries longer than this are refused unread. */
export const MAX_QUERY_LENGTH = 100_000;
/** Parentheses and `!` nest at most this deep. */
export const MAX_QUERY_DEPTH = 100;
/**
 * A query has at most this many `&&`, `||` and `!`. A chain of one operator becomes one flat DQL
 * group `(a AND b AND c)`, which the DQL parser nests to the left: with comparisons and `== null`
 * tests at most 3 levels high, the translation stays under its MAX_EXPRESSION_HEIGHT of 1000.
 */
export const MAX_QUERY_OPERATORS = 990;

export type PathSegment = string | number;
type Operand =
  | { readonly kind: 'path'; readonly segments: readonly PathSegment[] }
  | { readonly kind: 'literal'; readonly value: string | number | boolean | null }
  | { readonly kind: 'arg'; readonly segments: readonly PathSegment[]; readonly pos: SourcePosition };
type Node =
  | Operand
  | { readonly kind: 'and' | 'or'; readonly operands: readonly Node[] }
  | { readonly kind: 'not'; readonly operand: Node }
  | { readonly kind: 'cmp'; readonly op: string; readonly left: Node; readonly right: Node };

const LITERAL_WORDS = new Set(['true', 'false', 'null']);
const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

class Parser {
  readonly #lexer: Lexer;
  token: Token;
  #depth = 0;
  #operators = 0;

  constructor(text: string) {
    this.#lexer = new Lexer(text);
    this.token = this.#lexer.next();
  }

  atEnd(): boolean {
    return this.token.kind === 'eof';
  }

  #advance(): Token {
    const t = this.token;
    this.token = this.#lexer.next();
    return t;
  }

  #skip(punct: string): boolean {
    if (this.token.kind !== 'punct' || this.token.value !== punct) return false;
    this.#advance();
    return true;
  }

  /** Skips `&&`, `||` or `!`, counting it against MAX_QUERY_OPERATORS. */
  #skipOperator(punct: string): boolean {
    const pos = this.token.pos;
    if (!this.#skip(punct)) return false;
    if (++this.#operators > MAX_QUERY_OPERATORS)
      throw syntaxError(pos, `at most ${MAX_QUERY_OPERATORS} operators (&&, || and !) in a query`, `'${punct}', one more`);
    return true;
  }

  #expect(punct: string): void {
    if (!this.#skip(punct)) throw syntaxError(this.token.pos, `'${punct}'`, describe(this.token));
  }

  #nest<T>(fn: () => T): T {
    if (++this.#depth > MAX_QUERY_DEPTH) throw syntaxError(this.token.pos, `at most ${MAX_QUERY_DEPTH} nested parentheses or '!'`, 'more');
    try {
      return fn();
    } finally {
      this.#depth--;
    }
  }

  // Query : Or <end of query>
  parseQuery(): Node {
    if (this.token.kind === 'eof') throw syntaxError(this.token.pos, 'a condition', 'end of query');
    const node = this.parseOr();
    if (!this.atEnd()) throw syntaxError(this.token.pos, "'&&', '||' or end of query", describe(this.token));
    return node;
  }

  // Or : And ("||" And)*   (a chain is one flat node)
  parseOr(): Node {
    const operands = [this.parseAnd()];
    while (this.#skipOperator('||')) operands.push(this.parseAnd());
    return operands.length === 1 ? (operands[0] as Node) : { kind: 'or', operands };
  }

  // And : Not ("&&" Not)*   (a chain is one flat node)
  parseAnd(): Node {
    const operands = [this.parseNot()];
    while (this.#skipOperator('&&')) operands.push(this.parseNot());
    return operands.length === 1 ? (operands[0] as Node) : { kind: 'and', operands };
  }

  // Not : "!" Not | Comparison
  parseNot(): Node {
    if (this.#skipOperator('!')) return this.#nest(() => ({ kind: 'not', operand: this.parseNot() }));
    return this.parseComparison();
  }

  // Comparison : Operand (op Operand)?
  parseComparison(): Node {
    const left = this.parseOperand();
    if (this.token.kind === 'punct' && COMPARISONS.has(this.token.value)) {
      const op = this.#advance().value;
      return { kind: 'cmp', op, left, right: this.parseOperand() };
    }
    return left;
  }

  // Operand : "(" Or ")" | String | Number | true | false | null | Arg | Path
  parseOperand(): Node {
    const t = this.token;
    if (this.#skip('(')) {
      const inner = this.#nest(() => this.parseOr());
      this.#expect(')');
      return inner;
    }
    if (t.kind === 'string' || t.kind === 'number' || (t.kind === 'name' && LITERAL_WORDS.has(t.value))) {
      this.#advance();
      if (t.kind === 'string') return { kind: 'literal', value: t.value };
      if (t.kind === 'name') return { kind: 'literal', value: t.value === 'null' ? null : t.value === 'true' };
      const n = Number(t.value);
      if (!Number.isFinite(n)) throw syntaxError(t.pos, 'a finite number', t.text);
      return { kind: 'literal', value: n };
    }
    if (t.kind === 'name') {
      if (t.value === '$args') {
        this.#advance();
        const segments = this.parseSegments();
        if (segments.length === 0) throw syntaxError(this.token.pos, "'.' and an argument name after $args", describe(this.token));
        return { kind: 'arg', segments, pos: t.pos };
      }
      if (t.value.startsWith('$')) throw syntaxError(t.pos, '$args.NAME (the only variable)', t.text);
      return { kind: 'path', segments: this.parsePath() };
    }
    throw syntaxError(t.pos, 'a path, a value, $args.NAME or (', describe(t));
  }

  // Path : Name Segment*
  parsePath(): PathSegment[] {
    const t = this.token;
    if (t.kind !== 'name' || t.value.startsWith('$')) throw syntaxError(t.pos, 'a field name', describe(t));
    this.#advance();
    return [t.value, ...this.parseSegments()];
  }

  // Segment : "." Name | "[" (Integer | String) "]"
  parseSegments(): PathSegment[] {
    const segments: PathSegment[] = [];
    for (;;) {
      if (this.#skip('.')) {
        const t = this.token;
        if (t.kind !== 'name') throw syntaxError(t.pos, 'a field name after .', describe(t));
        segments.push(this.#advance().value);
      } else if (this.#skip('[')) {
        const t = this.#advance();
        if (t.kind === 'string') segments.push(t.value);
        else if (t.kind === 'number' && /^(0|[1-9]\d*)$/.test(t.text) && Number(t.text) <= Number.MAX_SAFE_INTEGER) segments.push(Number(t.text));
        else throw syntaxError(t.pos, 'an array index or a quoted field name', describe(t));
        this.#expect(']');
      } else return segments;
    }
  }
}

/** A path as DQL text: backtick-quoted names (doubled backticks inside), `[n]` indexes. */
export function dqlPath(segments: readonly PathSegment[]): string {
  return segments.map((s, i) => (typeof s === 'number' ? `[${s}]` : `${i === 0 ? '' : '.'}\`${s.replaceAll('`', '``')}\``)).join('');
}

/** Parses a path as commands name it (`evictionFlag`, `address.city`, `items[0].qty`). */
export function parseLegacyPath(text: string): PathSegment[] {
  if (text.length > MAX_QUERY_LENGTH) throw new ParseError(`a path is at most ${MAX_QUERY_LENGTH} characters`);
  const parser = new Parser(text);
  const path = parser.parsePath();
  if (!parser.atEnd()) throw syntaxError(parser.token.pos, "'.', '[' or end of path", describe(parser.token));
  return path;
}

export interface TranslatedQuery {
  /** A DQL condition; every value in it is a `:param`. */
  readonly where: string;
  /** The values of its parameters. */
  readonly params: Record<string, JsonValue>;
}

function lookUp(args: Readonly<Record<string, JsonValue>>, segments: readonly PathSegment[], pos: SourcePosition): JsonValue {
  let value: JsonValue | undefined = args as JsonValue;
  const shown = `$args${segments.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('')}`;
  for (const segment of segments) {
    if (typeof segment === 'number') value = Array.isArray(value) ? value[segment] : undefined;
    else value = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, segment) ? value[segment] : undefined;
    if (value === undefined) break;
  }
  if (value === undefined) {
    throw new InvalidArgumentsError(`${shown} at line ${pos.line} column ${pos.column} has no value in args`, { line: pos.line, column: pos.column });
  }
  return value;
}

/**
 * Translates a query of the older syntax to a DQL condition. `prefix` names its parameters
 * (`prefix0`, `prefix1`, …) so that they cannot clash with the caller's own.
 *
 * @throws ParseError (`query/invalid`) naming the line and column; InvalidArgumentsError for an `$args` name not given.
 */
export function translateLegacyQuery(query: string, args: Readonly<Record<string, JsonValue>> = {}, prefix = 'q'): TranslatedQuery {
  if (typeof query !== 'string') throw new ParseError('the query must be a string');
  if (query.length > MAX_QUERY_LENGTH) throw new ParseError(`a query is at most ${MAX_QUERY_LENGTH} characters; this one has ${query.length}`);
  const ast = new Parser(query).parseQuery();
  const params: Record<string, JsonValue> = {};
  let n = 0;
  const bind = (value: JsonValue): string => {
    const name = `${prefix}${n++}`;
    params[name] = value;
    return `:${name}`;
  };
  // The value an operand stands for when it is a constant (a literal or an argument), else undefined.
  const constant = (node: Node): { value: JsonValue } | undefined =>
    node.kind === 'literal' ? { value: node.value } : node.kind === 'arg' ? { value: lookUp(args, node.segments, node.pos) } : undefined;
  const emit = (node: Node): string => {
    switch (node.kind) {
      case 'path':
        return dqlPath(node.segments);
      case 'literal':
      case 'arg': {
        const value = (constant(node) as { value: JsonValue }).value;
        return value === null ? 'null' : typeof value === 'boolean' ? String(value) : bind(value);
      }
      case 'and':
      case 'or':
        // Flat: `(a AND b AND c)`; recursion goes only as deep as the query's parentheses.
        return `(${node.operands.map(emit).join(node.kind === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `(NOT ${emit(node.operand)})`;
      case 'cmp': {
        // `x == null` means null or absent, as the older API meant; `x != null` its opposite.
        const [l, r] = [constant(node.left), constant(node.right)];
        const other = l?.value === null ? node.right : r?.value === null ? node.left : undefined;
        if (other !== undefined && (node.op === '==' || node.op === '!=')) {
          if (constant(other)?.value === null) return node.op === '==' ? 'true' : 'false';
          const x = emit(other);
          return node.op === '==' ? `(${x} IS NULL OR ${x} IS MISSING)` : `(${x} IS NOT NULL AND ${x} IS NOT MISSING)`;
        }
        return `(${emit(node.left)} ${node.op === '==' ? '=' : node.op} ${emit(node.right)})`;
      }
    }
  };
  return { where: emit(ast), params };
}
