/**
 * `/_sync/auth/login` (spec 4.3, 5, 7). GET is the reachability check: 405, plain text, and the
 * exact CORS headers; OPTIONS answers the preflight with them (204); POST is a small peer's
 * login: the app id, then the playground token or the provider's webhook, then a certificate
 * signed with the Big Peer's issuer key. Every answer on this path carries the CORS headers.
 */
import { BIG_PEER_PATHS, LOGIN_CORS_HEADERS, type LoginRequest, type LoginResponse } from '../../shared/big-peer-api.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import { EVERYTHING, type Permissions } from '../../shared/permissions.ts';
import {
  LOGIN_PROOF_WINDOW_MS,
  loginProofText,
  peerKeyObject,
  signCertificate,
  verifyProof,
  type IssuerKeys,
  type Logger,
  type Timers,
} from '../../peer/host.ts';
import { callWebhook, FAILED_MESSAGE, UNREACHABLE_MESSAGE } from '../auth-webhook.ts';
import type { BigPeerConfig } from '../config.ts';
import { HttpError } from '../http-error.ts';
import { sameSecret } from '../same-secret.ts';
import { jsonError, type Reply, type RequestContext, type Route } from '../http-server.ts';

export const PLAYGROUND_USER_ID = 'playground';
const MAX_FIELD_LENGTH = 8192;

export interface LoginDeps {
  readonly config: BigPeerConfig;
  readonly issuer: IssuerKeys;
  readonly timers: Timers;
  readonly logger: Logger;
}

function readLoginRequest(body: unknown): LoginRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'http/bad-request', 'the login body must be a JSON object {"appID", "peerKey", "token", "provider"?}');
  }
  const b = body as Record<string, unknown>;
  for (const field of ['appID', 'peerKey', 'token'] as const) {
    const value = b[field];
    if (typeof value !== 'string' || value === '' || value.length > MAX_FIELD_LENGTH) {
      throw new HttpError(400, 'http/bad-request', `the login body needs "${field}", a non-empty string`);
    }
  }
  if (b.provider !== undefined && b.provider !== null && (typeof b.provider !== 'string' || b.provider === '')) {
    throw new HttpError(400, 'http/bad-request', '"provider" must be a non-empty string, or absent for the playground');
  }
  if (peerKeyObject(b.peerKey as string) === undefined) {
    throw new HttpError(400, 'http/bad-request', '"peerKey" must be an Ed25519 public key: 43 characters of base64url');
  }
  const proof = b.proof as Record<string, unknown> | null | undefined;
  return {
    appID: b.appID as string,
    peerKey: b.peerKey as string,
    token: b.token as string,
    ...(typeof b.provider === 'string' ? { provider: b.provider } : {}),
    proof: {
      timestamp: typeof proof === 'object' && proof !== null ? (proof.timestamp as number) : Number.NaN,
      signature: typeof proof === 'object' && proof !== null ? (proof.signature as string) : '',
    },
  };
}

/**
 * The caller must show it holds the private key of the peer key the certificate will name:
 * its signature over the login text, with a timestamp near this Big Peer's clock.
 * @throws HttpError 401 before any token is checked or the webhook called.
 */
function checkProof(request: LoginRequest, now: number): void {
  const { timestamp, signature } = request.proof;
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || typeof signature !== 'string' || signature === '') {
    throw new HttpError(401, 'auth/failed', 'the login needs "proof": {"timestamp", "signature"}, signed with the private key of peerKey');
  }
  if (Math.abs(timestamp - now) > LOGIN_PROOF_WINDOW_MS) {
    throw new HttpError(401, 'auth/failed', `the login proof's timestamp is more than ${LOGIN_PROOF_WINDOW_MS / 1000} s from the Big Peer's clock`);
  }
  if (!verifyProof(request.peerKey, loginProofText(request.appID, request.peerKey, timestamp), signature)) {
    throw new HttpError(401, 'auth/failed', 'the login proof is not a valid signature of peerKey');
  }
}

/** A webhook's refusal reason, as the caller sees it: at most this many characters. */
export const MAX_REFUSAL_REASON = 200;

function capReason(reason: string): string {
  const chars = [...reason];
  return chars.length <= MAX_REFUSAL_REASON ? reason : `${chars.slice(0, MAX_REFUSAL_REASON - 1).join('')}…`;
}

/** A webhook URL for the log: no credentials, no query, no fragment. */
export function safeUrl(url: string): string {
  const parsed = URL.parse(url);
  return parsed === null ? '(unparseable URL)' : `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

interface Grant {
  readonly userID: string;
  readonly permissions: Permissions;
  readonly lifetimeSeconds: number;
}

async function authenticate(request: LoginRequest, deps: LoginDeps): Promise<Grant> {
  const { config, logger } = deps;
  if (request.appID !== config.appID) throw new HttpError(401, 'auth/failed', `unknown app id ${request.appID}: this Big Peer does not serve it`);
  if (request.provider === undefined) {
    if (config.playgroundToken === undefined) throw new HttpError(401, 'auth/failed', `playground logins are not enabled for app ${config.appID}`);
    if (!sameSecret(request.token, config.playgroundToken))
      throw new HttpError(401, 'auth/failed', `the playground token is not valid for app ${config.appID}`);
    return { userID: PLAYGROUND_USER_ID, permissions: EVERYTHING, lifetimeSeconds: config.certificateLifetimeSeconds };
  }
  const provider = Object.hasOwn(config.authProviders, request.provider) ? config.authProviders[request.provider] : undefined;
  if (provider === undefined) throw new HttpError(401, 'auth/failed', `unknown authentication provider ${request.provider} for app ${config.appID}`);
  const outcome = await callWebhook(provider.url, { appID: request.appID, provider: request.provider, token: request.token }, config.webhookTimeoutMs);
  switch (outcome.kind) {
    case 'authenticated':
      return {
        userID: outcome.userID,
        permissions: outcome.permissions ?? config.defaultPermissions,
        lifetimeSeconds: outcome.expirationSeconds ?? config.certificateLifetimeSeconds,
      };
    case 'refused':
      throw new HttpError(401, 'auth/failed', capReason(outcome.reason));
    case 'unreachable':
      logger.error(LOG_EVENTS.bigPeerWebhookUnreachable, { provider: request.provider, url: safeUrl(provider.url), error: outcome.detail });
      throw new HttpError(502, 'auth/unreachable', UNREACHABLE_MESSAGE);
    case 'failed':
      logger.error(LOG_EVENTS.bigPeerWebhookFailed, { message: outcome.message, provider: request.provider, url: safeUrl(provider.url) });
      throw new HttpError(502, 'auth/failed', outcome.message.startsWith(FAILED_MESSAGE) ? outcome.message : `${FAILED_MESSAGE}: ${outcome.message}`);
  }
}

async function login(ctx: RequestContext, deps: LoginDeps): Promise<Reply> {
  const request = readLoginRequest(await ctx.json());
  let grant: Grant;
  try {
    checkProof(request, deps.timers.now());
    grant = await authenticate(request, deps);
  } catch (error) {
    // A webhook that failed (502: unreachable, or an answer that is not a usable body) was
    // logged at ERROR where it happened, once; only refusals are logged here, at INFO.
    if (error instanceof HttpError && error.status !== 502) {
      deps.logger.info(LOG_EVENTS.bigPeerLoginRefused, {
        app_id: request.appID,
        provider: request.provider ?? null,
        status: error.status,
        reason: error.message,
      });
    }
    throw error;
  }
  const issuedAt = deps.timers.now();
  const expiresAt = issuedAt + Math.round(grant.lifetimeSeconds * 1000);
  const certificate = signCertificate(
    {
      appID: request.appID,
      peerKey: request.peerKey,
      userID: grant.userID,
      permissions: grant.permissions,
      issuer: deps.issuer.publicKey,
      issuedAt,
      expiresAt,
    },
    deps.issuer,
  );
  deps.logger.info(LOG_EVENTS.bigPeerLoginSucceeded, {
    app_id: request.appID,
    user_id: grant.userID,
    provider: request.provider ?? null,
    peer_key: request.peerKey,
    expires_at: new Date(expiresAt).toISOString(),
  });
  const response: LoginResponse = { certificate, issuerKey: deps.issuer.publicKey, expiresAt, userID: grant.userID, permissions: grant.permissions };
  return { status: 200, json: response };
}

export function loginRoute(deps: LoginDeps): Route {
  return {
    paths: [BIG_PEER_PATHS.login],
    headers: LOGIN_CORS_HEADERS,
    methods: {
      POST: (ctx) => login(ctx, deps),
      OPTIONS: async () => ({ status: 204 }),
    },
    // The reachability check (GET) and every other method: the spec's plain-text 405.
    errorReply: (error) =>
      error.status === 405
        ? { status: 405, headers: { ...error.headers, 'Content-Type': 'text/plain; charset=utf-8' }, text: 'method not allowed' }
        : jsonError(error),
  };
}
