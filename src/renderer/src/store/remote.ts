/**
 * Peer data as a panel holds it: not asked yet, on its way, arrived, or failed with an error value.
 * A refresh keeps the last value on screen (`value` stays while `status` is `loading` or `error`),
 * so that a panel never blanks while it refreshes.
 */
import type { ErrorValue } from '../../../shared/error-codes.ts';
import type { CallResult } from '../../../shared/inspector/result.ts';

export interface Remote<T> {
  readonly status: 'idle' | 'loading' | 'ready' | 'error';
  readonly value: T | undefined;
  readonly error: ErrorValue | undefined;
  /** When the value last arrived (the viewer's clock). */
  readonly receivedAt: number | undefined;
}

export function idle<T>(): Remote<T> {
  return { status: 'idle', value: undefined, error: undefined, receivedAt: undefined };
}

/** On its way; the previous value stays. */
export function loading<T>(previous: Remote<T>): Remote<T> {
  return { ...previous, status: 'loading' };
}

/** The answer of a call: its value, or its error beside the previous value. */
export function settle<T>(previous: Remote<T>, result: CallResult<T>, now: number): Remote<T> {
  return result.ok
    ? { status: 'ready', value: result.value, error: undefined, receivedAt: now }
    : { status: 'error', value: previous.value, error: result.error, receivedAt: previous.receivedAt };
}

/** Whether the first answer is still awaited (nothing to show yet). */
export function isFirstLoad(remote: Remote<unknown>): boolean {
  return remote.value === undefined && (remote.status === 'idle' || remote.status === 'loading');
}
