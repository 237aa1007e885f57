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

function check(value: unknown, where: string): void {
  switch (typeof value) {
    case 'string':
      if (!hasLoneSurrogate(value)) return;
      break;
    case 'boolean':
      return;
    case 'number':
      if (Number.isFinite(value)) return;
      break;
    case 'object': {
      if (value === null) return;
      if (Array.isArray(value)) {
        value.forEach((v, i) => check(v, `${where}[${i}]`));
        return;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto === Object.prototype || proto === null) {
        for (const [k, v] of Object.entries(value)) {
          if (hasLoneSurrogate(k)) {
            throw new InvalidArgumentsError(`argument ${where} has a key holding a lone surrogate (UTF-16 that is not Unicode text)`, { path: where });
          }
          check(v, `${where}.${k}`);
        }
        return;
      }
      break;
    }
  }
  throw new InvalidArgumentsError(`argument ${where} is ${describe(value)}, which is not a JSON value`, { path: where });
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
