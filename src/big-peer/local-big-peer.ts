/**
 * The local Big Peer: what the desktop app (and `syncmesh inspect --local-big-peer`) starts when
 * no Big Peer is configured, so that a new user sees a live mesh at once. It is an ordinary Big
 * Peer on 127.0.0.1 with an embedded SQLite store, whose app id and playground token are
 * generated once and kept in its directory: a restart serves the same app, with the same issuer
 * key (kept in its store) and the same data, so the app's peer keeps its certificate.
 *
 *   <directory>/identity.json   {"appID": "local-…", "playgroundToken": "…"} (mode 0600)
 *   <directory>/store/          the Big Peer's store
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogHub } from '../peer/host.ts';
import { BigPeer } from './big-peer.ts';
import { ConfigError, bigPeerConfig } from './config.ts';

export interface LocalBigPeerOptions {
  /** Holds the identity file and the store; created if missing. */
  readonly directory: string;
  /** The port on 127.0.0.1; 0 (the default) picks a free one at each start. */
  readonly port?: number;
  /** Where the Big Peer logs; by default a hub of its own that logs nowhere. */
  readonly logHub?: LogHub;
}

/** The identity a local Big Peer keeps in its directory. */
export interface LocalBigPeerIdentity {
  readonly appID: string;
  readonly playgroundToken: string;
}

export interface LocalBigPeer extends LocalBigPeerIdentity {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly directory: string;
  readonly bigPeer: BigPeer;
  /** Stops serving and closes the store. */
  stop(): Promise<void>;
}

export const LOCAL_BIG_PEER_IDENTITY_FILE = 'identity.json';

/** The identity in `directory`, generated and written (exclusively) when there is none yet. */
export function loadOrCreateLocalIdentity(directory: string): LocalBigPeerIdentity {
  const file = join(directory, LOCAL_BIG_PEER_IDENTITY_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new ConfigError(`cannot read the local Big Peer's identity ${file}: ${(error as Error).message}`);
    const identity: LocalBigPeerIdentity = {
      appID: `local-${randomBytes(6).toString('hex')}`,
      playgroundToken: randomBytes(32).toString('base64url'),
    };
    // Written whole to a temporary file, then linked into place: the link is atomic and never
    // overwrites, so a concurrent first start never reads a half-written (or empty) file; it
    // loses the link and reads the winner's.
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(identity, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
      linkSync(temporary, file);
    } catch (writeError) {
      if ((writeError as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateLocalIdentity(directory);
      throw new ConfigError(`cannot write the local Big Peer's identity ${file}: ${(writeError as Error).message}`);
    } finally {
      try {
        unlinkSync(temporary);
      } catch {
        // Not written, or already gone.
      }
    }
    return identity;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `the local Big Peer's identity ${file} is not JSON (${(error as Error).message}); fix or delete it (deleting it makes a new app id, and the app's peer logs in again)`,
    );
  }
  const record = (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
  const { appID, playgroundToken } = record;
  if (typeof appID !== 'string' || appID === '' || typeof playgroundToken !== 'string' || playgroundToken === '') {
    throw new ConfigError(`the local Big Peer's identity ${file} must be {"appID": "…", "playgroundToken": "…"} with non-empty strings; fix or delete it`);
  }
  return { appID, playgroundToken };
}

/** Starts the local Big Peer on 127.0.0.1 and resolves once it serves. */
export async function startLocalBigPeer(options: LocalBigPeerOptions): Promise<LocalBigPeer> {
  const { directory } = options;
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(`cannot create the local Big Peer's directory ${directory}: ${(error as Error).message}`);
  }
  // The store inside holds the issuer's private key (it signs certificates for this Big Peer):
  // the folder is the owner's alone, also when the user made it (mkdir's mode applies only to
  // folders it creates, and then through the umask).
  try {
    chmodSync(directory, 0o700);
  } catch (error) {
    throw new ConfigError(`cannot make the local Big Peer's directory ${directory} private (chmod 700): ${(error as Error).message}`);
  }
  const identity = loadOrCreateLocalIdentity(directory);
  const config = bigPeerConfig({
    appID: identity.appID,
    playgroundToken: identity.playgroundToken,
    host: '127.0.0.1',
    port: options.port ?? 0,
    dataDir: join(directory, 'store'),
    // A desktop app quits promptly: requests in flight get one second, not the server's five.
    shutdownGraceMs: 1_000,
    // One user's app and no HTTP clients to keep apart: no worker threads in the desktop app's
    // process (whose bundle has no query-thread script to start them from).
    queryThreads: 0,
  });
  const bigPeer = await BigPeer.start(config, { logHub: options.logHub ?? new LogHub({ minimumLogLevel: 'ERROR' }) });
  return {
    ...identity,
    url: bigPeer.url,
    directory,
    bigPeer,
    stop: () => bigPeer.close(),
  };
}
