/**
 * Who may call `/api/v4/*`: the bearer of an API key (`Authorization: Bearer smk_…`), with the
 * key's permissions. Certificates are not bearer credentials: a small peer shows its certificate
 * to other peers, so anyone it synced with could replay it; only API keys are secrets.
 */
import type { ApiKeys, Principal } from './api-keys.ts';

export interface Authenticator {
  /** @throws HttpError 401 (rejects) when the header names no valid credential. */
  authenticate(authorization: string | undefined): Promise<Principal>;
}

export function credentials(options: { apiKeys: ApiKeys }): Authenticator {
  return { authenticate: (authorization) => options.apiKeys.authenticate(authorization) };
}
