/**
 * The certificate cached in the persistence directory (the store's settings), with the key of
 * the Big Peer that issued it: at the next start the peer uses it without logging in again, and
 * verifies peers' certificates offline against that key. `logout()` clears it (spec 4.6, 5.6).
 */
import type { SignedCertificate } from '../../shared/certificate.ts';

/** The narrow access to the store's settings the auth client needs. */
export interface SettingsAccess {
  get(key: string): string | undefined;
  set(entries: Readonly<Record<string, string>>): Promise<void>;
  /**
   * Writes at once, outside the write slot: only for `close()`, which must land a logout's
   * clear that is still waiting before the store closes. Throws if it cannot.
   */
  setNow?(entries: Readonly<Record<string, string>>): void;
}

export interface CachedCertificate {
  readonly certificate: SignedCertificate;
  /** The Big Peer's public key (base64url), as it gave it at login. */
  readonly issuerKey: string;
  /** What the certificate was obtained for: a cache obtained otherwise is not used. */
  readonly bigPeerURL: string;
  readonly identityType: string;
  /** The identity's provider; null for the playground. */
  readonly provider: string | null;
}

/** What a cache read from an older version may lack. */
export type ReadCachedCertificate = Omit<CachedCertificate, 'bigPeerURL' | 'identityType' | 'provider'> &
  Partial<Pick<CachedCertificate, 'bigPeerURL' | 'identityType' | 'provider'>>;

export const CERTIFICATE_SETTING = 'auth.certificate';

export type CacheRead =
  | { readonly state: 'absent' }
  | { readonly state: 'present'; readonly cached: ReadCachedCertificate }
  | { readonly state: 'unreadable'; readonly error: string };

export function readCachedCertificate(settings: SettingsAccess): CacheRead {
  const text = settings.get(CERTIFICATE_SETTING);
  // A cleared cache is the empty string: the settings table has no delete.
  if (text === undefined || text === '') return { state: 'absent' };
  try {
    const value = JSON.parse(text) as Partial<CachedCertificate> | null;
    const cert = value?.certificate;
    if (typeof value?.issuerKey !== 'string' || typeof cert?.claims !== 'string' || typeof cert.signature !== 'string') {
      return { state: 'unreadable', error: 'the cached certificate is malformed' };
    }
    const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    return {
      state: 'present',
      cached: {
        certificate: { claims: cert.claims, signature: cert.signature },
        issuerKey: value.issuerKey,
        bigPeerURL: str(value.bigPeerURL),
        identityType: str(value.identityType),
        provider: value.provider === null ? null : str(value.provider),
      },
    };
  } catch {
    return { state: 'unreadable', error: 'the cached certificate is not JSON' };
  }
}

export function writeCachedCertificate(settings: SettingsAccess, cached: CachedCertificate): Promise<void> {
  const value: CachedCertificate = {
    certificate: { claims: cached.certificate.claims, signature: cached.certificate.signature },
    issuerKey: cached.issuerKey,
    bigPeerURL: cached.bigPeerURL,
    identityType: cached.identityType,
    provider: cached.provider,
  };
  return settings.set({ [CERTIFICATE_SETTING]: JSON.stringify(value) });
}

export function clearCachedCertificate(settings: SettingsAccess): Promise<void> {
  return settings.set({ [CERTIFICATE_SETTING]: '' });
}

/** Clears at once (see `SettingsAccess.setNow`); false when the settings cannot write at once. */
export function clearCachedCertificateNow(settings: SettingsAccess): boolean {
  if (settings.setNow === undefined) return false;
  settings.setNow({ [CERTIFICATE_SETTING]: '' });
  return true;
}
