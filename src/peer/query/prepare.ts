/**
 * Parses and checks a statement once; the result is cached by its text. Checks beyond syntax:
 * unknown functions and wrong argument counts, aggregates outside a SELECT's projection and
 * ORDER BY, grouped projections that use a field neither grouped nor aggregated, paths in
 * INSERT documents, edits of `_id`. Each error points at the statement text.
 */
import type { CallExpr, Expr, ParamExpr, PathSegment, Statement } from '../dql/ast.ts';
import { AGGREGATE_FUNCTIONS, SCALAR_FUNCTIONS } from '../dql/functions.ts';
import { parseStatement } from '../dql/parser.ts';
import { hasLoneSurrogate } from '../dql/values.ts';
import { FORBIDDEN_KEY, MAX_JSON_DEPTH, toParams } from './args.ts';
import { ParseError, QueryEvaluationError, type SourcePosition } from '../errors.ts';
import type { Params } from '../dql/evaluate.ts';

export interface PreparedStatement {
  readonly text: string;
  readonly ast: Statement;
  readonly params: readonly ParamExpr[];
  /** For a SELECT: does it aggregate (GROUP BY or an aggregate function)? */
  readonly grouped: boolean;
  /** Aggregate calls of the projection and ORDER BY. */
  readonly aggregates: readonly CallExpr[];
}

function at(pos: SourcePosition): string {
  return `at line ${pos.line} column ${pos.column}`;
}

/** Calls `fn` on an expression and every expression inside it. */
export function visit(expr: Expr, fn: (e: Expr) => void): void {
  fn(expr);
  switch (expr.kind) {
    case 'array':
      return expr.items.forEach((e) => visit(e, fn));
    case 'object':
      return expr.entries.forEach((e) => visit(e.value, fn));
    case 'unary':
      return visit(expr.operand, fn);
    case 'binary':
      visit(expr.left, fn);
      return visit(expr.right, fn);
    case 'in':
      visit(expr.needle, fn);
      return visit(expr.haystack, fn);
    case 'like':
      visit(expr.value, fn);
      return visit(expr.pattern, fn);
    case 'between':
      visit(expr.value, fn);
      visit(expr.low, fn);
      return visit(expr.high, fn);
    case 'is':
      return visit(expr.value, fn);
    case 'call':
      return expr.args.forEach((e) => visit(e, fn));
    default:
      return;
  }
}

/** Structural equality of expressions, ignoring positions. */
export function sameExpr(a: Expr, b: Expr): boolean {
  return JSON.stringify(a, (k, v: unknown) => (k === 'pos' ? undefined : v)) === JSON.stringify(b, (k, v: unknown) => (k === 'pos' ? undefined : v));
}

function checkCalls(expr: Expr, allowAggregates: boolean, aggregates: CallExpr[] | undefined, insideAggregate = false): void {
  if (expr.kind !== 'call') {
    if (expr.kind === 'path' || expr.kind === 'literal' || expr.kind === 'param') return;
    // One level at a time, so that nesting inside an aggregate is known.
    for (const c of directChildren(expr)) checkCalls(c, allowAggregates, aggregates, insideAggregate);
    return;
  }
  if (AGGREGATE_FUNCTIONS.has(expr.name)) {
    if (!allowAggregates) throw new ParseError(`aggregate function ${expr.name} is not allowed here ${at(expr.pos)}`, expr.pos);
    if (insideAggregate) throw new ParseError(`aggregate function ${expr.name} cannot be nested inside another aggregate ${at(expr.pos)}`, expr.pos);
    if (expr.star && expr.name !== 'count') throw new ParseError(`${expr.name}(*) is not a function; only count(*) takes * ${at(expr.pos)}`, expr.pos);
    if (!expr.star && expr.args.length !== 1) {
      throw new ParseError(`aggregate function ${expr.name} takes 1 argument, found ${expr.args.length} ${at(expr.pos)}`, expr.pos);
    }
    aggregates?.push(expr);
    for (const a of expr.args) checkCalls(a, allowAggregates, aggregates, true);
    return;
  }
  const fn = Object.hasOwn(SCALAR_FUNCTIONS, expr.name) ? SCALAR_FUNCTIONS[expr.name] : undefined;
  if (fn === undefined) {
    const known = [...Object.keys(SCALAR_FUNCTIONS), ...AGGREGATE_FUNCTIONS].sort().join(', ');
    throw new ParseError(`unknown function ${expr.name} ${at(expr.pos)}; expected one of ${known}`, expr.pos);
  }
  if (expr.star || expr.distinct) throw new ParseError(`function ${expr.name} takes no * or DISTINCT ${at(expr.pos)}`, expr.pos);
  if (expr.args.length < fn.minArgs || expr.args.length > fn.maxArgs) {
    const range = fn.minArgs === fn.maxArgs ? `${fn.minArgs}` : `${fn.minArgs} to ${fn.maxArgs}`;
    throw new ParseError(`function ${expr.name} takes ${range} argument${fn.maxArgs === 1 ? '' : 's'}, found ${expr.args.length} ${at(expr.pos)}`, expr.pos);
  }
  for (const a of expr.args) checkCalls(a, allowAggregates, aggregates, insideAggregate);
}

function directChildren(expr: Expr): Expr[] {
  switch (expr.kind) {
    case 'array':
      return [...expr.items];
    case 'object':
      return expr.entries.map((e) => e.value);
    case 'unary':
      return [expr.operand];
    case 'binary':
      return [expr.left, expr.right];
    case 'in':
      return [expr.needle, expr.haystack];
    case 'like':
      return [expr.value, expr.pattern];
    case 'between':
      return [expr.value, expr.low, expr.high];
    case 'is':
      return [expr.value];
    case 'call':
      return [...expr.args];
    default:
      return [];
  }
}

function noPaths(expr: Expr, where: string): void {
  visit(expr, (e) => {
    if (e.kind === 'path') throw new ParseError(`${where} cannot refer to a field, found ${e.segments.join('.')} ${at(e.pos)}`, e.pos);
  });
}

// In a grouped SELECT, an expression must be a GROUP BY expression, an aggregate, or built from those and constants.
function checkGrouped(expr: Expr, groupBy: readonly Expr[]): void {
  if (groupBy.some((g) => sameExpr(g, expr))) return;
  if (expr.kind === 'call' && AGGREGATE_FUNCTIONS.has(expr.name)) return;
  if (expr.kind === 'path') {
    throw new ParseError(`${expr.segments.join('.')} must appear in GROUP BY or inside an aggregate function ${at(expr.pos)}`, expr.pos);
  }
  for (const c of directChildren(expr)) checkGrouped(c, groupBy);
}

/** Checks a statement built as a tree rather than parsed from text (the older query API). */
export function prepareTree(text: string, ast: Statement): PreparedStatement {
  return analyse(text, ast);
}

/** A ParseError for a string of the statement that is not Unicode text (see `hasLoneSurrogate`). */
function loneSurrogateError(what: string, pos: SourcePosition): ParseError {
  return new ParseError(`${what} ${at(pos)} holds a lone surrogate, which is not Unicode text`, pos);
}

function forbiddenKeyError(what: string, pos: SourcePosition): ParseError {
  return new ParseError(`${what} ${at(pos)} uses the name ${FORBIDDEN_KEY}, which cannot be stored as data`, pos);
}

// Names a statement may not use: lone surrogates (from an escape like `'\uD800'` or a backtick
// name), `__proto__` as a field, key or alias, and paths deeper than a document may be.
function checkUnicode(ast: Statement, exprs: readonly Expr[]): void {
  if (hasLoneSurrogate(ast.collection)) throw loneSurrogateError('the collection name', ast.pos);
  const segments = (path: readonly PathSegment[], pos: SourcePosition): void => {
    if (path.some((s) => typeof s === 'string' && hasLoneSurrogate(s))) throw loneSurrogateError('the path', pos);
    if (path.includes(FORBIDDEN_KEY)) throw forbiddenKeyError('the path', pos);
    if (path.length > MAX_JSON_DEPTH)
      throw new ParseError(`the path ${at(pos)} is ${path.length} steps long; documents nest at most ${MAX_JSON_DEPTH} deep`, pos);
  };
  if (ast.kind === 'select') {
    for (const p of ast.projections) {
      if (p.kind !== 'expr') continue;
      if (hasLoneSurrogate(p.alias ?? '')) throw loneSurrogateError('the alias', p.pos);
      if (p.alias === FORBIDDEN_KEY) throw forbiddenKeyError('the alias', p.pos);
    }
  }
  if (ast.kind === 'update') for (const t of [...ast.set, ...ast.unset, ...ast.increments]) segments(t.path, t.pos);
  for (const expr of exprs) {
    visit(expr, (e) => {
      if (e.kind === 'literal' && typeof e.value === 'string' && hasLoneSurrogate(e.value)) throw loneSurrogateError('the string', e.pos);
      if (e.kind === 'object' && e.entries.some((entry) => hasLoneSurrogate(entry.key))) throw loneSurrogateError('a key of the object', e.pos);
      if (e.kind === 'object' && e.entries.some((entry) => entry.key === FORBIDDEN_KEY)) throw forbiddenKeyError('a key of the object', e.pos);
      if (e.kind === 'path') segments(e.segments, e.pos);
    });
  }
}

function analyse(text: string, ast: Statement): PreparedStatement {
  const params: ParamExpr[] = [];
  const all: Expr[] = [];
  const aggregates: CallExpr[] = [];
  let grouped = false;
  switch (ast.kind) {
    case 'select': {
      const outputs = ast.projections.flatMap((p) => (p.kind === 'expr' ? [p.expr] : []));
      for (const e of [...outputs, ...ast.orderBy.map((o) => o.expr)]) checkCalls(e, true, aggregates);
      for (const e of [ast.where, ...ast.groupBy, ast.limit, ast.offset]) if (e !== undefined) checkCalls(e, false, undefined);
      for (const e of [ast.limit, ast.offset]) if (e !== undefined) noPaths(e, 'LIMIT and OFFSET');
      grouped = ast.groupBy.length > 0 || aggregates.length > 0;
      if (grouped) {
        const star = ast.projections.find((p) => p.kind === 'star');
        if (star !== undefined) throw new ParseError(`SELECT * cannot be used with GROUP BY or aggregate functions ${at(star.pos)}`, star.pos);
        for (const e of outputs) checkGrouped(e, ast.groupBy);
        // ORDER BY may also name a projection (its alias or field name).
        const names = new Set(
          ast.projections.flatMap((p) => (p.kind !== 'expr' ? [] : p.alias !== undefined ? [p.alias] : p.expr.kind === 'path' ? [p.expr.segments.at(-1)] : [])),
        );
        for (const { expr } of ast.orderBy) {
          if (expr.kind === 'path' && expr.segments.length === 1 && names.has(expr.segments[0])) continue;
          checkGrouped(expr, ast.groupBy);
        }
      }
      all.push(...outputs, ...ast.orderBy.map((o) => o.expr), ...ast.groupBy);
      for (const e of [ast.where, ast.limit, ast.offset]) if (e !== undefined) all.push(e);
      break;
    }
    case 'insert':
      for (const d of ast.documents) {
        checkCalls(d, false, undefined);
        noPaths(d, 'an INSERT document');
        all.push(d);
      }
      break;
    case 'update': {
      for (const t of [...ast.set, ...ast.unset, ...ast.increments]) {
        if (t.path[0] === '_id') throw new QueryEvaluationError(`_id cannot be changed (${at(t.pos)})`, { line: t.pos.line, column: t.pos.column });
      }
      const exprs = [...ast.set.map((s) => s.value), ...ast.increments.map((i) => i.by)];
      if (ast.where !== undefined) exprs.push(ast.where);
      for (const e of exprs) checkCalls(e, false, undefined);
      all.push(...exprs);
      break;
    }
    case 'delete':
    case 'evict': {
      const exprs: Expr[] = [];
      if (ast.where !== undefined) exprs.push(ast.where);
      if (ast.kind === 'evict') {
        exprs.push(...ast.orderBy.map((o) => o.expr));
        for (const e of [ast.limit, ast.offset]) {
          if (e === undefined) continue;
          noPaths(e, 'LIMIT and OFFSET');
          exprs.push(e);
        }
      }
      for (const e of exprs) checkCalls(e, false, undefined);
      all.push(...exprs);
      break;
    }
  }
  checkUnicode(ast, all);
  for (const e of all) visit(e, (x) => x.kind === 'param' && params.push(x));
  return { text, ast, params, grouped, aggregates };
}

const cache = new Map<string, PreparedStatement>();
const CACHE_SIZE = 512;

/** The prepared form of a statement, from the cache when it was prepared before. */
export function prepare(text: string): PreparedStatement {
  if (typeof text !== 'string') throw new ParseError(`a statement must be a string, not ${text === null ? 'null' : typeof text}`);
  const hit = cache.get(text);
  if (hit !== undefined) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const prepared = analyse(text, parseStatement(text));
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(text, prepared);
  return prepared;
}

/** Every parameter of the statement must have a value in the arguments. */
export function checkBound(prepared: PreparedStatement, params: Params): void {
  for (const p of prepared.params) {
    if (!Object.hasOwn(params, p.name)) {
      throw new ParseError(`parameter :${p.name} is not bound ${at(p.pos)}; pass it in the arguments`, p.pos);
    }
  }
}

/** @internal A statement's parts after checks, shared by every way of running statements. */
export function prepareWithArgs(statement: string, args: unknown): { prepared: PreparedStatement; params: Params } {
  const prepared = prepare(statement);
  const params = toParams(args);
  checkBound(prepared, params);
  return { prepared, params };
}
