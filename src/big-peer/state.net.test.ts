/** The Big Peer's state acceptance suite on its default store: SQLite in a persistence directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { LogHub, Sync } from '../peer/host.ts';
import { runBigPeerStateTests } from '../testing/big-peer/state-acceptance.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

runBigPeerStateTests('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'big-peer-state-'));
  dirs.push(dir);
  return { open: () => new Sync({ persistenceDirectory: dir, logHub: new LogHub({ minimumLogLevel: 'ERROR' }) }) };
});
