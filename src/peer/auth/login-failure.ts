/**
 * How a failed login is logged (spec 7) and reported. Every failure ends with `failed to
 * obtain a certificate`; before it come the words of the case:
 * - wrong app id or token, or a webhook's refusal: `AuthClient: failed to get JSON for auth
 *   response: decode error: missing field certificate (…)`, then `No valid Web token present`;
 * - the webhook unreachable or answering malformed JSON: the Big Peer's own message
 *   (`Could not connect to authentication server`, `Failed to authenticate: Internal server
 *   error: …`);
 * - the Big Peer unreachable: a line naming its URL;
 * - a TLS failure reaching it: the spec's name for it (`UnknownIssuer`, `webpki error:
 *   UnsupportedCriticalExtension`), Node's words, the URL, and the spec's cause and fix.
 */
import type { ErrorCode, ErrorValue } from '../../shared/error-codes.ts';
import { LOG_EVENTS } from '../../shared/log.ts';
import type { Logger } from '../log/log-hub.ts';
import type { LoginFailure } from './login-request.ts';
import { describeTlsFailure } from './tls-failure.ts';

export interface ReportedFailure {
  readonly error: ErrorValue;
  /** Asking again later may succeed (no connection, a 5xx); a refusal will not change. */
  readonly transient: boolean;
}

/** Logs the failure's lines, up to but not including `failed to obtain a certificate`. */
export function logLoginFailure(log: Logger, failure: Exclude<LoginFailure, { kind: 'aborted' }>): ReportedFailure {
  switch (failure.kind) {
    case 'unreachable':
      if (failure.tls !== undefined) {
        const { name, code, error, fix } = failure.tls;
        log.error(LOG_EVENTS.tlsConnectFailed, { url: failure.url, name, code, error, fix });
        // May pass: the proxy goes, the network changes, the app logs out and in again.
        return { error: { code: 'auth/unreachable', message: `${describeTlsFailure(failure.tls)}; ${fix}` }, transient: true };
      }
      log.error(LOG_EVENTS.authBigPeerUnreachable, { url: failure.url, error: failure.error });
      return { error: { code: 'auth/unreachable', message: `could not connect to the Big Peer at ${failure.url}: ${failure.error}` }, transient: true };
    case 'server-error': {
      log.error(LOG_EVENTS.authServerError, { status: failure.status, code: failure.code, message: failure.message });
      const code: ErrorCode = failure.code === 'auth/unreachable' ? 'auth/unreachable' : 'auth/failed';
      return { error: { code, message: failure.message }, transient: true };
    }
    case 'undecodable': {
      const server = failure.server === undefined ? `HTTP ${failure.status}` : `HTTP ${failure.status}: ${failure.server.code}: ${failure.server.message}`;
      const error = `${failure.decodeError} (${server})`;
      log.error(LOG_EVENTS.authResponseUndecodable, { status: failure.status, error });
      if (failure.refused) log.error(LOG_EVENTS.authNoValidToken);
      const message = failure.server?.message ?? `the Big Peer's answer is not a certificate: ${error}`;
      // Anything but a refusal (a proxy's error page, say) may pass.
      return { error: { code: 'auth/failed', message }, transient: !failure.refused && failure.status >= 500 };
    }
  }
}
