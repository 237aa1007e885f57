/**
 * Whole Syncs as fixtures, for tests of the layers below the Sync that need a complete store on
 * disk (the storage engines, query threads): those tests may not import the Sync themselves
 * (src/dependency-rule.test.ts), so they take it from here.
 */
import { LogHub } from '../peer/log/log-hub.ts';
import { Sync, type SyncOptions } from '../peer/sync/sync.ts';

export { Sync, type SyncOptions };

/** A Sync that logs only to a hub of its own (nothing on the console). */
export function quietSync(options: SyncOptions): Sync {
  return new Sync({ logHub: new LogHub(), ...options });
}

/** The URLs a child process imports the Sync and the log hub from. */
export const SYNC_MODULE_URL = new URL('../peer/sync/sync.ts', import.meta.url).href;
export const LOG_HUB_MODULE_URL = new URL('../peer/log/log-hub.ts', import.meta.url).href;
