/**
 * The value model of DQL: JSON values plus MISSING (a path that leads nowhere), the type ranks
 * of the cross-type order, and the comparisons every part of the engine shares (the evaluator,
 * the SQLite functions and the in-memory storage), so that SQL and JavaScript agree exactly.
 *
 * Ascending order: false < true < numbers < strings < arrays < objects < null < MISSING.
 * Strings compare by code point, which is the byte order of their UTF-8 form. That order is for
 * ORDER BY, MIN and MAX; a range comparison (`<`, `<=`, `>`, `>=`) holds only between two values
 * of one type (see `comparisonTruth`).
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';

/** The value of a path that does not exist in a document. Never stored, never returned. */
export const MISSING: unique symbol = Symbol('MISSING');
export type Missing = typeof MISSING;
export type Value = JsonValue | Missing;

export const RANK = { false: 0, true: 1, number: 2, string: 3, array: 4, object: 5, null: 6, missing: 7 } as const;

/** The rank of a value in the cross-type order. */
export function rankOf(value: Value): number {
  switch (typeof value) {
    case 'boolean':
      return value ? RANK.true : RANK.false;
    case 'number':
      return RANK.number;
    case 'string':
      return RANK.string;
    case 'symbol':
      return RANK.missing;
    default:
      if (value === null) return RANK.null;
      return Array.isArray(value) ? RANK.array : RANK.object;
  }
}

/** `'boolean' | 'number' | 'string' | 'array' | 'object' | 'null' | 'missing'`. */
export function typeName(value: Value): string {
  if (value === MISSING) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function isObject(value: Value | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Code-point order of two strings (UTF-16 order differs for characters above U+FFFF). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointWeight(x) - codePointWeight(y);
  }
  return a.length - b.length;
}

// Surrogates (U+D800–U+DFFF) encode code points above U+FFFF: lift them above U+E000–U+FFFF.
function codePointWeight(unit: number): number {
  if (unit < 0xd800) return unit;
  if (unit <= 0xdfff) return unit + 0x2000;
  return unit - 0x800;
}

// In a `u` regular expression the halves of a pair form one code point, so only lone ones match.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Does the string hold a lone surrogate? Such a string is UTF-16 but not Unicode text: it has no
 * UTF-8 form, so it could neither be stored nor ordered byte-wise, and is refused where it enters.
 */
export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s);
}

/** Sorted keys of an object, in code-point order. */
export function sortedKeys(object: JsonObject): string[] {
  return Object.keys(object).sort(compareStrings);
}

/** The total order used by ORDER BY, MIN/MAX, DISTINCT and inside arrays and objects. */
export function compareTotal(a: Value, b: Value): number {
  const ra = rankOf(a);
  const rb = rankOf(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case RANK.number: {
      const x = a as number;
      const y = b as number;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case RANK.string: {
      const c = compareStrings(a as string, b as string);
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    case RANK.array:
      return compareArrays(a as JsonValue[], b as JsonValue[]);
    case RANK.object:
      return compareObjects(a as JsonObject, b as JsonObject);
    default:
      return 0; // booleans of one rank, null, MISSING
  }
}

function compareArrays(a: JsonValue[], b: JsonValue[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareTotal(a[i] as JsonValue, b[i] as JsonValue);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

// Objects compare by their entries in sorted-key order: first the key, then the value.
function compareObjects(a: JsonObject, b: JsonObject): number {
  const ka = sortedKeys(a);
  const kb = sortedKeys(b);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const keyA = ka[i] as string;
    const keyB = kb[i] as string;
    const c = compareStrings(keyA, keyB);
    if (c !== 0) return c < 0 ? -1 : 1;
    const v = compareTotal(a[keyA] as JsonValue, b[keyB] as JsonValue);
    if (v !== 0) return v;
  }
  return ka.length === kb.length ? 0 : ka.length < kb.length ? -1 : 1;
}

/**
 * The three-valued comparison behind `=` and `!=`: `null` (unknown) when either side is null or
 * MISSING; otherwise the cross-type order decides, so a number never equals a string.
 */
export function compareForPredicate(a: Value, b: Value): number | null {
  if (a === null || b === null || a === MISSING || b === MISSING) return null;
  return compareTotal(a, b);
}

/**
 * Are two values of one type, as range comparisons see it: both booleans (`false < true`), both
 * numbers, both strings, both arrays or both objects.
 */
export function sameType(a: Value, b: Value): boolean {
  const ra = rankOf(a);
  const rb = rankOf(b);
  return ra === rb || (ra <= RANK.true && rb <= RANK.true);
}

/**
 * The three-valued comparison behind `<`, `<=`, `>`, `>=` and BETWEEN: `null` (unknown) unless
 * both sides are of one type (`sameType`), so also for null or MISSING on either side; within
 * the type, the order ORDER BY uses. Unknown rather than false, so that NOT of a range between
 * different types is unknown too: `NOT (createdAt > :ttl)` selects no number when `:ttl` is a string.
 */
export function compareForRange(a: Value, b: Value): number | null {
  if (a === null || b === null || a === MISSING || b === MISSING || !sameType(a, b)) return null;
  return compareTotal(a, b);
}

/** Is the operator one of `<`, `<=`, `>`, `>=`? */
export function isRangeOperator(op: string): boolean {
  return op === '<' || op === '<=' || op === '>' || op === '>=';
}

/**
 * Whether a comparison operator (`=`, `!=`, `<`, `<=`, `>`, `>=`) holds for the sign of a
 * comparison `c` (negative, zero, positive). Any other operator reads as `>=`.
 */
export function comparisonHolds(op: string, c: number): boolean {
  switch (op) {
    case '=':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

/**
 * A comparison operator applied to two values, three-valued: the one definition the evaluator,
 * the SQLite translation (plain SQL and `dql_cmp`), the in-memory and PostgreSQL storages,
 * subscriptions and permission rules share. `=` and `!=` compare any two values (a number is
 * never equal to a string); the range operators only values of one type, else unknown.
 */
export function comparisonTruth(op: string, a: Value, b: Value): boolean | null {
  const c = isRangeOperator(op) ? compareForRange(a, b) : compareForPredicate(a, b);
  return c === null ? null : comparisonHolds(op, c);
}

/** Deep equality under the total order (`10 = 10.0`, key order of objects does not matter). */
export function valuesEqual(a: Value, b: Value): boolean {
  return compareTotal(a, b) === 0;
}
