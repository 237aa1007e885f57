/**
 * Decoding the Big Peer's answer to a login, where its bytes arrive. The client decodes every
 * answer as a `LoginResponse` first, as the spec's client does: a refusal therefore reads as
 * `decode error: missing field certificate` (spec 7), and the server's own error, if any, is
 * kept beside it.
 */
import type { ErrorResponse, LoginResponse } from '../../shared/big-peer-api.ts';
import type { PermissionRules } from '../../shared/permissions.ts';

export type Decoded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

type Check = (value: unknown, field: string) => string | undefined;

const kind = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const typed =
  (expected: string, test: (value: unknown) => boolean): Check =>
  (value, field) =>
    test(value) ? undefined : `invalid type for field ${field}: ${kind(value)}, expected ${expected}`;

const string = typed('a string', (v) => typeof v === 'string');
const nonEmptyString = typed('a non-empty string', (v) => typeof v === 'string' && v !== '');
const finiteNumber = typed('a number', (v) => typeof v === 'number' && Number.isFinite(v));

function object(fields: Readonly<Record<string, Check>>): Check {
  return (value, field) => {
    if (!isObject(value)) return `invalid type for field ${field}: ${kind(value)}, expected an object`;
    return firstFault(value, fields, `${field}.`);
  };
}

const rules: Check = (value, field) => {
  const fault = object({ everything: typed('a boolean', (v) => typeof v === 'boolean'), queries_by_collection: object({}) })(value, field);
  if (fault !== undefined) return fault;
  for (const [collection, queries] of Object.entries((value as PermissionRules).queries_by_collection)) {
    if (!Array.isArray(queries) || queries.some((q) => typeof q !== 'string')) {
      return `invalid type for field ${field}.queries_by_collection.${collection}: expected a list of strings`;
    }
  }
  return undefined;
};

const LOGIN_RESPONSE_FIELDS: Readonly<Record<string, Check>> = {
  certificate: object({ claims: nonEmptyString, signature: nonEmptyString }),
  issuerKey: nonEmptyString,
  expiresAt: finiteNumber,
  userID: string,
  permissions: object({ read: rules, write: rules }),
};

function firstFault(value: Record<string, unknown>, fields: Readonly<Record<string, Check>>, prefix = ''): string | undefined {
  for (const [name, check] of Object.entries(fields)) {
    if (!Object.hasOwn(value, name) || value[name] === undefined) return `missing field ${prefix}${name}`;
    const fault = check(value[name], `${prefix}${name}`);
    if (fault !== undefined) return fault;
  }
  return undefined;
}

/** Parses a body as JSON; the error names what was wrong. */
export function parseJson(text: string): Decoded<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    return { ok: false, error: `decode error: the body is not JSON (${(error as Error).message}): ${JSON.stringify(shown)}` };
  }
}

/** A parsed body as a `LoginResponse`, or the first thing missing or mistyped in it. */
export function decodeLoginResponse(body: unknown): Decoded<LoginResponse> {
  if (!isObject(body)) return { ok: false, error: `decode error: invalid type: ${kind(body)}, expected a login response object` };
  const fault = firstFault(body, LOGIN_RESPONSE_FIELDS);
  return fault === undefined ? { ok: true, value: body as unknown as LoginResponse } : { ok: false, error: `decode error: ${fault}` };
}

/** The Big Peer's error, when the body is an `ErrorResponse`. */
export function readErrorResponse(body: unknown): ErrorResponse['error'] | undefined {
  if (!isObject(body) || !isObject(body.error)) return undefined;
  const { code, message } = body.error;
  return typeof code === 'string' && typeof message === 'string' ? { code, message } : undefined;
}
