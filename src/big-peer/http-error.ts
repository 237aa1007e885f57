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
