/**
 * The desktop app's peer, Electron-free: for the app's user-data folder it starts the app's peer
 * (with the Big Peer of `settings.json`, or the local Big Peer on first run; see
 * `src/big-peer/app-peer.ts`, shared with `syncmesh inspect --user-data`) and the inspector the
 * window's IPC bridge serves. `src/main/index.ts` starts it before the window and closes it on quit.
 */
import { LogHub, createInspector, type Inspector, type Sync } from '../peer/host.ts';
import { startAppPeer, userDataPlan, type AppPeer, type LocalBigPeer } from '../big-peer/index.ts';
import type { ErrorValue } from '../shared/error-codes.ts';

export interface PeerHostOptions {
  /** The app's user-data folder (`app.getPath('userData')`). */
  readonly userDataDir: string;
  /** The peer's log hub; by default one at INFO that writes to standard error. */
  readonly logHub?: LogHub;
}

export interface PeerHost {
  readonly sync: Sync;
  readonly inspector: Inspector;
  /** Set when the app runs its local Big Peer (no settings.json). */
  readonly localBigPeer: LocalBigPeer | undefined;
  /** Settles when sync has started (undefined) or failed to (the error; the peer stays open). */
  readonly started: Promise<ErrorValue | undefined>;
  /** Closes the inspector, the peer and the local Big Peer. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts the peer of `userDataDir`. Throws `AppSettingsError` (code `cli/usage`) for a malformed
 * settings.json, which it never rewrites, and the store's typed errors (`store/locked` when
 * another instance holds the folder); nothing is left open then.
 */
export async function startPeerHost(options: PeerHostOptions): Promise<PeerHost> {
  const plan = userDataPlan(options.userDataDir);
  const logHub = options.logHub ?? new LogHub({ minimumLogLevel: 'INFO', console: (line) => process.stderr.write(`${line}\n`) });
  const peer: AppPeer = await startAppPeer({ ...plan, logHub });
  let inspector: Inspector;
  try {
    inspector = createInspector(peer.sync);
  } catch (error) {
    await peer.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    sync: peer.sync,
    inspector,
    localBigPeer: peer.localBigPeer,
    started: peer.started,
    close() {
      closing ??= (async () => {
        inspector.close();
        await peer.close();
      })();
      return closing;
    },
  };
}
