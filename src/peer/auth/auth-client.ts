/**
 * `sync.auth`: the small peer's authentication client (spec 5). It logs in to the Big Peer for a
 * certificate, caches it in the persistence directory, and does not log in again until the
 * certificate nears its expiry. The playground identity logs in by itself with its token; the
 * authenticated identity calls the app's handler at start (no valid certificate) and when the
 * certificate nears or passes its expiry, and never in between. A login failure never throws:
 * it logs the spec's lines (section 7), sets `status.lastError` and leaves the peer running.
 */
import { BIG_PEER_PATHS, type LoginRequest, type LoginResponse } from '../../shared/big-peer-api.ts';
import type { CertificateClaims, SignedCertificate } from '../../shared/certificate.ts';
import type { ErrorCode, ErrorValue } from '../../shared/error-codes.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import type { Permissions } from '../../shared/permissions.ts';
import type { Logger } from '../log/log-hub.ts';
import type { Timers } from '../time.ts';
import { Alarm } from './alarm.ts';
import { CertificateError, verifyCertificate } from './certificate.ts';
import { clearCachedCertificate, clearCachedCertificateNow, readCachedCertificate, writeCachedCertificate, type SettingsAccess } from './certificate-cache.ts';
import { loginUrl, type AuthenticationHandler, type AuthLogin, type LoginOutcome, type OnlineIdentity } from './identity.ts';
import { logLoginFailure } from './login-failure.ts';
import { loginProofText, signProof } from './proof.ts';
import { requestLogin, type FetchLike, type LoginFailure } from './login-request.ts';
import { expiringSoonAt, retryDelayMs, secondsUntil } from './refresh-policy.ts';
import { errorMessage } from '../../shared/error-message.ts';

/** What `sync.auth.status` reports. */
export interface AuthStatus {
  /** A certificate is held and has not expired. */
  readonly authenticated: boolean;
  readonly userID: string | undefined;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number | undefined;
  readonly permissions: Permissions | undefined;
  /** Why the last login failed; cleared by a success or a logout. */
  readonly lastError: ErrorValue | undefined;
}

export interface AuthClientOptions {
  /** Undefined for an offline peer: `start()` does nothing and `login()` fails. */
  readonly identity: OnlineIdentity | undefined;
  readonly peerKey: string;
  /** The peer key's private key (PEM): it signs the login proof (proof.ts). */
  readonly privateKeyPem: string;
  readonly settings: SettingsAccess;
  readonly timers: Timers;
  /** Component `auth`. */
  readonly logger: Logger;
  readonly fetch?: FetchLike;
  /** How long a login request may take (default 30 s, on `timers`). */
  readonly requestTimeoutMs?: number;
  /**
   * Whether the playground's login at `start()` is retried with backoff after a failure that
   * may pass (default true). False where the first failure is final (a command that then
   * exits): nothing is announced or armed. Refresh logins are retried either way.
   */
  readonly retryFirstLogin?: boolean;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

const ABANDONED = 'the login was abandoned by logout() or close()';

interface Held {
  readonly certificate: SignedCertificate;
  readonly issuerKey: string;
  readonly claims: CertificateClaims;
}

export class AuthClient implements AuthLogin {
  readonly #identity: OnlineIdentity | undefined;
  readonly #peerKey: string;
  readonly #privateKeyPem: string;
  readonly #settings: SettingsAccess;
  readonly #timers: Timers;
  readonly #log: Logger;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #retryFirstLogin: boolean;
  readonly #listeners = new Set<(status: AuthStatus) => void>();
  #held: Held | undefined;
  #lastError: ErrorValue | undefined;
  #started: Promise<void> | undefined;
  /** Bumped by logout and close: work begun before is dropped when it finishes. */
  #generation = 0;
  #abort = new AbortController();
  #loginQueue: Promise<unknown> = Promise.resolve();
  #loginsRunning = 0;
  #retryAttempt = 0;
  #closed = false;
  /**
   * Logouts whose clear of the cached certificate has not landed yet. While one is pending the
   * cache is ignored (it may still hold the certificate logged out of), and `close()` clears it
   * at once.
   */
  #clearsPending = 0;
  readonly #alarms: { readonly expiringSoon: Alarm; readonly expired: Alarm; readonly retry: Alarm };

  constructor(options: AuthClientOptions) {
    this.#identity = options.identity;
    this.#peerKey = options.peerKey;
    this.#privateKeyPem = options.privateKeyPem;
    this.#settings = options.settings;
    this.#timers = options.timers;
    this.#log = options.logger;
    this.#fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#retryFirstLogin = options.retryFirstLogin ?? true;
    this.#alarms = { expiringSoon: new Alarm(options.timers), expired: new Alarm(options.timers), retry: new Alarm(options.timers) };
  }

  /** The identity's kind, or `offline`. */
  get identityType(): OnlineIdentity['type'] | 'offline' {
    return this.#identity?.type ?? 'offline';
  }

  get status(): AuthStatus {
    const held = this.#held;
    return {
      authenticated: held !== undefined && held.claims.expiresAt > this.#timers.now(),
      userID: held?.claims.userID,
      expiresAt: held?.claims.expiresAt,
      permissions: held?.claims.permissions,
      lastError: this.#lastError,
    };
  }

  /** The certificate obtained last (possibly expired: see `status`), or undefined before any and after `logout()`. */
  get certificate(): SignedCertificate | undefined {
    return this.#held?.certificate;
  }

  /** The Big Peer's public key (base64url) that peers' certificates are verified against offline. */
  get issuerKey(): string | undefined {
    return this.#held?.issuerKey;
  }

  /** Called with the new status whenever it changes. Returns an unsubscribe function. */
  onStatusChange(listener: (status: AuthStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Starts authentication: uses a valid cached certificate, or else logs in (playground) or
   * calls the handler's `authenticationRequired`. Idempotent: later calls return the first
   * call's promise, until `logout()`. Never rejects. `startSync()` calls it.
   */
  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  /** Logs in with a token (the handler's call; the playground makes it with its own token). */
  login(token: string, provider?: string): Promise<LoginOutcome> {
    return this.#enqueue(token, provider).then((r) => r.outcome);
  }

  /** Logins run one at a time, in call order; one asked for before a logout is dropped. */
  #enqueue(token: string, provider: string | undefined): Promise<{ outcome: LoginOutcome; transient: boolean }> {
    const generation = this.#generation;
    const run = this.#loginQueue.then(() => this.#login(token, provider, generation));
    this.#loginQueue = run.catch(() => undefined);
    return run;
  }

  /**
   * Forgets the certificate and clears it from the persistence directory (spec 4.6, 5.6): no
   * callback fires and nothing is retried; the next `start()` (`startSync()`) authenticates
   * again as at first start. Rejects only if the cache cannot be cleared.
   */
  async logout(): Promise<void> {
    this.#reset();
    this.#started = undefined;
    this.#clearsPending++;
    this.#notify();
    try {
      await clearCachedCertificate(this.#settings);
    } catch (error) {
      // close() landed the clear itself before the store closed: the logout is complete.
      if (this.#clearsPending === 0) return;
      throw error;
    } finally {
      this.#clearsPending = Math.max(0, this.#clearsPending - 1);
    }
    // Only once the clear has landed (the log line says it was cleared).
    this.#emit('INFO', LOG_EVENTS.authLoggedOut);
  }

  /**
   * @internal The Sync is shutting down: stop timers and requests; log nothing more. A logout's
   * clear still waiting is done at once, before the store closes, so that the next open logs in
   * again.
   */
  close(): void {
    if (this.#closed) return;
    if (this.#clearsPending > 0) {
      try {
        if (clearCachedCertificateNow(this.#settings)) {
          this.#clearsPending = 0;
          this.#emit('INFO', LOG_EVENTS.authLoggedOut);
        } else {
          this.#emit('WARN', LOG_EVENTS.authCacheWriteFailed, { error: 'the cached certificate could not be cleared before closing' });
        }
      } catch (error) {
        this.#emit('WARN', LOG_EVENTS.authCacheWriteFailed, { error: errorMessage(error) });
      }
    }
    this.#closed = true;
    this.#reset();
    this.#listeners.clear();
  }

  async #start(): Promise<void> {
    const identity = this.#identity;
    if (identity === undefined || this.#closed) return;
    this.#emit('INFO', LOG_EVENTS.authStarting, { app_id: identity.appID, identity: identity.type });
    const cached = this.#loadCache(identity);
    if (cached !== undefined) {
      this.#held = cached;
      this.#notify();
      this.#emit('DEBUG', LOG_EVENTS.authCachedCertificateUsed, {
        user_id: cached.claims.userID,
        expires_at: new Date(cached.claims.expiresAt).toISOString(),
      });
      this.#scheduleExpiry(cached.claims);
      return;
    }
    if (identity.type === 'onlinePlayground') {
      await this.#playgroundLogin(this.#retryFirstLogin);
    } else {
      this.#emit('INFO', LOG_EVENTS.authRequired, { reason: 'no valid certificate' });
      this.#callHandler(identity.authHandler, 'authenticationRequired');
    }
  }

  /**
   * The cached certificate if it is valid for this app, peer, Big Peer, identity type and
   * provider; logs why one is not used. None while a logout's clear has not landed.
   */
  #loadCache(identity: OnlineIdentity): Held | undefined {
    if (this.#clearsPending > 0) return undefined;
    const appID = identity.appID;
    let read;
    try {
      read = readCachedCertificate(this.#settings);
    } catch (error) {
      this.#emit('WARN', LOG_EVENTS.authCachedCertificateIgnored, { reason: errorMessage(error) });
      return undefined;
    }
    if (read.state === 'absent') return undefined;
    if (read.state === 'unreadable') {
      this.#emit('WARN', LOG_EVENTS.authCachedCertificateIgnored, { reason: read.error });
      return undefined;
    }
    const { certificate, issuerKey } = read.cached;
    const mismatch = cacheMismatch(read.cached, cacheContext(identity));
    if (mismatch !== undefined) {
      this.#emit('INFO', LOG_EVENTS.authCachedCertificateIgnored, { reason: mismatch });
      return undefined;
    }
    try {
      return { certificate, issuerKey, claims: this.#verify(certificate, issuerKey, appID) };
    } catch (error) {
      if (error instanceof CertificateError && error.fault === 'UnknownIssuer') {
        this.#emit('ERROR', LOG_EVENTS.authUnknownIssuer, { trusted_issuer: issuerKey, reason: error.message });
      } else {
        const expired = error instanceof CertificateError && error.fault === 'expired';
        this.#emit(expired ? 'INFO' : 'WARN', LOG_EVENTS.authCachedCertificateIgnored, { reason: errorMessage(error) });
      }
      return undefined;
    }
  }

  #verify(certificate: SignedCertificate, issuerKey: string, appID: string): CertificateClaims {
    const claims = verifyCertificate(certificate, issuerKey, this.#timers.now(), appID);
    if (claims.peerKey !== this.#peerKey) throw new CertificateError('invalid', 'the certificate was issued to another peer key');
    return claims;
  }

  async #login(token: string, provider: string | undefined, generation: number): Promise<{ outcome: LoginOutcome; transient: boolean }> {
    const identity = this.#identity;
    const refuse = (code: ErrorCode, message: string): { outcome: LoginOutcome; transient: boolean } => ({
      outcome: { ok: false, error: { code, message } },
      transient: false,
    });
    if (this.#closed) return refuse('store/closed', 'the Sync is closed');
    if (identity === undefined) return refuse('auth/failed', 'this Sync has no online identity: give it onlinePlayground or onlineWithAuthentication');
    if (typeof token !== 'string') return refuse('auth/failed', 'auth.login takes a token string');
    if (generation !== this.#generation) return refuse('auth/failed', ABANDONED);
    const timestamp = this.#timers.now();
    const request: LoginRequest = {
      appID: identity.appID,
      peerKey: this.#peerKey,
      token,
      ...(identity.type === 'onlineWithAuthentication' ? { provider: provider ?? identity.provider } : provider === undefined ? {} : { provider }),
      proof: { timestamp, signature: signProof(this.#privateKeyPem, loginProofText(identity.appID, this.#peerKey, timestamp)) },
    };
    this.#loginsRunning++;
    let attempt;
    try {
      attempt = await requestLogin({
        fetch: this.#fetch,
        url: loginUrl(identity.bigPeerURL, BIG_PEER_PATHS.login),
        request,
        timers: this.#timers,
        timeoutMs: this.#timeoutMs,
        signal: this.#abort.signal,
      });
    } finally {
      this.#loginsRunning--;
    }
    if (this.#closed || generation !== this.#generation) return refuse('auth/failed', ABANDONED);
    if (!attempt.ok) return this.#failed(attempt.failure);
    return this.#succeeded(attempt.response, identity, generation);
  }

  async #succeeded(response: LoginResponse, identity: OnlineIdentity, generation: number): Promise<{ outcome: LoginOutcome; transient: boolean }> {
    let claims: CertificateClaims;
    try {
      claims = this.#verify(response.certificate, response.issuerKey, identity.appID);
    } catch (error) {
      if (error instanceof CertificateError && error.fault === 'UnknownIssuer') {
        this.#emit('ERROR', LOG_EVENTS.authUnknownIssuer, { trusted_issuer: response.issuerKey, reason: error.message });
      } else {
        this.#emit('ERROR', LOG_EVENTS.authCertificateRejected, { reason: errorMessage(error) });
      }
      return this.#failedWith({ code: 'auth/certificate-invalid', message: errorMessage(error) }, false);
    }
    const held: Held = { certificate: response.certificate, issuerKey: response.issuerKey, claims };
    // The cache is written before anyone hears of the certificate: a listener that logs out
    // queues its clear after this write, so the clear wins (settings writes land in order).
    try {
      await writeCachedCertificate(this.#settings, { certificate: held.certificate, issuerKey: held.issuerKey, ...cacheContext(identity) });
    } catch (error) {
      if (!this.#closed && generation === this.#generation) this.#emit('WARN', LOG_EVENTS.authCacheWriteFailed, { error: errorMessage(error) });
    }
    // A logout (or close) while writing: its clear was queued after the write; drop the certificate.
    if (this.#closed || generation !== this.#generation)
      return { outcome: { ok: false, error: { code: 'auth/failed', message: ABANDONED } }, transient: false };
    this.#held = held;
    this.#lastError = undefined;
    this.#retryAttempt = 0;
    this.#alarms.retry.cancel();
    this.#emit('INFO', LOG_EVENTS.authSucceeded, { user_id: claims.userID, expires_at: new Date(claims.expiresAt).toISOString() });
    this.#scheduleExpiry(claims);
    this.#notify();
    return { outcome: { ok: true, userID: claims.userID, expiresAt: claims.expiresAt }, transient: false };
  }

  /** Logs a failed login as the spec's section 7 does (login-failure.ts). */
  #failed(failure: LoginFailure): { outcome: LoginOutcome; transient: boolean } {
    if (failure.kind === 'aborted') return { outcome: { ok: false, error: { code: 'auth/failed', message: ABANDONED } }, transient: false };
    const { error, transient } = logLoginFailure(this.#log, failure);
    return this.#failedWith(error, transient);
  }

  #failedWith(error: ErrorValue, transient: boolean): { outcome: LoginOutcome; transient: boolean } {
    this.#emit('ERROR', LOG_EVENTS.authCertificateFailed);
    this.#lastError = error;
    this.#notify();
    return { outcome: { ok: false, error }, transient };
  }

  /**
   * The playground's own login; a failure that may pass (no connection, 5xx) is retried with
   * backoff, unless `retry` is false (the first login, where the first failure is final).
   */
  async #playgroundLogin(retry = true): Promise<void> {
    const identity = this.#identity;
    if (identity?.type !== 'onlinePlayground') return;
    this.#alarms.retry.cancel();
    const generation = this.#generation;
    const { outcome, transient } = await this.#enqueue(identity.token, undefined);
    if (outcome.ok || !transient || !retry || this.#closed || generation !== this.#generation) return;
    const delay = retryDelayMs(this.#retryAttempt++);
    this.#emit('INFO', LOG_EVENTS.authRetryScheduled, { seconds: secondsUntil(this.#timers.now() + delay, this.#timers.now()) });
    this.#alarms.retry.arm(this.#timers.now() + delay, () => void this.#playgroundLogin());
  }

  /**
   * @internal Called before dialing. If the certificate has expired but its expiry has not been
   * handled yet (the timer fires late: the machine slept past the expiry), handles it now, as
   * its timer would have: the handler's `authenticationRequired` is called, or the playground
   * logs in again. So the peer re-authenticates first and never dials with a certificate it
   * knows has expired. Does nothing otherwise.
   */
  checkExpiry(): void {
    const held = this.#held;
    if (held === undefined || this.#closed || !this.#alarms.expired.armed || held.claims.expiresAt > this.#timers.now()) return;
    this.#alarms.expiringSoon.cancel();
    this.#alarms.expired.cancel();
    this.#onExpired(held.claims);
  }

  /** Arms the two moments of a certificate's life: expiring soon, and expired. */
  #scheduleExpiry(claims: CertificateClaims): void {
    const soon = expiringSoonAt(claims.issuedAt, claims.expiresAt);
    const generation = this.#generation;
    this.#emit('INFO', LOG_EVENTS.authRefreshScheduled, { seconds: secondsUntil(soon, this.#timers.now()) });
    this.#alarms.expiringSoon.arm(soon, () => {
      if (generation === this.#generation) this.#onExpiringSoon(claims);
    });
    this.#alarms.expired.arm(claims.expiresAt, () => {
      if (generation === this.#generation) this.#onExpired(claims);
    });
  }

  #onExpiringSoon(claims: CertificateClaims): void {
    const identity = this.#identity;
    if (identity === undefined || this.#closed) return;
    const seconds = secondsUntil(claims.expiresAt, this.#timers.now());
    if (identity.type === 'onlinePlayground') {
      this.#emit('INFO', LOG_EVENTS.authExpiringSoon, { seconds, callback: null });
      void this.#playgroundLogin();
      return;
    }
    this.#emit('INFO', LOG_EVENTS.authExpiringSoon, { seconds, callback: 'authenticationExpiringSoon' });
    this.#callHandler(identity.authHandler, 'authenticationExpiringSoon', seconds);
  }

  #onExpired(claims: CertificateClaims): void {
    const identity = this.#identity;
    if (identity === undefined || this.#closed) return;
    this.#emit('WARN', LOG_EVENTS.authExpired, { expires_at: new Date(claims.expiresAt).toISOString() });
    this.#notify();
    if (identity.type === 'onlinePlayground') {
      // One more try unless one is already running or waiting.
      if (this.#loginsRunning === 0 && !this.#alarms.retry.armed) void this.#playgroundLogin();
      return;
    }
    this.#emit('INFO', LOG_EVENTS.authRequired, { reason: 'the certificate expired' });
    this.#callHandler(identity.authHandler, 'authenticationRequired');
  }

  /** Calls back into the app without waiting for it; its failure is logged, never thrown into the peer. */
  #callHandler(handler: AuthenticationHandler, callback: keyof AuthenticationHandler, seconds?: number): void {
    const failed = (error: unknown): void => {
      this.#emit('WARN', LOG_EVENTS.authHandlerFailed, { callback, error: errorMessage(error) });
    };
    try {
      const result = callback === 'authenticationRequired' ? handler.authenticationRequired(this) : handler.authenticationExpiringSoon(this, seconds ?? 0);
      if (result instanceof Promise) result.catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  /** Drops the certificate, timers and requests in flight. */
  #reset(): void {
    this.#generation++;
    this.#abort.abort();
    this.#abort = new AbortController();
    for (const alarm of Object.values(this.#alarms)) alarm.cancel();
    this.#held = undefined;
    this.#lastError = undefined;
    this.#retryAttempt = 0;
  }

  #notify(): void {
    if (this.#listeners.size === 0) return;
    const status = this.status;
    for (const listener of this.#listeners) {
      try {
        listener(status);
      } catch (error) {
        this.#emit('WARN', LOG_EVENTS.listenerFailed, { listener: 'auth.onStatusChange', error: errorMessage(error) });
      }
    }
  }

  #emit(level: 'ERROR' | 'WARN' | 'INFO' | 'DEBUG', event: string, fields: Readonly<Record<string, string | number | null>> = {}): void {
    // Nothing is logged once the Sync has shut down (its last line is `Deallocating`).
    if (!this.#closed) this.#log.log(level, event, fields);
  }
}

interface CacheContext {
  readonly bigPeerURL: string;
  readonly identityType: string;
  readonly provider: string | null;
}

/** What a cached certificate is tied to: the Big Peer, the identity type and the provider. */
function cacheContext(identity: OnlineIdentity): CacheContext {
  return { bigPeerURL: identity.bigPeerURL, identityType: identity.type, provider: identity.type === 'onlineWithAuthentication' ? identity.provider : null };
}

/** Why a cached certificate does not belong to this identity, or undefined when it does. */
function cacheMismatch(cached: Partial<CacheContext>, current: CacheContext): string | undefined {
  const show = (v: string | null | undefined): string => (v === undefined ? '(not recorded)' : v === null ? '(none)' : v);
  if (cached.bigPeerURL !== current.bigPeerURL) return `it was obtained from Big Peer ${show(cached.bigPeerURL)}, not ${current.bigPeerURL}`;
  if (cached.identityType !== current.identityType) return `it was obtained with identity ${show(cached.identityType)}, not ${current.identityType}`;
  if (cached.provider !== current.provider) return `it was obtained with provider ${show(cached.provider)}, not ${show(current.provider)}`;
  return undefined;
}
