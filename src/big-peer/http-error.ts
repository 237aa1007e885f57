/**
 * An HTTP answer that is an error: a status and one of the stable error codes. Thrown inside
 * route handlers; the server turns it into the route's error body (never a stack trace).
 */
import type { ErrorCode } from '../shared/error-codes.ts';

export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  /** Extra headers of the answer (`Allow` on a 405). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: ErrorCode, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * Refuses a request body with a top-level field the endpoint does not take (a misspelt field
 * would otherwise be ignored without a word): 400 `http/bad-request` naming each such field and
 * the fields taken. `__proto__` from JSON.parse is an own key, so it is refused like any other.
 */
export function refuseUnknownFields(body: object, known: readonly string[]): void {
  const unknown = Object.keys(body).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  const list = (names: readonly string[]): string => names.map((name) => JSON.stringify(name)).join(', ');
  const taken = known.length === 2 ? `${JSON.stringify(known[0])} and ${JSON.stringify(known[1])}` : list(known);
  throw new HttpError(400, 'http/bad-request', `unknown field${unknown.length === 1 ? '' : 's'} ${list(unknown)} in the body: it takes ${taken}`);
}
