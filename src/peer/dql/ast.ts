/**
 * The DQL abstract syntax tree. Nodes are readonly and carry the position where they start, so
 * that errors found after parsing (unbound parameters, unknown functions) can still point at
 * the statement text. Keywords are normalised: `==` is `=`, `<>` is `!=`, function names are
 * lower-case.
 */
import type { SourcePosition } from '../errors.ts';
import type { JsonValue } from '../../shared/json.ts';

export type { SourcePosition };

/** One step of a path: an object key or an array index. */
export type PathSegment = string | number;

export type ComparisonOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type ArithmeticOp = '+' | '-' | '*' | '/' | '%';
export type BinaryOp = ComparisonOp | ArithmeticOp | 'AND' | 'OR' | '||';

export type Expr = LiteralExpr | ParamExpr | PathExpr | ArrayExpr | ObjectExpr | UnaryExpr | BinaryExpr | InExpr | LikeExpr | BetweenExpr | IsExpr | CallExpr;

/** `1`, `2.5e3`, `'text'`, `"text"`, `true`, `false`, `null`. */
export interface LiteralExpr {
  readonly kind: 'literal';
  readonly value: JsonValue;
  readonly pos: SourcePosition;
}

/** `:name`, bound from the statement's arguments. */
export interface ParamExpr {
  readonly kind: 'param';
  readonly name: string;
  readonly pos: SourcePosition;
}

/** `a.b[0].c`, `` `odd name`.x ``, `a['key']`; a leading collection alias is removed. */
export interface PathExpr {
  readonly kind: 'path';
  readonly segments: readonly PathSegment[];
  readonly pos: SourcePosition;
}

/** `[e1, e2, …]`. */
export interface ArrayExpr {
  readonly kind: 'array';
  readonly items: readonly Expr[];
  readonly pos: SourcePosition;
}

/** `{ key: e, 'other key': e }`. */
export interface ObjectExpr {
  readonly kind: 'object';
  readonly entries: readonly { readonly key: string; readonly value: Expr }[];
  readonly pos: SourcePosition;
}

export interface UnaryExpr {
  readonly kind: 'unary';
  readonly op: 'NOT' | '-' | '+';
  readonly operand: Expr;
  readonly pos: SourcePosition;
}

export interface BinaryExpr {
  readonly kind: 'binary';
  readonly op: BinaryOp;
  readonly left: Expr;
  readonly right: Expr;
  readonly pos: SourcePosition;
}

/** `x [NOT] IN (a, b)`, `x IN [a, b]`, `x IN :param`, `x IN arrayField`: the haystack is any array-valued expression. */
export interface InExpr {
  readonly kind: 'in';
  readonly negated: boolean;
  readonly needle: Expr;
  readonly haystack: Expr;
  readonly pos: SourcePosition;
}

/** `x [NOT] LIKE pattern`, `x [NOT] ILIKE pattern`. */
export interface LikeExpr {
  readonly kind: 'like';
  readonly negated: boolean;
  readonly caseInsensitive: boolean;
  readonly value: Expr;
  readonly pattern: Expr;
  readonly pos: SourcePosition;
}

/** `x [NOT] BETWEEN low AND high` (both ends included). */
export interface BetweenExpr {
  readonly kind: 'between';
  readonly negated: boolean;
  readonly value: Expr;
  readonly low: Expr;
  readonly high: Expr;
  readonly pos: SourcePosition;
}

/** `x IS [NOT] NULL`, `x IS [NOT] MISSING`. */
export interface IsExpr {
  readonly kind: 'is';
  readonly negated: boolean;
  readonly test: 'NULL' | 'MISSING';
  readonly value: Expr;
  readonly pos: SourcePosition;
}

/** `name(args)`; aggregates too: `count(*)` has `star`, `count(DISTINCT x)` has `distinct`. */
export interface CallExpr {
  readonly kind: 'call';
  readonly name: string;
  readonly args: readonly Expr[];
  readonly star: boolean;
  readonly distinct: boolean;
  readonly pos: SourcePosition;
}

export type Projection =
  | { readonly kind: 'star'; readonly pos: SourcePosition }
  | { readonly kind: 'expr'; readonly expr: Expr; readonly alias: string | undefined; readonly pos: SourcePosition };

export interface OrderTerm {
  readonly expr: Expr;
  readonly direction: 'ASC' | 'DESC';
}

export type ConflictPolicy = 'FAIL' | 'DO NOTHING' | 'DO UPDATE' | 'DO UPDATE_LOCAL_DIFF' | 'DO MERGE';

export type Statement = SelectStatement | InsertStatement | UpdateStatement | DeleteStatement | EvictStatement;

export interface SelectStatement {
  readonly kind: 'select';
  readonly distinct: boolean;
  readonly projections: readonly Projection[];
  readonly collection: string;
  readonly alias: string | undefined;
  readonly where: Expr | undefined;
  readonly groupBy: readonly Expr[];
  readonly orderBy: readonly OrderTerm[];
  readonly limit: Expr | undefined;
  readonly offset: Expr | undefined;
  readonly pos: SourcePosition;
}

export interface InsertStatement {
  readonly kind: 'insert';
  readonly collection: string;
  /** One expression per parenthesised tuple: an object literal, or a parameter holding an object or an array of objects. */
  readonly documents: readonly Expr[];
  readonly onConflict: ConflictPolicy;
  readonly pos: SourcePosition;
}

export interface SetClause {
  readonly path: readonly PathSegment[];
  readonly value: Expr;
  readonly pos: SourcePosition;
}

export interface IncrementClause {
  readonly path: readonly PathSegment[];
  readonly by: Expr;
  readonly pos: SourcePosition;
}

export interface UpdateStatement {
  readonly kind: 'update';
  readonly collection: string;
  readonly alias: string | undefined;
  readonly set: readonly SetClause[];
  readonly unset: readonly { readonly path: readonly PathSegment[]; readonly pos: SourcePosition }[];
  readonly increments: readonly IncrementClause[];
  readonly where: Expr | undefined;
  readonly pos: SourcePosition;
}

export interface DeleteStatement {
  readonly kind: 'delete';
  readonly collection: string;
  readonly alias: string | undefined;
  readonly where: Expr | undefined;
  readonly pos: SourcePosition;
}

export interface EvictStatement {
  readonly kind: 'evict';
  readonly collection: string;
  readonly alias: string | undefined;
  readonly where: Expr | undefined;
  readonly orderBy: readonly OrderTerm[];
  readonly limit: Expr | undefined;
  readonly offset: Expr | undefined;
  readonly pos: SourcePosition;
}

/** One key of `CREATE INDEX`: a path and its direction. */
export interface IndexKeyClause {
  readonly path: readonly PathSegment[];
  readonly direction: 'ASC' | 'DESC';
  readonly pos: SourcePosition;
}

/** `CREATE INDEX [IF NOT EXISTS] name ON collection (path [ASC|DESC], …)`. */
export interface CreateIndexStatement {
  readonly kind: 'create-index';
  readonly name: string;
  readonly collection: string;
  readonly ifNotExists: boolean;
  readonly keys: readonly IndexKeyClause[];
  readonly pos: SourcePosition;
}

/** `DROP INDEX [IF EXISTS] name ON collection`. */
export interface DropIndexStatement {
  readonly kind: 'drop-index';
  readonly name: string;
  readonly collection: string;
  readonly ifExists: boolean;
  readonly pos: SourcePosition;
}

/** `EXPLAIN statement`: the plan of a statement, which is not run. */
export interface ExplainStatement {
  readonly kind: 'explain';
  readonly statement: Statement;
  readonly pos: SourcePosition;
}

/** What `execute` runs: a statement, or a command about the peer's own indexes and plans (never observed, subscribed or replicated). */
export type Command = Statement | CreateIndexStatement | DropIndexStatement | ExplainStatement;
