/**
 * TEST FIXTURE: what the auth tests share: a peer on a manual clock whose auth log lines are
 * collected as `[LEVEL] message`, opened in a temporary persistence directory so that it can
 * be closed and reopened.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogHub } from '../../peer/log/log-hub.ts';
import { Sync, type SyncOptions } from '../../peer/sync/sync.ts';
import { ManualTimers } from '../../peer/time.ts';

export interface AuthTestKit {
  readonly clock: ManualTimers;
  readonly hub: LogHub;
  readonly dir: string;
  /** Opens a Sync on the kit's clock, hub and directory (closed by `dispose`). */
  open(options?: Partial<SyncOptions>): Sync;
  /** The `auth` component's lines so far, as `[LEVEL] message`. */
  authLines(): string[];
  /** Lines logged since the last call. */
  newAuthLines(): string[];
  dispose(): void;
}

export function authTestKit(): AuthTestKit {
  const clock = new ManualTimers(Date.UTC(2026, 10, 21, 12, 0, 0));
  const hub = new LogHub({ now: () => clock.now(), minimumLogLevel: 'INFO' });
  const dir = mkdtempSync(join(tmpdir(), 'sync-auth-'));
  const opened: Sync[] = [];
  let seen = 0;
  const authLines = (): string[] =>
    hub
      .recentEntries()
      .filter((e) => e.component === 'auth')
      .map((e) => `[${e.level}] ${e.message}`);
  return {
    clock,
    hub,
    dir,
    open: (options = {}) => {
      const sync = new Sync({ persistenceDirectory: dir, logHub: hub, timers: clock, ...options });
      opened.push(sync);
      return sync;
    },
    authLines,
    newAuthLines: () => {
      const lines = authLines();
      const fresh = lines.slice(seen);
      seen = lines.length;
      return fresh;
    },
    dispose: () => {
      for (const sync of opened.splice(0)) sync.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
