/**
 * The scalar functions of DQL. Each takes evaluated arguments and returns a value; a wrong
 * argument type gives null (never an exception), MISSING in gives MISSING out where noted.
 * Names are lower-case; calls are case-insensitive.
 */
import type { JsonValue } from '../../shared/json.ts';
import { MISSING, compareTotal, isObject, typeName, valuesEqual, type Value } from './values.ts';

export interface ScalarFunction {
  readonly minArgs: number;
  readonly maxArgs: number;
  readonly fn: (args: readonly Value[]) => Value;
}

function str(fn: (s: string) => Value): ScalarFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    fn: ([v]) => (v === MISSING ? MISSING : typeof v === 'string' ? fn(v) : null),
  };
}

function num(fn: (n: number) => number): ScalarFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    fn: ([v]) => (v === MISSING ? MISSING : typeof v === 'number' ? normalise(fn(v)) : null),
  };
}

function normalise(n: number): number | null {
  return Number.isFinite(n) ? (n === 0 ? 0 : n) : null;
}

function strPair(fn: (a: string, b: string) => boolean): ScalarFunction {
  return {
    minArgs: 2,
    maxArgs: 2,
    fn: ([a, b]) => (typeof a === 'string' && typeof b === 'string' ? fn(a, b) : null),
  };
}

function typeTest(name: string): ScalarFunction {
  return { minArgs: 1, maxArgs: 1, fn: ([v]) => typeName(v as Value) === name };
}

export const SCALAR_FUNCTIONS: Readonly<Record<string, ScalarFunction>> = {
  coalesce: {
    minArgs: 1,
    maxArgs: 64,
    fn: (args) => {
      for (const v of args) if (v !== null && v !== MISSING) return v;
      return null;
    },
  },
  upper: str((s) => s.toUpperCase()),
  lower: str((s) => s.toLowerCase()),
  trim: str((s) => s.trim()),
  length: str((s) => [...s].length),
  array_length: {
    minArgs: 1,
    maxArgs: 1,
    fn: ([v]) => (v === MISSING ? MISSING : Array.isArray(v) ? v.length : null),
  },
  array_contains: {
    minArgs: 2,
    maxArgs: 2,
    fn: ([a, v]) => (Array.isArray(a) ? a.some((item) => valuesEqual(item, v as Value)) : null),
  },
  object_length: {
    minArgs: 1,
    maxArgs: 1,
    fn: ([v]) => (v === MISSING ? MISSING : isObject(v) ? Object.keys(v).length : null),
  },
  contains: strPair((a, b) => a.includes(b)),
  starts_with: strPair((a, b) => a.startsWith(b)),
  ends_with: strPair((a, b) => a.endsWith(b)),
  concat: {
    minArgs: 1,
    maxArgs: 64,
    fn: (args) => (args.every((a) => typeof a === 'string') ? args.join('') : null),
  },
  abs: num(Math.abs),
  floor: num(Math.floor),
  ceil: num(Math.ceil),
  round: {
    minArgs: 1,
    maxArgs: 2,
    fn: ([v, d]) => {
      if (v === MISSING) return MISSING;
      const digits = d === undefined ? 0 : d;
      if (typeof v !== 'number' || typeof digits !== 'number' || !Number.isInteger(digits)) return null;
      const f = 10 ** digits;
      return normalise((Math.sign(v) * Math.round(Math.abs(v) * f)) / f);
    },
  },
  type: { minArgs: 1, maxArgs: 1, fn: ([v]) => typeName(v as Value) },
  is_boolean: typeTest('boolean'),
  is_number: typeTest('number'),
  is_string: typeTest('string'),
  is_array: typeTest('array'),
  is_object: typeTest('object'),
};

export type AggregateName = 'count' | 'sum' | 'min' | 'max' | 'avg';
export const AGGREGATE_FUNCTIONS: ReadonlySet<string> = new Set<AggregateName>(['count', 'sum', 'min', 'max', 'avg']);

/**
 * Aggregates ignore null and MISSING. COUNT(*) counts rows; SUM and AVG take numbers only
 * (other types are skipped) and give null over no numbers, as SUM does beyond the largest
 * number; MIN and MAX use the cross-type order.
 */
export function aggregate(name: AggregateName, values: readonly Value[], star: boolean): JsonValue {
  if (name === 'count') return star ? values.length : values.filter((v) => v !== null && v !== MISSING).length;
  const present = values.filter((v): v is JsonValue => v !== null && v !== MISSING);
  if (name === 'min' || name === 'max') {
    let best: JsonValue | undefined;
    for (const v of present) {
      if (best === undefined || (name === 'min' ? compareTotal(v, best) < 0 : compareTotal(v, best) > 0)) best = v;
    }
    return best ?? null;
  }
  const numbers = present.filter((v): v is number => typeof v === 'number');
  if (numbers.length === 0) return null;
  const sum = numbers.reduce((a, b) => a + b, 0);
  // As arithmetic does, a sum beyond the largest number is null; an average stays in range.
  if (name === 'sum') return normalise(sum);
  return Number.isFinite(sum) ? normalise(sum / numbers.length) : normalise(numbers.reduce((a, b) => a + b / numbers.length, 0));
}
