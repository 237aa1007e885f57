/**
 * Do two WHERE conditions select documents in common (spec 3.2: the EVICT and the subscription
 * that follows it "must not overlap")? Decided from the conditions themselves, not from the
 * documents stored now, for the shape strategies use: conjunctions (AND) of comparisons of a
 * field with a value (`=`, `<`, `<=`, `>`, `>=`, BETWEEN). Two such conditions are disjoint
 * when, for some field, no value satisfies both sides' bounds; otherwise they overlap, and the
 * answer says where. Each such comparison holds only for a value of its own value's type (a
 * number never equals a string, and a range holds only within a type), so a field compared
 * with a string and with a number is disjoint too. Strings are ordered by code point, as the
 * storages order them. Anything else (OR, NOT, functions, LIKE, paths compared with paths,
 * ranges of booleans) is `unknown`: the caller falls back to the stored documents.
 */
import type { JsonValue } from '../../shared/json.ts';
import type { Expr } from '../dql/ast.ts';
import type { Params } from '../dql/evaluate.ts';
import { printPath } from '../dql/print.ts';
import { compareStrings } from '../dql/values.ts';

export type OverlapVerdict =
  | { readonly kind: 'disjoint'; readonly field: string; readonly explanation: string }
  | { readonly kind: 'overlap'; readonly explanation: string }
  | { readonly kind: 'unknown'; readonly explanation: string };

type Scalar = string | number | boolean;

interface Bound {
  readonly value: Scalar;
  readonly inclusive: boolean;
}

/** What one side's conjunction says of one field. */
interface Range {
  low: Bound | undefined;
  high: Bound | undefined;
  equals: Scalar | undefined;
  /** Two different `=` values: the side itself selects nothing. */
  empty: boolean;
}

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' };

function valueOf(expr: Expr, params: Params): Scalar | undefined {
  let v: JsonValue | undefined;
  if (expr.kind === 'literal') v = expr.value;
  else if (expr.kind === 'param') v = params[expr.name];
  else if (expr.kind === 'unary' && expr.op === '-' && expr.operand.kind === 'literal' && typeof expr.operand.value === 'number') v = -expr.operand.value;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : undefined;
}

/** Two values of one type (`narrow` keeps each field to one), strings by code point as SQLite orders them. */
const compare = (a: Scalar, b: Scalar): number => (typeof a === 'string' && typeof b === 'string' ? compareStrings(a, b) : a < b ? -1 : a > b ? 1 : 0);

/** The conjunction's atoms as (field, op, value), or undefined when it is not of that shape. */
function atomsOf(expr: Expr | undefined, params: Params, out: [string, string, Scalar][] = []): [string, string, Scalar][] | undefined {
  if (expr === undefined) return out;
  if (expr.kind === 'binary' && expr.op === 'AND') {
    return atomsOf(expr.left, params, out) === undefined ? undefined : atomsOf(expr.right, params, out);
  }
  if (expr.kind === 'between' && !expr.negated && expr.value.kind === 'path') {
    const low = valueOf(expr.low, params);
    const high = valueOf(expr.high, params);
    if (low === undefined || high === undefined) return undefined;
    const field = printPath(expr.value.segments);
    out.push([field, '>=', low], [field, '<=', high]);
    return out;
  }
  if (expr.kind === 'binary' && expr.op in FLIP) {
    if (expr.left.kind === 'path') {
      const v = valueOf(expr.right, params);
      if (v === undefined) return undefined;
      out.push([printPath(expr.left.segments), expr.op, v]);
      return out;
    }
    if (expr.right.kind === 'path') {
      const v = valueOf(expr.left, params);
      if (v === undefined) return undefined;
      out.push([printPath(expr.right.segments), FLIP[expr.op] as string, v]);
      return out;
    }
  }
  return undefined;
}

function tighterLow(a: Bound | undefined, b: Bound): Bound {
  if (a === undefined) return b;
  const c = compare(a.value, b.value);
  return c > 0 || (c === 0 && !a.inclusive) ? a : b;
}

function tighterHigh(a: Bound | undefined, b: Bound): Bound {
  if (a === undefined) return b;
  const c = compare(a.value, b.value);
  return c < 0 || (c === 0 && !a.inclusive) ? a : b;
}

/**
 * Adds one atom to a field's range: `types` when its value is of another type than the field's
 * other values (no value satisfies both), `unknown` for a range over booleans.
 */
function narrow(range: Range, op: string, value: Scalar): 'ok' | 'types' | 'unknown' {
  const others = [range.low?.value, range.high?.value, range.equals].filter((v) => v !== undefined);
  if (others.some((o) => typeof o !== typeof value)) return 'types';
  if (op === '=') {
    if (range.equals !== undefined && range.equals !== value) range.empty = true;
    range.equals = value;
    return 'ok';
  }
  if (typeof value === 'boolean') return 'unknown';
  if (op === '<' || op === '<=') range.high = tighterHigh(range.high, { value, inclusive: op === '<=' });
  else range.low = tighterLow(range.low, { value, inclusive: op === '>=' });
  return 'ok';
}

/** Is some value inside the range? (For strings and numbers: the bounds leave room.) */
function satisfiable(range: Range): boolean {
  if (range.empty) return false;
  const { low, high, equals } = range;
  if (equals !== undefined) {
    if (low !== undefined && (compare(equals, low.value) < 0 || (compare(equals, low.value) === 0 && !low.inclusive))) return false;
    if (high !== undefined && (compare(equals, high.value) > 0 || (compare(equals, high.value) === 0 && !high.inclusive))) return false;
    return true;
  }
  if (low === undefined || high === undefined) return true;
  const c = compare(low.value, high.value);
  return c < 0 || (c === 0 && low.inclusive && high.inclusive);
}

function describe(field: string, range: Range): string {
  const show = (v: Scalar): string => JSON.stringify(v);
  if (range.equals !== undefined) return `${field} = ${show(range.equals)}`;
  const parts: string[] = [];
  if (range.low !== undefined) parts.push(`${field} ${range.low.inclusive ? '>=' : '>'} ${show(range.low.value)}`);
  if (range.high !== undefined) parts.push(`${field} ${range.high.inclusive ? '<=' : '<'} ${show(range.high.value)}`);
  return parts.length === 0 ? `any ${field}` : parts.join(' and ');
}

/** Do documents exist that both conditions select? See the file comment for what is decided. */
export function conditionsOverlap(a: Expr | undefined, aParams: Params, b: Expr | undefined, bParams: Params): OverlapVerdict {
  const left = atomsOf(a, aParams);
  const right = atomsOf(b, bParams);
  if (left === undefined || right === undefined) {
    return { kind: 'unknown', explanation: 'a condition is not a conjunction of comparisons of fields with values' };
  }
  const ranges = new Map<string, Range>();
  // Fields whose atoms this cannot decide: left out of the verdict, which is then at best unknown.
  const undecided = new Set<string>();
  for (const [field, op, value] of [...left, ...right]) {
    if (undecided.has(field)) continue;
    let range = ranges.get(field);
    if (range === undefined) ranges.set(field, (range = { low: undefined, high: undefined, equals: undefined, empty: false }));
    const outcome = narrow(range, op, value);
    if (outcome === 'types') return { kind: 'disjoint', field, explanation: `${field} is compared with values of different types, and no value is of both` };
    if (outcome === 'unknown') undecided.add(field);
  }
  for (const [field, range] of ranges) {
    if (!undecided.has(field) && !satisfiable(range)) return { kind: 'disjoint', field, explanation: `no value of ${field} satisfies both` };
  }
  if (undecided.size > 0) return { kind: 'unknown', explanation: `a range over booleans on ${[...undecided].join(', ')}` };
  const where = [...ranges].map(([field, range]) => describe(field, range));
  return { kind: 'overlap', explanation: where.length === 0 ? 'both select every document' : `both select documents with ${where.join(', ')}` };
}
