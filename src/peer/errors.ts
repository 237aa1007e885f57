import type { SourcePosition } from '../shared/dql/source-position.ts';
import type { ErrorCode, ErrorValue } from '../shared/error-codes.ts';
import { errorMessage } from '../shared/error-message.ts';

export interface SyncErrorOptions {
  readonly details?: unknown;
  readonly cause?: unknown;
}

/** Base of every error the peer throws: a stable `code`, a message for people, optional details. */
export class SyncError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, options: SyncErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details;
  }

  /** The error as a value, the only form in which it crosses a boundary. */
  toValue(): ErrorValue {
    return this.details === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, details: this.details };
  }
}

/** Where in a statement something was found (defined beside the DQL lexer, in src/shared/dql). */
export type { SourcePosition };

/** A statement that is empty, malformed or names something unknown (`query/invalid`). */
export class ParseError extends SyncError {
  readonly position: SourcePosition | undefined;
  constructor(message: string, position?: SourcePosition, details?: Record<string, unknown>) {
    super('query/invalid', message, {
      details: position === undefined ? details : { ...details, line: position.line, column: position.column },
    });
    this.position = position;
  }
}

/** A valid statement that failed while it ran (`query/evaluation`). */
export class QueryEvaluationError extends SyncError {
  constructor(message: string, details?: unknown) {
    super('query/evaluation', message, { details });
  }
}

/** A valid statement used where it is not allowed (`query/unsupported`). */
export class UnsupportedQueryError extends SyncError {
  constructor(message: string, details?: unknown) {
    super('query/unsupported', message, { details });
  }
}

/** Statement arguments of an unsupported type (`query/arguments-invalid`). */
export class InvalidArgumentsError extends SyncError {
  constructor(message: string, details?: unknown) {
    super('query/arguments-invalid', message, { details });
  }
}

/** The peer's permissions do not allow what was asked (`sync/permission-denied`). */
export class PermissionDeniedError extends SyncError {
  constructor(message: string, details?: unknown) {
    super('sync/permission-denied', message, { details });
  }
}

/** Errors of the persistence directory and its database. */
export class StoreError extends SyncError {}

/** Converts anything thrown into an error value, keeping the code of our own errors. */
export function toErrorValue(error: unknown): ErrorValue {
  if (error instanceof SyncError) return error.toValue();
  const message = errorMessage(error);
  return { code: 'internal/unexpected', message };
}
