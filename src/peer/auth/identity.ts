/**
 * The identities a peer can take (spec 2.7). Without one, a peer is offline: it neither logs in
 * nor holds a certificate. `onlinePlayground` logs in by itself with the portal's playground
 * token; `onlineWithAuthentication` leaves logging in to the app's authentication handler, which
 * the peer calls at start and when the certificate nears or passes its expiry (spec 5.5).
 */
import type { ErrorValue } from '../../shared/error-codes.ts';
import { SyncError } from '../errors.ts';

/** What `auth.login` resolves to: the new status, or why no certificate was obtained. */
export type LoginOutcome = { readonly ok: true; readonly userID: string; readonly expiresAt: number } | { readonly ok: false; readonly error: ErrorValue };

/** The part of `sync.auth` a handler is given. */
export interface AuthLogin {
  /**
   * Asks the Big Peer for a certificate with the token the app got from its identity service,
   * checked by the webhook of `provider`. Never throws for a refused or failed login: it logs
   * the spec's lines and resolves with `ok: false`.
   */
  login(token: string, provider?: string): Promise<LoginOutcome>;
}

/**
 * The app's side of `onlineWithAuthentication`: both callbacks are required (spec 5.5). They are
 * called only when the peer starts without a valid certificate (`authenticationRequired`), when
 * the certificate nears its expiry (`authenticationExpiringSoon`) and when it has expired
 * (`authenticationRequired`); never in between. Neither is awaited: log in when ready.
 */
export interface AuthenticationHandler {
  authenticationRequired(auth: AuthLogin): void | Promise<void>;
  authenticationExpiringSoon(auth: AuthLogin, secondsRemaining: number): void | Promise<void>;
}

export interface OnlinePlaygroundIdentity {
  readonly type: 'onlinePlayground';
  /** The app id, copied from the portal; every device of the app uses the same one. */
  readonly appID: string;
  /** The playground token, copied from the portal. */
  readonly token: string;
  /** The Big Peer's base URL (`{base_url}`), e.g. `https://cloud.example.com`. */
  readonly bigPeerURL: string;
}

export interface OnlineWithAuthenticationIdentity {
  readonly type: 'onlineWithAuthentication';
  readonly appID: string;
  readonly bigPeerURL: string;
  /** The provider name configured on the Big Peer; the handler passes it to `auth.login`. */
  readonly provider: string;
  /**
   * Held strongly by the Sync for as long as it lives (spec 5.5): keep the Sync in a long-lived
   * variable and the handler lives with it.
   */
  readonly authHandler: AuthenticationHandler;
}

export type OnlineIdentity = OnlinePlaygroundIdentity | OnlineWithAuthenticationIdentity;

/** The identity of a development app: global read and write, no webhook. */
export function onlinePlayground(fields: Omit<OnlinePlaygroundIdentity, 'type'>): OnlinePlaygroundIdentity {
  return { type: 'onlinePlayground', ...fields };
}

/** The identity of a production app: tokens checked by the provider's webhook through the handler. */
export function onlineWithAuthentication(fields: Omit<OnlineWithAuthenticationIdentity, 'type'>): OnlineWithAuthenticationIdentity {
  return { type: 'onlineWithAuthentication', ...fields };
}

const CALLBACKS = ['authenticationRequired', 'authenticationExpiringSoon'] as const;

/**
 * Refuses an identity that cannot work, before anything is opened: a handler lacking a callback
 * (`auth/handler-invalid`, naming it), and fields of the wrong type or an unusable URL (a
 * `TypeError`: a programming mistake, not a condition to handle).
 */
export function validateIdentity(identity: OnlineIdentity): void {
  const fail = (what: string): never => {
    throw new TypeError(`the ${String(identity?.type)} identity needs ${what}`);
  };
  if (identity === null || typeof identity !== 'object') throw new TypeError('identity must be an object');
  if (identity.type !== 'onlinePlayground' && identity.type !== 'onlineWithAuthentication') {
    throw new TypeError(`identity.type must be 'onlinePlayground' or 'onlineWithAuthentication', not ${String((identity as { type?: unknown }).type)}`);
  }
  if (typeof identity.appID !== 'string' || identity.appID === '') fail('a non-empty appID');
  if (typeof identity.bigPeerURL !== 'string' || !isHttpUrl(identity.bigPeerURL)) fail('bigPeerURL, an http or https URL');
  if (identity.type === 'onlinePlayground') {
    if (typeof identity.token !== 'string' || identity.token === '') fail('a non-empty playground token');
    return;
  }
  if (typeof identity.provider !== 'string' || identity.provider === '') fail('a non-empty provider name');
  const handler = identity.authHandler as Partial<AuthenticationHandler> | null | undefined;
  const missing = CALLBACKS.filter((name) => typeof handler?.[name] !== 'function');
  if (missing.length > 0) {
    throw new SyncError(
      'auth/handler-invalid',
      `the authentication handler must implement both authenticationRequired and authenticationExpiringSoon; it lacks ${missing.join(' and ')}`,
      { details: { missing } },
    );
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** `{base_url}/_sync/auth/login`, keeping any path prefix of the base URL. */
export function loginUrl(bigPeerURL: string, path: string): string {
  const url = new URL(bigPeerURL);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.search = '';
  url.hash = '';
  return url.toString();
}
