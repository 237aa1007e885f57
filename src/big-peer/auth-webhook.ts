/**
 * The call to an app owner's authentication webhook (spec 4.5, 5, 7; design big-peer-api.md):
 * POST `{appID, provider, token}` as JSON; the answer is
 *   `{authenticated: true, userID, expirationSeconds?, permissions?: {read, write}}` or
 *   `{authenticated: false}` (`authenticate` is taken as a synonym).
 * An unreachable webhook, and one that answers an empty, non-JSON or malformed body, are
 * failures with the spec's words, which the login route answers with 502 and logs.
 */
import type { Permissions } from '../shared/permissions.ts';
import { readPermissions } from './permission-rules.ts';

/** A webhook answer larger than this is a failure, not read to its end. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const MAX_EXPIRATION_SECONDS = 366 * 86_400;

export const UNREACHABLE_MESSAGE = 'Could not connect to authentication server';
export const FAILED_MESSAGE = 'Failed to authenticate: Internal server error';

export type WebhookOutcome =
  | {
      readonly kind: 'authenticated';
      readonly userID: string;
      readonly expirationSeconds: number | undefined;
      readonly permissions: Permissions | undefined;
    }
  | { readonly kind: 'refused'; readonly reason: string }
  /** Could not connect, or no answer in time: `detail` says which, for the server's log. */
  | { readonly kind: 'unreachable'; readonly detail: string }
  /** Answered, but not with a usable body: `message` is the spec's text with the decode error. */
  | { readonly kind: 'failed'; readonly message: string };

export interface WebhookRequest {
  readonly appID: string;
  readonly provider: string;
  readonly token: string;
}

function failed(detail: string): WebhookOutcome {
  return { kind: 'failed', message: `${FAILED_MESSAGE}: ${detail}` };
}

async function readLimited(response: Response): Promise<string | undefined> {
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a webhook's answer body into an outcome. */
export function decodeWebhookAnswer(text: string): WebhookOutcome {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return failed(`response body cannot be decoded as JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return failed('response body is malformed: it is not a JSON object');
  const answer = value as Record<string, unknown>;
  const authenticated = answer.authenticated ?? answer.authenticate;
  if (typeof authenticated !== 'boolean') return failed('response body is malformed: "authenticated" must be true or false');
  if (!authenticated) return { kind: 'refused', reason: typeof answer.reason === 'string' ? answer.reason : 'the authentication webhook refused the token' };
  if (typeof answer.userID !== 'string' || answer.userID === '' || answer.userID.length > 1024) {
    return failed('response body is malformed: "userID" must be a non-empty string');
  }
  const expiration = answer.expirationSeconds;
  if (expiration !== undefined && !(typeof expiration === 'number' && expiration > 0 && expiration <= MAX_EXPIRATION_SECONDS)) {
    return failed(`response body is malformed: "expirationSeconds" must be a number of seconds from 1 to ${MAX_EXPIRATION_SECONDS}`);
  }
  let permissions: Permissions | undefined;
  if (answer.permissions !== undefined) {
    const read = readPermissions(answer.permissions, 'permissions');
    if (typeof read === 'string') return failed(`response body is malformed: ${read}`);
    permissions = read;
  }
  return { kind: 'authenticated', userID: answer.userID, expirationSeconds: expiration, permissions };
}

/** POSTs the login to the webhook and reads its answer; never throws. */
export async function callWebhook(url: string, body: WebhookRequest, timeoutMs: number): Promise<WebhookOutcome> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      // A redirect is not followed (it could send the token elsewhere): it is a failure.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } };
    const detail = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { kind: 'unreachable', detail };
  }
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status <= 399)) {
    await response.body?.cancel().catch(() => {});
    return failed('the webhook answered with a redirect');
  }
  let text: string | undefined;
  try {
    text = await readLimited(response);
  } catch (error) {
    return { kind: 'unreachable', detail: `the answer was cut off: ${(error as Error).message}` };
  }
  if (response.status === 401 || response.status === 403) return { kind: 'refused', reason: `the authentication webhook answered HTTP ${response.status}` };
  if (response.status < 200 || response.status > 299) return failed(`the authentication webhook answered HTTP ${response.status}`);
  if (text === undefined) return failed(`response body is larger than ${MAX_ANSWER_BYTES} bytes`);
  return decodeWebhookAnswer(text);
}
