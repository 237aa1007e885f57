/**
 * TLS failures as the spec names them (section 7), from Node's errors. Node reports a refused
 * certificate with OpenSSL's words ("self-signed certificate", "unable to verify the first
 * certificate", "unhandled critical extension") and a code; the spec speaks of a TLS connect
 * failure with `UnknownIssuer`, and of the TLS error `webpki error: UnsupportedCriticalExtension`,
 * each with its fix. Both the login (fetch) and the dialer (ws) use this; Node's words follow
 * the spec's name, so nothing it said is lost.
 *
 * This is not the `UnknownIssuer` of a cached peer certificate issued by another Big Peer key
 * (auth-client.ts): that one is this peer's own check of its certificate, not TLS.
 */

/** The spec's names for the TLS failures it lists. */
export type TlsFailureName = 'UnknownIssuer' | 'webpki error: UnsupportedCriticalExtension';

export interface TlsFailure {
  readonly name: TlsFailureName;
  /** Node's code (`DEPTH_ZERO_SELF_SIGNED_CERT`, …; `UNSPECIFIED` for the critical extension). */
  readonly code: string;
  /** Node's message, whole. */
  readonly error: string;
  /** What to do, as the spec says. */
  readonly fix: string;
}

/**
 * Node's codes for a chain that does not lead to a trusted issuer: an outdated certificate, a
 * server of unknown issuer, or a proxy (a company's TLS inspection) substituting its own.
 */
const UNKNOWN_ISSUER_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/**
 * OpenSSL's X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION (34). Node has no code for it: it sets
 * `code` to `UNSPECIFIED` and the message to OpenSSL's text, so the text identifies it.
 */
const CRITICAL_EXTENSION_TEXT = 'unhandled critical extension';
const CRITICAL_EXTENSION_CODE = 'UNHANDLED_CRITICAL_EXTENSION';

/** The spec's cause and fix of each (section 7), in its order: what it means, then what to do. */
export const TLS_FIXES: Readonly<Record<TlsFailureName, string>> = {
  UnknownIssuer:
    'an outdated local certificate, or a proxy substituting its own certificate: call sync.auth.logout() and reconnect; ' +
    "or unblock the host at the proxy, or add the proxy's CA to the trusted store " +
    '(start Node with NODE_EXTRA_CA_CERTS=<PEM file of the CA>, or with --use-system-ca when the CA is in the system store)',
  'webpki error: UnsupportedCriticalExtension':
    'a corrupted certificate chain (a certificate in it has a critical extension that cannot be checked): ' +
    'reset the certificate chain (on desktop, reset the default keychains; check the CA file NODE_EXTRA_CA_CERTS names), ' +
    'or have the server present a certificate without that extension',
};

/** The spec's TLS failure in `error` or its causes (fetch wraps it), or undefined for anything else. */
export function tlsFailureOf(error: unknown): TlsFailure | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    const found = classify(current);
    if (found !== undefined) return found;
    if (current instanceof AggregateError) {
      for (const inner of current.errors) {
        const nested = tlsFailureOf(inner);
        if (nested !== undefined) return nested;
      }
    }
    current = current.cause;
  }
  return undefined;
}

function classify(error: Error): TlsFailure | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  const name: TlsFailureName | undefined = UNKNOWN_ISSUER_CODES.has(code)
    ? 'UnknownIssuer'
    : code === CRITICAL_EXTENSION_CODE || (code === 'UNSPECIFIED' && error.message.startsWith(CRITICAL_EXTENSION_TEXT))
      ? 'webpki error: UnsupportedCriticalExtension'
      : undefined;
  return name === undefined ? undefined : { name, code, error: error.message, fix: TLS_FIXES[name] };
}

/**
 * The failure in one line, the spec's name first and Node's words after it:
 * `TLS connect failure: UnknownIssuer: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)`,
 * `TLS error: webpki error: UnsupportedCriticalExtension: unhandled critical extension`.
 */
export function describeTlsFailure(failure: Pick<TlsFailure, 'name' | 'code' | 'error'>): string {
  const kind = failure.name === 'UnknownIssuer' ? 'TLS connect failure' : 'TLS error';
  return `${kind}: ${shortTlsFailure(failure)}`;
}

/** `UnknownIssuer: <Node's words> (<code>)`: the form in StreamFailed lines. */
export function shortTlsFailure(failure: Pick<TlsFailure, 'name' | 'code' | 'error'>): string {
  const code = failure.code === 'UNSPECIFIED' ? '' : ` (${failure.code})`;
  return `${failure.name}: ${failure.error}${code}`;
}
