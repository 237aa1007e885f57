/**
 * The reference evaluator of DQL expressions over one document. Conditions are three-valued:
 * `true`, `false`, or `null` (unknown); a WHERE keeps a document only when its condition is
 * `true`. The SQLite translation must give the same answers; the storage test suites check it.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';
import type { CallExpr, Expr, PathSegment } from './ast.ts';
import { QueryEvaluationError } from '../errors.ts';
import { SCALAR_FUNCTIONS } from './functions.ts';
import { likeMatches } from './like.ts';
import { MISSING, compareForPredicate, compareForRange, comparisonTruth, isObject, type Value } from './values.ts';

export type Params = Readonly<Record<string, JsonValue>>;

export interface EvalEnv {
  /** The document (or, for grouped queries, a representative row of the group). */
  readonly doc: JsonObject;
  readonly params: Params;
  /** Values of aggregate calls, computed for the current group. */
  readonly aggregates?: ReadonlyMap<CallExpr, JsonValue>;
}

/** The value at a path: MISSING where any step does not exist. */
export function getPath(doc: JsonValue, segments: readonly PathSegment[]): Value {
  let current: Value = doc;
  for (const seg of segments) {
    if (typeof seg === 'number') {
      if (!Array.isArray(current) || seg >= current.length) return MISSING;
      current = current[seg] as JsonValue;
    } else {
      if (!isObject(current) || !Object.hasOwn(current, seg)) return MISSING;
      current = current[seg] as JsonValue;
    }
  }
  return current;
}

/** Three-valued truth of a value: only the booleans are known. */
export function truth(v: Value): boolean | null {
  return v === true ? true : v === false ? false : null;
}

export function not(t: boolean | null): boolean | null {
  return t === null ? null : !t;
}

/** Evaluates an expression; MISSING is a possible answer, exceptions are not (but for bugs). */
export function evaluate(expr: Expr, env: EvalEnv): Value {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'param': {
      const v = env.params[expr.name];
      if (v === undefined) throw new QueryEvaluationError(`parameter :${expr.name} is not bound`);
      return v;
    }
    case 'path':
      return getPath(env.doc, expr.segments);
    case 'array':
      return expr.items.map((item) => {
        const v = evaluate(item, env);
        return v === MISSING ? null : v;
      });
    case 'object': {
      const out: JsonObject = {};
      for (const { key, value } of expr.entries) {
        const v = evaluate(value, env);
        if (v !== MISSING) out[key] = v;
      }
      return out;
    }
    case 'unary': {
      const v = evaluate(expr.operand, env);
      return expr.op === 'NOT' ? not(truth(v)) : negate(expr.op, v);
    }
    case 'binary':
      return evaluateBinary(expr.op, expr.left, expr.right, env);
    case 'in': {
      const t = inList(evaluate(expr.needle, env), evaluate(expr.haystack, env));
      return expr.negated ? not(t) : t;
    }
    case 'like': {
      const t = like(evaluate(expr.value, env), evaluate(expr.pattern, env), expr.caseInsensitive);
      return expr.negated ? not(t) : t;
    }
    case 'between': {
      const v = evaluate(expr.value, env);
      // `v >= low AND v <= high`: each unknown unless both sides are of one type.
      const lo = compareForRange(v, evaluate(expr.low, env));
      const hi = compareForRange(v, evaluate(expr.high, env));
      const t = and(lo === null ? null : lo >= 0, hi === null ? null : hi <= 0);
      return expr.negated ? not(t) : t;
    }
    case 'is': {
      const v = evaluate(expr.value, env);
      const t = expr.test === 'NULL' ? v === null : v === MISSING;
      return expr.negated ? !t : t;
    }
    case 'call': {
      const agg = env.aggregates?.get(expr);
      if (agg !== undefined) return agg;
      const fn = Object.hasOwn(SCALAR_FUNCTIONS, expr.name) ? SCALAR_FUNCTIONS[expr.name] : undefined;
      if (fn === undefined) throw new QueryEvaluationError(`function ${expr.name} cannot be used here`);
      return fn.fn(expr.args.map((a) => evaluate(a, env)));
    }
  }
}

function and(a: boolean | null, b: boolean | null): boolean | null {
  if (a === false || b === false) return false;
  if (a === null || b === null) return null;
  return true;
}

function or(a: boolean | null, b: boolean | null): boolean | null {
  if (a === true || b === true) return true;
  if (a === null || b === null) return null;
  return false;
}

// SQL semantics: not found among known elements and a null element present gives unknown.
export function inList(needle: Value, haystack: Value): boolean | null {
  if (needle === null || needle === MISSING || !Array.isArray(haystack)) return null;
  const inIndexes = activeInIndexes;
  if (
    inIndexes !== undefined &&
    haystack.length >= IN_INDEX_MIN_LENGTH &&
    (typeof needle === 'string' || typeof needle === 'number' || typeof needle === 'boolean')
  ) {
    // A scalar equals only a scalar of its own type with the same value (10 = 10.0 in JS too),
    // so a Set answers it; the same list (a bound argument) is indexed once, not per document.
    let index = inIndexes.get(haystack);
    if (index === undefined) {
      index = { scalars: new Set(), hasNull: false };
      for (const item of haystack as readonly Value[]) {
        if (item === null || item === MISSING) index.hasNull = true;
        else if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') index.scalars.add(item);
      }
      inIndexes.set(haystack, index);
    }
    if (index.scalars.has(needle)) return true;
    return index.hasNull ? null : false;
  }
  let sawNull = false;
  for (const item of haystack) {
    const c = compareForPredicate(needle, item);
    if (c === 0) return true;
    if (c === null) sawNull = true;
  }
  return sawNull ? null : false;
}

/** Lists at least this long are looked up through a Set rather than scanned. */
const IN_INDEX_MIN_LENGTH = 16;
type InIndex = { scalars: Set<string | number | boolean>; hasNull: boolean };
let activeInIndexes: WeakMap<readonly unknown[], InIndex> | undefined;

/**
 * Runs `fn` (one scan of many documents against the same parameters) with `IN` over long lists
 * answered through a Set built once per list, instead of scanning the list per document: a
 * quadratic cost otherwise (`_id IN :ids` over as many documents). Scoped to the call, so a list
 * the caller changes later is never looked up through a stale index.
 */
export function withInListIndex<T>(fn: () => T): T {
  const outer = activeInIndexes;
  activeInIndexes = new WeakMap();
  try {
    return fn();
  } finally {
    activeInIndexes = outer;
  }
}

function evaluateBinary(op: string, leftExpr: Expr, rightExpr: Expr, env: EvalEnv): Value {
  if (op === 'AND') {
    const l = truth(evaluate(leftExpr, env));
    if (l === false) return false;
    return and(l, truth(evaluate(rightExpr, env)));
  }
  if (op === 'OR') {
    const l = truth(evaluate(leftExpr, env));
    if (l === true) return true;
    return or(l, truth(evaluate(rightExpr, env)));
  }
  const left = evaluate(leftExpr, env);
  const right = evaluate(rightExpr, env);
  switch (op) {
    case '=':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return comparison(op, left, right);
    default:
      return operate(op, left, right);
  }
}

/** `||` and the arithmetic operators: numbers only (strings for `||`), MISSING in gives MISSING out. */
export function operate(op: string, left: Value, right: Value): Value {
  if (op === '||') {
    if (left === MISSING || right === MISSING) return MISSING;
    return typeof left === 'string' && typeof right === 'string' ? left + right : null;
  }
  return arithmetic(op, left, right);
}

/** Unary minus and plus. */
export function negate(op: '-' | '+', v: Value): Value {
  if (v === MISSING) return MISSING;
  if (typeof v !== 'number') return null;
  return op === '-' ? (v === 0 ? 0 : -v) : v;
}

/** LIKE and ILIKE, three-valued: unknown for null or MISSING, false for other non-strings. */
export function like(v: Value, p: Value, caseInsensitive: boolean): boolean | null {
  if (v === null || v === MISSING || p === null || p === MISSING) return null;
  if (typeof v !== 'string' || typeof p !== 'string') return false;
  return likeMatches(v, p, caseInsensitive);
}

/** A comparison operator applied to two values, three-valued (`comparisonTruth`: ranges only within a type). */
export function comparison(op: string, left: Value, right: Value): boolean | null {
  return comparisonTruth(op, left, right);
}

function arithmetic(op: string, left: Value, right: Value): Value {
  if (left === MISSING || right === MISSING) return MISSING;
  if (typeof left !== 'number' || typeof right !== 'number') return null;
  let r: number;
  switch (op) {
    case '+':
      r = left + right;
      break;
    case '-':
      r = left - right;
      break;
    case '*':
      r = left * right;
      break;
    case '/':
      if (right === 0) return null;
      r = left / right;
      break;
    default:
      if (right === 0) return null;
      r = left % right;
  }
  return Number.isFinite(r) ? (r === 0 ? 0 : r) : null;
}

/** Does a WHERE condition hold for a document? */
export function matches(where: Expr | undefined, doc: JsonObject, params: Params): boolean {
  return where === undefined || evaluate(where, { doc, params }) === true;
}
