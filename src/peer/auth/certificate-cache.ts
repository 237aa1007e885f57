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
}

export interface CachedCertificate {
  readonly certificate: SignedCertificate;
  /** The Big Peer's public key (base64url), as it gave it at login. */
  readonly issuerKey: string;
}

export const CERTIFICATE_SETTING = 'auth.certificate';

export type CacheRead =
  | { readonly state: 'absent' }
  | { readonly state: 'present'; readonly cached: CachedCertificate }
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
    return { state: 'present', cached: { certificate: { claims: cert.claims, signature: cert.signature }, issuerKey: value.issuerKey } };
  } catch {
    return { state: 'unreadable', error: 'the cached certificate is not JSON' };
  }
}

export function writeCachedCertificate(settings: SettingsAccess, cached: CachedCertificate): Promise<void> {
  const value: CachedCertificate = { certificate: { claims: cached.certificate.claims, signature: cached.certificate.signature }, issuerKey: cached.issuerKey };
  return settings.set({ [CERTIFICATE_SETTING]: JSON.stringify(value) });
}

export function clearCachedCertificate(settings: SettingsAccess): Promise<void> {
  return settings.set({ [CERTIFICATE_SETTING]: '' });
}
