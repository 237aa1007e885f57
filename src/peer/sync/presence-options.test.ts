/** A Sync given malformed presence options refuses them before it opens anything. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { LogHub } from '../log/log-hub.ts';
import { Sync } from './sync.ts';

it('refuses a presence heartbeat under a second with presence/invalid, leaving its directory free', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncmesh-presence-'));
  try {
    expect(() => new Sync({ persistenceDirectory: dir, logHub: new LogHub(), presence: { heartbeatMs: 10 } })).toThrow(
      expect.objectContaining({ code: 'presence/invalid' }),
    );
    // Nothing holds the directory: a Sync opens it at once.
    new Sync({ persistenceDirectory: dir, logHub: new LogHub() }).close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
