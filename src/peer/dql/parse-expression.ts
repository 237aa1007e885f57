/**
 * The expression half of the DQL parser: one `parseX()` method per grammar rule, the rule in the
 * comment above it, lowest precedence first. `StatementParser` (parser.ts) extends this class.
 */
import { RESERVED_WORDS } from '../../shared/dql/keywords.ts';
import type { ParseError } from '../errors.ts';
import type { ArrayExpr, BinaryOp, ComparisonOp, Expr, LiteralExpr, PathExpr, PathSegment } from './ast.ts';
import { describeToken, Lexer, syntaxError, TokenKind } from './lexer.ts';
import type { Token } from './lexer.ts';

/** Parentheses, arrays, objects, calls and unary operators nest at most this deep. */
export const MAX_NESTING_DEPTH = 200;

/**
 * The expression tree is at most this high, so that a long operator chain (`a OR b OR …`, which
 * nests to the left) cannot overflow the stack of whoever walks the tree recursively.
 */
export const MAX_EXPRESSION_HEIGHT = 1000;

/** Words that are never a bare field, collection or alias name (backticks make them usable). */
export { RESERVED_WORDS };

const COMPARISONS: Readonly<Record<string, ComparisonOp>> = {
  '=': '=',
  '==': '=',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};
const PREDICATE_WORDS = new Set(['IN', 'LIKE', 'ILIKE', 'BETWEEN', 'IS', 'NOT']);

/** Parses expressions over a `Lexer`, bounding nesting depth and tree height; the base of the statement parser. */
export class ExpressionParser {
  protected readonly lexer: Lexer;
  #depth = 0;
  /** Height of every composite node built so far; leaves are absent and count 1. */
  readonly #heights = new WeakMap<Expr, number>();

  constructor(source: string) {
    this.lexer = new Lexer(source);
  }

  protected get token(): Token {
    return this.lexer.token;
  }

  protected unexpected(expected: string, token: Token = this.lexer.token): ParseError {
    return syntaxError(token.pos, expected, describeToken(token));
  }

  protected isKeyword(word: string): boolean {
    return this.token.kind === TokenKind.NAME && this.token.keyword === word;
  }

  protected isPunct(text: string): boolean {
    return this.token.kind === TokenKind.PUNCT && this.token.value === text;
  }

  /** A token that can be a name here: a non-reserved identifier or a backtick-quoted one. */
  protected isName(): boolean {
    const { kind, keyword } = this.token;
    return kind === TokenKind.QUOTED_NAME || (kind === TokenKind.NAME && !RESERVED_WORDS.has(keyword));
  }

  protected skipKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.lexer.advance();
    return true;
  }

  protected expectKeyword(word: string): Token {
    if (!this.isKeyword(word)) throw this.unexpected(word);
    return this.lexer.advance();
  }

  protected skipPunct(text: string): boolean {
    if (!this.isPunct(text)) return false;
    this.lexer.advance();
    return true;
  }

  protected expectPunct(text: string): Token {
    if (!this.isPunct(text)) throw this.unexpected(text);
    return this.lexer.advance();
  }

  // Name : Identifier (not reserved) | QuotedIdentifier
  protected parseName(what: string): string {
    if (!this.isName()) throw this.unexpected(what);
    return this.lexer.advance().value;
  }

  /** Records a composite node's height and enforces `MAX_EXPRESSION_HEIGHT`, blaming `at`. */
  #node<T extends Expr>(node: T, at: Token, children: readonly Expr[]): T {
    let height = 1;
    for (const child of children) height = Math.max(height, (this.#heights.get(child) ?? 1) + 1);
    if (height > MAX_EXPRESSION_HEIGHT) throw this.unexpected(`an expression at most ${MAX_EXPRESSION_HEIGHT} operators deep`, at);
    this.#heights.set(node, height);
    return node;
  }

  /** Enters a nesting construct opened by `at`, enforcing `MAX_NESTING_DEPTH`. */
  #enter(at: Token): void {
    this.#depth += 1;
    if (this.#depth > MAX_NESTING_DEPTH) throw this.unexpected(`at most ${MAX_NESTING_DEPTH} levels of nesting`, at);
  }

  #leave(): void {
    this.#depth -= 1;
  }

  #binary(op: BinaryOp, left: Expr, right: Expr, at: Token): Expr {
    return this.#node({ kind: 'binary', op, left, right, pos: left.pos }, at, [left, right]);
  }

  // Expression : OrExpression
  parseExpression(): Expr {
    return this.parseOr();
  }

  // OrExpression : AndExpression (OR AndExpression)*
  protected parseOr(): Expr {
    return this.#chain(['OR'], () => this.parseAnd());
  }

  // AndExpression : NotExpression (AND NotExpression)*
  protected parseAnd(): Expr {
    return this.#chain(['AND'], () => this.parseNot());
  }

  // NotExpression : NOT NotExpression | Comparison
  protected parseNot(): Expr {
    if (!this.isKeyword('NOT')) return this.parseComparison();
    const op = this.lexer.advance();
    this.#enter(op);
    const operand = this.parseNot();
    this.#leave();
    return this.#node({ kind: 'unary', op: 'NOT', operand, pos: op.pos }, op, [operand]);
  }

  // Comparison : Concat ( ComparisonOp Concat | NOT? IN InList | NOT? (LIKE | ILIKE) Concat
  //                     | NOT? BETWEEN Concat AND Concat | IS NOT? (NULL | MISSING) )?
  // ComparisonOp : "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="
  protected parseComparison(): Expr {
    const value = this.parseConcat();
    const result = this.#parsePredicate(value);
    if (result !== value && (this.#comparisonOp() !== undefined || PREDICATE_WORDS.has(this.token.keyword))) {
      throw this.unexpected('a single comparison (use parentheses to chain comparisons)');
    }
    return result;
  }

  #comparisonOp(): ComparisonOp | undefined {
    return this.token.kind === TokenKind.PUNCT ? COMPARISONS[this.token.value] : undefined;
  }

  #parsePredicate(value: Expr): Expr {
    const at = this.token;
    const op = this.#comparisonOp();
    if (op !== undefined) {
      this.lexer.advance();
      return this.#binary(op, value, this.parseConcat(), at);
    }
    if (this.skipKeyword('IS')) {
      const negated = this.skipKeyword('NOT');
      const test = this.isKeyword('NULL') ? 'NULL' : this.isKeyword('MISSING') ? 'MISSING' : undefined;
      if (test === undefined) throw this.unexpected('NULL or MISSING');
      this.lexer.advance();
      return this.#node({ kind: 'is', negated, test, value, pos: value.pos }, at, [value]);
    }
    const negated = this.skipKeyword('NOT');
    if (this.skipKeyword('IN')) {
      const haystack = this.parseInList();
      return this.#node({ kind: 'in', negated, needle: value, haystack, pos: value.pos }, at, [value, haystack]);
    }
    if (this.isKeyword('LIKE') || this.isKeyword('ILIKE')) {
      const caseInsensitive = this.lexer.advance().keyword === 'ILIKE';
      const pattern = this.parseConcat();
      return this.#node({ kind: 'like', negated, caseInsensitive, value, pattern, pos: value.pos }, at, [value, pattern]);
    }
    if (this.skipKeyword('BETWEEN')) {
      const low = this.parseConcat();
      this.expectKeyword('AND');
      const high = this.parseConcat();
      return this.#node({ kind: 'between', negated, value, low, high, pos: value.pos }, at, [value, low, high]);
    }
    if (negated) throw this.unexpected('IN, LIKE, ILIKE or BETWEEN');
    return value;
  }

  // InList : "(" Expression ("," Expression)* ")" | Concat
  // A parenthesised list after IN is always a list, even of one item: `x IN (a)` means `x = a`.
  protected parseInList(): Expr {
    if (!this.isPunct('(')) return this.parseConcat();
    const open = this.lexer.advance();
    this.#enter(open);
    const items: Expr[] = [];
    do items.push(this.parseExpression());
    while (this.#continueList(')'));
    this.#leave();
    return this.#node({ kind: 'array', items, pos: open.pos }, open, items);
  }

  /** After a list item: consumes `,` (more items follow) or the closing punctuation (done). */
  #continueList(close: string): boolean {
    if (this.skipPunct(',')) return true;
    if (this.skipPunct(close)) return false;
    throw this.unexpected(`, or ${close}`);
  }

  // Concat : Additive ("||" Additive)*
  protected parseConcat(): Expr {
    return this.#chain(['||'], () => this.parseAdditive());
  }

  // Additive : Multiplicative (("+" | "-") Multiplicative)*
  protected parseAdditive(): Expr {
    return this.#chain(['+', '-'], () => this.parseMultiplicative());
  }

  // Multiplicative : Unary (("*" | "/" | "%") Unary)*
  protected parseMultiplicative(): Expr {
    return this.#chain(['*', '/', '%'], () => this.parseUnary());
  }

  /** A left-associative chain of `operand (op operand)*` for the operators in `ops`. */
  #chain(ops: readonly BinaryOp[], operand: () => Expr): Expr {
    let left = operand();
    for (;;) {
      const { kind, keyword, value } = this.token;
      const op = ops.find((o) => o === (kind === TokenKind.NAME ? keyword : kind === TokenKind.PUNCT ? value : ''));
      if (op === undefined) return left;
      const at = this.lexer.advance();
      left = this.#binary(op, left, operand(), at);
    }
  }

  // Unary : ("-" | "+") Unary | Primary
  // `-` directly before a number literal folds into a negative literal.
  protected parseUnary(): Expr {
    if (!this.isPunct('-') && !this.isPunct('+')) return this.parsePrimary();
    const op = this.lexer.advance();
    if (op.value === '-' && this.token.kind === TokenKind.NUMBER) {
      const literal = this.#number(this.lexer.advance());
      return { kind: 'literal', value: -literal.value, pos: op.pos };
    }
    this.#enter(op);
    const operand = this.parseUnary();
    this.#leave();
    return this.#node({ kind: 'unary', op: op.value === '-' ? '-' : '+', operand, pos: op.pos }, op, [operand]);
  }

  #number(token: Token): LiteralExpr & { value: number } {
    const value = Number(token.text);
    if (!Number.isFinite(value)) throw this.unexpected('a finite number', token);
    return { kind: 'literal', value, pos: token.pos };
  }

  // Primary : Number | String | TRUE | FALSE | NULL | Param | Path | Call | Array | Object | "(" Expression ")"
  protected parsePrimary(): Expr {
    const token = this.token;
    switch (token.kind) {
      case TokenKind.NUMBER:
        return this.#number(this.lexer.advance());
      case TokenKind.STRING:
        this.lexer.advance();
        return { kind: 'literal', value: token.value, pos: token.pos };
      case TokenKind.PARAM:
        this.lexer.advance();
        return { kind: 'param', name: token.value, pos: token.pos };
      case TokenKind.QUOTED_NAME:
        return this.parsePath();
      case TokenKind.NAME: {
        const literal = token.keyword === 'TRUE' ? true : token.keyword === 'FALSE' ? false : token.keyword === 'NULL' ? null : undefined;
        if (literal !== undefined) {
          this.lexer.advance();
          return { kind: 'literal', value: literal, pos: token.pos };
        }
        if (RESERVED_WORDS.has(token.keyword)) break;
        if (this.lexer.peek().kind === TokenKind.PUNCT && this.lexer.peek().value === '(') return this.parseCall();
        return this.parsePath();
      }
      case TokenKind.PUNCT:
        if (token.value === '(') return this.parseParenthesised();
        if (token.value === '[') return this.parseArray();
        if (token.value === '{') return this.parseObject();
        break;
    }
    throw this.unexpected('an expression');
  }

  // Parenthesised : "(" Expression ")"
  protected parseParenthesised(): Expr {
    const open = this.expectPunct('(');
    this.#enter(open);
    const inner = this.parseExpression();
    this.expectPunct(')');
    this.#leave();
    return inner;
  }

  // Call : Identifier "(" ( "*" | DISTINCT? Expression ("," Expression)* )? ")"
  protected parseCall(): Expr {
    const name = this.lexer.advance();
    const open = this.expectPunct('(');
    this.#enter(open);
    let star = false;
    let distinct = false;
    const args: Expr[] = [];
    if (this.isPunct('*')) {
      this.lexer.advance();
      star = true;
      this.expectPunct(')');
    } else if (!this.skipPunct(')')) {
      distinct = this.skipKeyword('DISTINCT');
      do args.push(this.parseExpression());
      while (this.#continueList(')'));
    }
    this.#leave();
    const call = { kind: 'call', name: name.value.toLowerCase(), args, star, distinct, pos: name.pos } as const;
    return this.#node(call, open, args);
  }

  // Array : "[" (Expression ("," Expression)*)? "]"
  protected parseArray(): ArrayExpr {
    const open = this.expectPunct('[');
    this.#enter(open);
    const items: Expr[] = [];
    if (!this.skipPunct(']')) {
      do items.push(this.parseExpression());
      while (this.#continueList(']'));
    }
    this.#leave();
    return this.#node({ kind: 'array', items, pos: open.pos }, open, items);
  }

  // Object : "{" (Entry ("," Entry)*)? "}"
  // Entry : (Identifier | QuotedIdentifier | String) ":" Expression
  // The lexer reads `:b` as the parameter b; where the colon is due, `{a:b}` is re-read as `a : b`
  // (the path b), so write `{a: :b}` or `{a::b}` for a parameter value.
  protected parseObject(): Expr {
    const open = this.expectPunct('{');
    this.#enter(open);
    const entries: { key: string; value: Expr }[] = [];
    if (!this.skipPunct('}')) {
      do {
        const key = this.token;
        if (key.kind !== TokenKind.NAME && key.kind !== TokenKind.QUOTED_NAME && key.kind !== TokenKind.STRING) {
          throw this.unexpected('an object key');
        }
        this.lexer.advance();
        this.lexer.splitParam();
        this.expectPunct(':');
        entries.push({ key: key.value, value: this.parseExpression() });
      } while (this.#continueList('}'));
    }
    this.#leave();
    return this.#node(
      { kind: 'object', entries, pos: open.pos },
      open,
      entries.map((entry) => entry.value),
    );
  }

  // Path : Name PathStep*
  // PathStep : "." (Identifier | QuotedIdentifier) | "[" (Integer | String) "]"
  // Reserved words need backticks after a dot too (`o.\`order\``), so that a dangling dot
  // (`SELECT a. FROM t`) is reported where it is rather than swallowing the keyword.
  protected parsePath(): PathExpr {
    const first = this.token;
    const segments: PathSegment[] = [this.parseName('a path')];
    for (;;) {
      if (this.skipPunct('.')) {
        segments.push(this.parseName('a field name'));
      } else if (this.skipPunct('[')) {
        const step = this.token;
        if (step.kind === TokenKind.STRING) segments.push(step.value);
        else if (step.kind === TokenKind.NUMBER && /^\d+$/.test(step.text) && Number.isSafeInteger(Number(step.text))) {
          segments.push(Number(step.text));
        } else throw this.unexpected('an array index or a quoted key');
        this.lexer.advance();
        this.expectPunct(']');
      } else return { kind: 'path', segments, pos: first.pos };
    }
  }
}
