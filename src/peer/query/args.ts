/**
 * Statement arguments and documents coming in: plain JSON (null, booleans, finite numbers,
 * strings of Unicode text, arrays, plain objects), nested at most MAX_JSON_DEPTH deep, with no
 * `__proto__` key and no argument of that name (JavaScript objects cannot hold it as plain data).
 * Anything else is refused with a typed error naming where it is, rather than silently converted
 * or crashing.
 */
import type { JsonValue } from '../../shared/json.ts';
import type { Params } from '../dql/evaluate.ts';
import { hasLoneSurrogate } from '../dql/values.ts';
import { InvalidArgumentsError } from '../errors.ts';

/** How deep arrays and objects may nest in a document or an argument. */
export const MAX_JSON_DEPTH = 100;

/** Keys refused in documents: JavaScript treats them as the object's prototype, not as data. */
export const FORBIDDEN_KEY = '__proto__';

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value instanceof Date) return 'a Date (pass an ISO 8601 string instead)';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return 'a string holding a lone surrogate (UTF-16 that is not Unicode text)';
  if (typeof value === 'object') return `an instance of ${(value as object).constructor?.name ?? 'an unknown class'}`;
  return `a ${typeof value}`;
}

/** What is wrong with a JSON value, and where below it; undefined when nothing is. */
export interface JsonFault {
  readonly path: string;
  readonly problem: string;
}

interface Frame {
  readonly value: unknown;
  readonly parent: Frame | undefined;
  readonly step: string;
  readonly depth: number;
}

function pathOf(frame: Frame): string {
  const steps: string[] = [];
  for (let f: Frame | undefined = frame; f !== undefined; f = f.parent) steps.push(f.step);
  return steps.reverse().join('');
}

/**
 * Finds the first fault of a value, without recursion (so depth cannot overflow the stack).
 * `maxDepth` is how deep the value may nest (less than MAX_JSON_DEPTH where it goes below a path).
 */
export function findJsonFault(root: unknown, maxDepth: number = MAX_JSON_DEPTH): JsonFault | undefined {
  const stack: Frame[] = [{ value: root, parent: undefined, step: '', depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const { value } = frame;
    switch (typeof value) {
      case 'boolean':
        continue;
      case 'string':
        if (hasLoneSurrogate(value)) return { path: pathOf(frame), problem: describe(value) };
        continue;
      case 'number':
        if (Number.isFinite(value)) continue;
        return { path: pathOf(frame), problem: describe(value) };
      case 'object': {
        if (value === null) continue;
        if (frame.depth >= maxDepth) return { path: pathOf(frame), problem: `nested more than ${MAX_JSON_DEPTH} levels deep in its document` };
        if (Array.isArray(value)) {
          for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: frame, step: `[${i}]`, depth: frame.depth + 1 });
          continue;
        }
        const proto = Object.getPrototypeOf(value) as unknown;
        if (proto !== Object.prototype && proto !== null) return { path: pathOf(frame), problem: describe(value) };
        const keys = Object.keys(value);
        for (let i = keys.length - 1; i >= 0; i--) {
          const k = keys[i] as string;
          if (hasLoneSurrogate(k)) return { path: pathOf(frame), problem: 'an object with a key holding a lone surrogate (UTF-16 that is not Unicode text)' };
          if (k === FORBIDDEN_KEY) return { path: pathOf(frame), problem: `an object with a "${FORBIDDEN_KEY}" key, which cannot be stored as data` };
          stack.push({ value: (value as Record<string, unknown>)[k], parent: frame, step: `.${k}`, depth: frame.depth + 1 });
        }
        continue;
      }
      default:
        return { path: pathOf(frame), problem: describe(value) };
    }
  }
  return undefined;
}

/**
 * Validates statement arguments and returns them as parameters: a copy of the object's own
 * enumerable values (so only those can be bound), each checked, in an object without a
 * prototype. An argument named `__proto__` is refused (`query/arguments-invalid`).
 */
export function toParams(args: unknown): Params {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object' || Array.isArray(args) || (Object.getPrototypeOf(args) !== Object.prototype && Object.getPrototypeOf(args) !== null)) {
    throw new InvalidArgumentsError(`statement arguments must be an object of named values, not ${Array.isArray(args) ? 'an array' : describe(args)}`);
  }
  const params = Object.create(null) as Record<string, JsonValue>;
  for (const [name, value] of Object.entries(args)) {
    // JSON.parse (an HTTP body, a CLI line) makes "__proto__" an own key; as a name it is refused
    // like everywhere else, not bound. Other names of Object.prototype members (`constructor`,
    // `toString`) are ordinary: `params` has no prototype and is read by own keys only.
    if (name === FORBIDDEN_KEY) {
      throw new InvalidArgumentsError(
        `argument :${FORBIDDEN_KEY} has a name that is refused: JavaScript objects cannot hold "${FORBIDDEN_KEY}" as plain data; use another name`,
        { path: `:${FORBIDDEN_KEY}` },
      );
    }
    const fault = findJsonFault(value);
    if (fault !== undefined) {
      const at = `:${name}${fault.path}`;
      throw new InvalidArgumentsError(`argument ${at} is ${fault.problem}, which is not a JSON value SyncMesh stores`, { path: at });
    }
    params[name] = value as JsonValue;
  }
  return params;
}
