/**
 * Statement arguments: a plain object whose values are JSON (null, booleans, finite numbers,
 * strings of Unicode text, arrays, plain objects). Anything else is refused with
 * `query/arguments-invalid` rather than silently converted.
 */
import type { JsonValue } from '../../shared/json.ts';
import type { Params } from '../dql/evaluate.ts';
import { hasLoneSurrogate } from '../dql/values.ts';
import { InvalidArgumentsError } from '../errors.ts';

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value instanceof Date) return 'a Date (pass an ISO 8601 string instead)';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return 'a string holding a lone surrogate (UTF-16 that is not Unicode text)';
  if (typeof value === 'object') return `an instance of ${(value as object).constructor?.name ?? 'an unknown class'}`;
  return `a ${typeof value}`;
}

// The path (below the argument) of the first value that is not JSON, or undefined when all
// are. The path is built only on the way out of a failure: valid arguments allocate nothing.
// A path ending in KEY names an object whose key is at fault rather than a value.
const KEY = 'key';

function badPath(value: unknown): string[] | undefined {
  switch (typeof value) {
    case 'boolean':
      return undefined;
    case 'string':
      return hasLoneSurrogate(value) ? [] : undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : [];
    case 'object': {
      if (value === null) return undefined;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const below = badPath(value[i]);
          if (below !== undefined) return [`[${i}]`, ...below];
        }
        return undefined;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return [];
      for (const k of Object.keys(value)) {
        if (hasLoneSurrogate(k)) return [KEY];
        const below = badPath((value as Record<string, unknown>)[k]);
        if (below !== undefined) return [`.${k}`, ...below];
      }
      return undefined;
    }
    default:
      return [];
  }
}

function check(value: unknown, where: string): void {
  const path = badPath(value);
  if (path === undefined) return;
  if (path[path.length - 1] === KEY) {
    const at = where + path.slice(0, -1).join('');
    throw new InvalidArgumentsError(`argument ${at} has a key holding a lone surrogate (UTF-16 that is not Unicode text)`, { path: at });
  }
  let bad: unknown = value;
  for (const step of path) bad = (bad as Record<string, unknown>)[step.startsWith('[') ? step.slice(1, -1) : step.slice(1)];
  const at = where + path.join('');
  throw new InvalidArgumentsError(`argument ${at} is ${describe(bad)}, which is not a JSON value`, { path: at });
}

/** Validates statement arguments and returns them as parameters. */
export function toParams(args: unknown): Params {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object' || Array.isArray(args) || (Object.getPrototypeOf(args) !== Object.prototype && Object.getPrototypeOf(args) !== null)) {
    throw new InvalidArgumentsError(`statement arguments must be an object of named values, not ${Array.isArray(args) ? 'an array' : describe(args)}`);
  }
  for (const [k, v] of Object.entries(args)) check(v, `:${k}`);
  return args as Readonly<Record<string, JsonValue>>;
}
