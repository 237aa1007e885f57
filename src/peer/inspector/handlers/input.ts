/**
 * Checks of what a call brought, before anything runs: a wrong type, a missing field or a field
 * the channel does not take is refused with `inspector/bad-request` and a message that names
 * the field. Input arrives from a window or a browser tab: it is never trusted.
 */
import type { JsonObject } from '../../../shared/json.ts';
import { LOG_LEVELS, type LogLevel } from '../../../shared/log.ts';
import { MAX_VALUE_DEPTH } from '../../../shared/protocol/messages.ts';
import { SyncError } from '../../errors.ts';

/** An inspector call that cannot be served as asked (`inspector/bad-request`, `inspector/not-found`). */
export class InspectorError extends SyncError {}

export function badRequest(message: string, details?: unknown): InspectorError {
  return new InspectorError('inspector/bad-request', message, { details });
}

export function notFound(message: string, details?: unknown): InspectorError {
  return new InspectorError('inspector/not-found', message, { details });
}

/** A call on a closed session or inspector: nothing ran (`inspector/closed`). */
export function closedError(message: string): InspectorError {
  return new InspectorError('inspector/closed', message);
}

/** A hold released before it got the write slot (`inspector/cancelled`). */
export function cancelled(message: string): InspectorError {
  return new InspectorError('inspector/cancelled', message);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * The input as an object holding only `allowed` keys. `undefined` counts as `{}` (a bridge may
 * send no input for a call that takes none).
 */
export function objectInput(input: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (input === undefined) return {};
  if (!isPlainObject(input)) throw badRequest(`input: expected an object, got ${kind(input)}`);
  for (const key of Object.keys(input)) {
    if (!allowed.includes(key)) {
      throw badRequest(`${key}: this call takes no such field${allowed.length === 0 ? ' (it takes no input)' : ` (it takes ${allowed.join(', ')})`}`);
    }
  }
  return input;
}

/** For a call that takes nothing: `{}` or no input. */
export function emptyInput(input: unknown): void {
  objectInput(input, []);
}

export function requiredString(input: Record<string, unknown>, field: string, options: { maxLength?: number; nonEmpty?: boolean } = {}): string {
  const value = input[field];
  if (value === undefined) throw badRequest(`${field}: missing (a string is required)`);
  return checkString(value, field, options);
}

export function optionalString(input: Record<string, unknown>, field: string, options: { maxLength?: number } = {}): string | undefined {
  const value = input[field];
  return value === undefined ? undefined : checkString(value, field, options);
}

function checkString(value: unknown, field: string, options: { maxLength?: number; nonEmpty?: boolean }): string {
  if (typeof value !== 'string') throw badRequest(`${field}: expected a string, got ${kind(value)}`);
  if (options.nonEmpty === true && value.trim() === '') throw badRequest(`${field}: must not be empty`);
  const max = options.maxLength ?? 1_000_000;
  if (value.length > max) throw badRequest(`${field}: longer than ${max} characters`);
  return value;
}

export function requiredInteger(input: Record<string, unknown>, field: string, min: number, max: number): number {
  const value = input[field];
  if (value === undefined) throw badRequest(`${field}: missing (an integer from ${min} to ${max} is required)`);
  return checkInteger(value, field, min, max);
}

export function optionalInteger(input: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const value = input[field];
  return value === undefined ? undefined : checkInteger(value, field, min, max);
}

function checkInteger(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw badRequest(`${field}: expected an integer, got ${typeof value === 'number' ? String(value) : kind(value)}`);
  if (value < min || value > max) throw badRequest(`${field}: ${value} is out of range (${min} to ${max})`);
  return value;
}

/** Statement arguments: a plain JSON object (the store checks the values themselves). */
export function optionalArgs(input: Record<string, unknown>, field: string): JsonObject | undefined {
  const value = input[field];
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw badRequest(`${field}: expected an object of named arguments, got ${kind(value)}`);
  return value as JsonObject;
}

/**
 * Does `value` nest objects or arrays deeper than `max` levels (the value itself at level 0)?
 * Walked without recursion, so that a value thousands of levels deep cannot overflow the stack.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A document `_id` as DQL takes it: a string, or an object (compound id); never anything else. */
export function documentId(input: Record<string, unknown>, field: string): string | JsonObject {
  const value = input[field];
  if (value === undefined) throw badRequest(`${field}: missing (a document _id, a string or an object, is required)`);
  if (typeof value === 'string') return value;
  if (isPlainObject(value)) {
    if (nestsDeeperThan(value, MAX_VALUE_DEPTH)) throw badRequest(`${field}: nests deeper than ${MAX_VALUE_DEPTH} levels (no document _id can)`);
    return value as JsonObject;
  }
  throw badRequest(`${field}: expected a string or an object, got ${kind(value)}`);
}

/** A log level in any letter case (`debug`), as `SyncLogger.minimumLogLevel` takes it. */
export function logLevel(input: Record<string, unknown>, field: string): LogLevel {
  const value = input[field];
  if (value === undefined) throw badRequest(`${field}: missing (one of ${LOG_LEVELS.join(', ')})`);
  if (typeof value !== 'string') throw badRequest(`${field}: expected one of ${LOG_LEVELS.join(', ')}, got ${kind(value)}`);
  const upper = value.toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(upper))
    throw badRequest(`${field}: expected one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(value.slice(0, 40))}`);
  return upper as LogLevel;
}
