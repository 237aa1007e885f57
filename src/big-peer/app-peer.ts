/**
 * The app's peer and the Big Peer it syncs with, composed once for both hosts: the Electron main
 * process (`src/main/peer-host.ts`) and the browser mode (`syncmesh inspect`, which `npm start`
 * falls back to where Electron cannot run). Each host adds the inspector and its bridge.
 *
 * The rule for a user-data folder (`userDataPlan`): `settings.json` names a Big Peer; without it
 * the local Big Peer runs in `<userData>/local-big-peer` and the peer logs in to it with its
 * generated playground identity. Either way the peer's store is `<userData>/peer`.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ErrorValue } from '../shared/error-codes.ts';
import {
  Sync,
  onlinePlayground,
  onlineWithAuthentication,
  toErrorValue,
  type EvictionOptions,
  type LanOptions,
  type LogHub,
  type OnlineIdentity,
} from '../peer/host.ts';
import { readAppSettings } from './app-settings.ts';
import { startLocalBigPeer, type LocalBigPeer } from './local-big-peer.ts';

/** Where the app's peer syncs. */
export type BigPeerLink =
  /** A Big Peer elsewhere, named by settings.json or the command line, with its playground token. */
  | { readonly kind: 'remote'; readonly url: string; readonly appID: string; readonly playgroundToken: string }
  /** A Big Peer elsewhere, logged in to through the webhook of one of its `authProviders` with a token. */
  | { readonly kind: 'remote'; readonly url: string; readonly appID: string; readonly provider: string; readonly token: string }
  /** The local Big Peer, started (or restarted) with its data in `directory`. */
  | { readonly kind: 'local'; readonly directory: string; readonly port?: number }
  /** None: the peer stays offline (the inspector still shows its store). */
  | { readonly kind: 'offline' };

export interface AppPeerPlan {
  /** The peer's persistence directory; undefined keeps the store in memory. */
  readonly store: string | undefined;
  readonly link: BigPeerLink;
  /** Also sync over the LAN (settings.json `"lan": true`, `syncmesh inspect --lan`). */
  readonly lan?: LanOptions;
  /** The eviction strategies (settings.json `"eviction"`, `syncmesh inspect --evict`). */
  readonly eviction?: EvictionOptions;
  /** The name the peer shows other peers in its presence document (`syncmesh inspect --device-name`; default the host name). */
  readonly deviceName?: string;
}

export interface AppPeerOptions extends AppPeerPlan {
  /** The peer's log hub: what the inspector's log panel shows. */
  readonly logHub: LogHub;
  /** The local Big Peer's log hub (default: one that logs nowhere). */
  readonly bigPeerLogHub?: LogHub;
  /** SELECT statements the peer subscribes to before sync starts. */
  readonly subscriptions?: readonly string[];
}

export interface AppPeer {
  readonly sync: Sync;
  /** Set when the link is `local`. */
  readonly localBigPeer: LocalBigPeer | undefined;
  /** The Big Peer's URL, if any. */
  readonly bigPeerUrl: string | undefined;
  /**
   * Settles when sync has started (undefined) or failed to (the error, such as auth/unreachable):
   * a failed start leaves the peer open and offline, for the inspector to show and retry.
   */
  readonly started: Promise<ErrorValue | undefined>;
  /** Closes the peer, then stops the local Big Peer. Safe to call twice. */
  close(): Promise<void>;
}

export const USER_DATA_PEER_DIR = 'peer';
export const USER_DATA_LOCAL_BIG_PEER_DIR = 'local-big-peer';

/** What the app runs for `userDataDir`. Throws AppSettingsError on a malformed settings.json. */
export function userDataPlan(userDataDir: string): AppPeerPlan {
  const settings = readAppSettings(userDataDir);
  return {
    store: join(userDataDir, USER_DATA_PEER_DIR),
    link:
      settings === undefined
        ? { kind: 'local', directory: join(userDataDir, USER_DATA_LOCAL_BIG_PEER_DIR) }
        : { kind: 'remote', url: settings.bigPeerUrl, appID: settings.appId, playgroundToken: settings.playgroundToken },
    ...(settings?.lan === true ? { lan: {} } : {}),
    ...(settings?.eviction === undefined ? {} : { eviction: settings.eviction }),
    ...(settings?.deviceName === undefined ? {} : { deviceName: settings.deviceName }),
  };
}

/**
 * A login through a provider's webhook with one fixed token (a register's device token, given on
 * the command line): the token is sent when the peer has no valid certificate and again before
 * its certificate expires.
 */
export function providerIdentity(link: { readonly url: string; readonly appID: string; readonly provider: string; readonly token: string }): OnlineIdentity {
  const { provider, token } = link;
  return onlineWithAuthentication({
    appID: link.appID,
    bigPeerURL: link.url,
    provider,
    authHandler: {
      authenticationRequired: (auth) => void auth.login(token, provider),
      authenticationExpiringSoon: (auth) => void auth.login(token, provider),
    },
  });
}

/**
 * Starts the local Big Peer (for a `local` link), opens the peer logged in to its Big Peer,
 * registers the subscriptions and starts sync without waiting for it (see `started`). Throws
 * when the store or the local Big Peer cannot be opened, or a subscription is refused, with
 * nothing left open.
 */
export async function startAppPeer(options: AppPeerOptions): Promise<AppPeer> {
  const { link } = options;
  const localBigPeer =
    link.kind === 'local'
      ? await startLocalBigPeer({
          directory: link.directory,
          ...(link.port === undefined ? {} : { port: link.port }),
          ...(options.bigPeerLogHub === undefined ? {} : { logHub: options.bigPeerLogHub }),
        })
      : undefined;
  const remote: OnlineIdentity | undefined =
    link.kind === 'remote'
      ? 'provider' in link
        ? providerIdentity(link)
        : onlinePlayground({ appID: link.appID, token: link.playgroundToken, bigPeerURL: link.url })
      : localBigPeer === undefined
        ? undefined
        : onlinePlayground({ appID: localBigPeer.appID, token: localBigPeer.playgroundToken, bigPeerURL: localBigPeer.url });
  let sync: Sync | undefined;
  try {
    sync = new Sync({
      ...(options.store === undefined ? { inMemory: true } : { persistenceDirectory: options.store }),
      ...(remote === undefined ? {} : { identity: remote }),
      logHub: options.logHub,
      ...(options.lan === undefined ? {} : { sync: { peerToPeer: { lan: options.lan } } }),
      ...(options.eviction === undefined ? {} : { eviction: options.eviction }),
      // The app's peer always says who it is (docs/replication.md, "Presence documents").
      presence: { deviceName: options.deviceName ?? hostname() },
    });
    for (const statement of options.subscriptions ?? []) {
      try {
        sync.store.registerSubscription(statement);
      } catch (error) {
        const value = toErrorValue(error);
        throw Object.assign(error as Error, { message: `subscription ${JSON.stringify(statement)}: ${value.message}` });
      }
    }
  } catch (error) {
    sync?.close();
    await localBigPeer?.stop();
    throw error;
  }
  const opened = sync;
  const started: Promise<ErrorValue | undefined> =
    remote === undefined
      ? Promise.resolve(undefined)
      : opened.startSync().then(
          () => undefined,
          (error: unknown) => toErrorValue(error),
        );
  let closing: Promise<void> | undefined;
  return {
    sync: opened,
    localBigPeer,
    bigPeerUrl: remote?.bigPeerURL,
    started,
    close() {
      closing ??= (async () => {
        // Closing ends a login in flight too (startSync then settles with sync/closed).
        opened.close();
        await started;
        await localBigPeer?.stop();
      })();
      return closing;
    },
  };
}
