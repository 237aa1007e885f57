/**
 * What every inspector call answers: a value, or an error as a value. Errors never cross a
 * bridge as thrown exceptions (Electron keeps only an exception's message).
 */
import type { ErrorValue } from '../error-codes.ts';

export type CallResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ErrorValue };

export function okResult<T>(value: T): CallResult<T> {
  return { ok: true, value };
}

export function errorResult<T = never>(error: ErrorValue): CallResult<T> {
  return { ok: false, error };
}
