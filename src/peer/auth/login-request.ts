/**
 * One login request to the Big Peer (`POST {base_url}/_sync/auth/login`, big-peer-api.ts), and
 * what came of it, sorted into the cases the client logs differently (spec 7): no connection,
 * an answer that is not a certificate (a refusal among them), and the Big Peer's own report
 * that the webhook failed.
 */
import type { LoginRequest, LoginResponse } from '../../shared/big-peer-api.ts';
import type { Timers } from '../time.ts';
import { decodeLoginResponse, parseJson, readErrorResponse } from './decode-login-response.ts';
import { tlsFailureOf, type TlsFailure } from './tls-failure.ts';
import { errorMessage } from '../../shared/error-message.ts';

/** The part of `fetch` the client uses; `globalThis.fetch` is one. */
export type FetchLike = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ readonly status: number; text(): Promise<string> }>;

export type LoginFailure =
  /** No answer: refused connection, unknown host, timeout, or a TLS failure (`tls`: the spec's name for it). */
  | { readonly kind: 'unreachable'; readonly url: string; readonly error: string; readonly tls?: TlsFailure }
  /** An answer that does not decode as a certificate. `refused` when the Big Peer refused the credentials (401, 403). */
  | {
      readonly kind: 'undecodable';
      readonly status: number;
      readonly decodeError: string;
      readonly server: { readonly code: string; readonly message: string } | undefined;
      readonly refused: boolean;
    }
  /** The Big Peer's own error (5xx): the webhook unreachable or answering malformed JSON. */
  | { readonly kind: 'server-error'; readonly status: number; readonly code: string; readonly message: string }
  /** The client was closed or logged out while the request ran. */
  | { readonly kind: 'aborted' };

export type LoginAttempt = { readonly ok: true; readonly response: LoginResponse } | { readonly ok: false; readonly failure: LoginFailure };

export interface LoginRequestOptions {
  readonly fetch: FetchLike;
  readonly url: string;
  readonly request: LoginRequest;
  readonly timers: Timers;
  readonly timeoutMs: number;
  /** Aborts the request when the client closes. */
  readonly signal: AbortSignal;
}

class TimedOut extends Error {}

export async function requestLogin(options: LoginRequestOptions): Promise<LoginAttempt> {
  const timeout = new AbortController();
  const timer = options.timers.setTimeout(
    () => timeout.abort(new TimedOut(`no answer within ${Math.round(options.timeoutMs / 1000)} seconds`)),
    options.timeoutMs,
  );
  const signal = AbortSignal.any([options.signal, timeout.signal]);
  const fail = (failure: LoginFailure): LoginAttempt => ({ ok: false, failure });
  try {
    let status: number;
    let text: string;
    try {
      const response = await options.fetch(options.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(options.request),
        signal,
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (options.signal.aborted) return fail({ kind: 'aborted' });
      if (timeout.signal.aborted) return fail({ kind: 'unreachable', url: options.url, error: (timeout.signal.reason as Error).message });
      const tls = tlsFailureOf(error);
      return fail({ kind: 'unreachable', url: options.url, error: describeNetworkError(error), ...(tls === undefined ? {} : { tls }) });
    }
    const parsed = parseJson(text);
    const decoded = parsed.ok ? decodeLoginResponse(parsed.value) : parsed;
    if (decoded.ok && status >= 200 && status < 300) return { ok: true, response: decoded.value };
    const server = parsed.ok ? readErrorResponse(parsed.value) : undefined;
    if (status >= 500 && server !== undefined) return fail({ kind: 'server-error', status, code: server.code, message: server.message });
    const decodeError = decoded.ok ? `decode error: unexpected HTTP status ${status} for a login response` : decoded.error;
    return fail({ kind: 'undecodable', status, decodeError, server, refused: status === 401 || status === 403 });
  } finally {
    options.timers.clearTimeout(timer);
  }
}

/** The most telling message of a network error: undici's `fetch failed` hides it in `cause`. */
export function describeNetworkError(error: unknown): string {
  let current: unknown = error;
  let message = errorMessage(error);
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause;
    if (current instanceof AggregateError && current.errors.length > 0) {
      message = current.errors.map((e: unknown) => errorMessage(e)).join('; ');
      break;
    }
    if (current instanceof Error && current.message !== '') message = current.message;
  }
  return message;
}
