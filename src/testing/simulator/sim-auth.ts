/**
 * Logins of the simulated mesh: the Big Peer's issuer (made from the seed) signs each small
 * peer's certificate in-process (the auth fixture's login, no sockets), with the permissions the
 * simulator grants that peer's user now. A permission change is a new grant followed by a new
 * login; sessions opened after it carry the new certificate.
 */
import { EVERYTHING, type Permissions } from '../../shared/permissions.ts';
import type { IssuerKeys } from '../../peer/auth/certificate.ts';
import { onlineWithAuthentication, type OnlineWithAuthenticationIdentity } from '../../peer/auth/identity.ts';
import type { FetchLike } from '../../peer/auth/login-request.ts';
import { FixtureLogin } from '../auth/login-server.ts';

export const SIM_APP = 'sim-app';
export const SIM_PROVIDER = 'sim';
/** Certificates last 20 simulated minutes, so that long runs renew them and see sessions end at expiry. */
export const SIM_CERTIFICATE_SECONDS = 20 * 60;

export class SimAuth {
  readonly issuer: IssuerKeys;
  readonly #grants = new Map<string, Permissions>();
  readonly #login: FixtureLogin;

  constructor(issuer: IssuerKeys, now: () => number) {
    this.issuer = issuer;
    this.#login = new FixtureLogin({
      appID: SIM_APP,
      issuer,
      now,
      lifetimeSeconds: SIM_CERTIFICATE_SECONDS,
      providers: { [SIM_PROVIDER]: (token) => ({ kind: 'accept', userID: token, permissions: this.#grants.get(token) ?? EVERYTHING }) },
    });
  }

  get fetch(): FetchLike {
    return this.#login.fetch;
  }

  grant(user: string, permissions: Permissions): void {
    this.#grants.set(user, permissions);
  }

  granted(user: string): Permissions {
    return this.#grants.get(user) ?? EVERYTHING;
  }

  /** The identity of a small peer whose app logs in as `user` whenever asked. */
  identity(user: string): OnlineWithAuthenticationIdentity {
    return onlineWithAuthentication({
      appID: SIM_APP,
      bigPeerURL: 'https://big-peer.sim',
      provider: SIM_PROVIDER,
      authHandler: {
        authenticationRequired: (auth) => void auth.login(user, SIM_PROVIDER),
        authenticationExpiringSoon: (auth) => void auth.login(user, SIM_PROVIDER),
      },
    });
  }
}
