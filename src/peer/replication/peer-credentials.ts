/**
 * Who a peer is to the peers it meets, and what it may read: the part of the Sync that
 * replication holds on to. It keeps the auth client, the key and the options, never the Sync
 * object itself, so that a Sync forgotten while it syncs can still be collected and shut down.
 */
import { EVERYTHING, READABLE_BY_EVERY_PEER, type Permissions } from '../../shared/permissions.ts';
import type { AuthClient } from '../auth/auth-client.ts';
import type { IssuerKeys } from '../auth/certificate.ts';
import { signProof } from '../auth/proof.ts';
import { PermissionDeniedError } from '../errors.ts';
import type { LocalCredentials } from './handshake.ts';
import { compileRules, coversCollection } from './matching.ts';

export class PeerCredentials {
  readonly #auth: AuthClient;
  readonly #peerKey: string;
  readonly #privateKeyPem: string;
  readonly #appID: string | undefined;
  #bigPeer: { readonly appID: string; readonly issuer: IssuerKeys } | undefined;

  readonly #deviceName: string | undefined;

  /** `deviceName`: the name this peer announces in its handshakes (its presence name). */
  constructor(options: { auth: AuthClient; peerKey: string; privateKeyPem: string; appID: string | undefined; deviceName?: string | undefined }) {
    this.#deviceName = options.deviceName;
    this.#auth = options.auth;
    this.#peerKey = options.peerKey;
    this.#privateKeyPem = options.privateKeyPem;
    this.#appID = options.appID;
  }

  /** From now on this peer is the Big Peer of `appID`: it proves itself with the issuer key. */
  serveAsBigPeer(appID: string, issuer: IssuerKeys): void {
    this.#bigPeer = { appID, issuer };
  }

  /** The app this peer belongs to (a Big Peer: the one it serves). */
  get appID(): string | undefined {
    return this.#bigPeer?.appID ?? this.#appID;
  }

  /** What this peer may read and write: its certificate's grant (a Big Peer: everything). */
  permissions(): Permissions | undefined {
    return this.#bigPeer !== undefined ? EVERYTHING : this.#auth.status.permissions;
  }

  /** The credentials of a handshake now; undefined before a small peer's first certificate. */
  current(): LocalCredentials | undefined {
    const peerKey = this.#peerKey;
    if (this.#bigPeer !== undefined) {
      const { appID, issuer } = this.#bigPeer;
      return {
        appID,
        peerKey,
        role: 'big-peer',
        sign: (text) => signProof(issuer.privateKeyPem, text),
        certificate: undefined,
        issuerKey: issuer.publicKey,
        deviceName: this.#deviceName,
      };
    }
    const certificate = this.#auth.certificate;
    const issuerKey = this.#auth.issuerKey;
    if (this.#appID === undefined || certificate === undefined || issuerKey === undefined) return undefined;
    const key = this.#privateKeyPem;
    return { appID: this.#appID, peerKey, role: 'small-peer', sign: (text) => signProof(key, text), certificate, issuerKey, deviceName: this.#deviceName };
  }

  /** Refuses a subscription to a collection this peer may not read (spec 5.7). */
  checkReadable(collection: string): void {
    // Presence is readable by every peer of the app (READABLE_BY_EVERY_PEER); any other `__`
    // collection is the application's, under its rules like any other.
    if (READABLE_BY_EVERY_PEER.includes(collection) || this.#bigPeer !== undefined) return;
    const permissions = this.#auth.status.permissions;
    if (permissions === undefined) return; // Not known before the first login: the remotes check it.
    if (!coversCollection(compileRules(permissions.read), collection)) {
      const read = permissions.read;
      const names = Object.keys(read.queries_by_collection);
      const allowed = read.everything ? 'everything' : names.length === 0 ? 'no collection' : names.join(', ');
      throw new PermissionDeniedError(
        `this peer may not read the collection ${collection}, so it cannot subscribe to it; its certificate allows reading ${allowed}`,
        {
          collection,
        },
      );
    }
  }
}
