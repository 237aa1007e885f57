/**
 * Shared set-up of the DQL semantics suites: every suite runs once per storage (SQLite in a
 * temporary directory, and the in-memory twin), so that both must give exactly the same answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { JsonObject } from '../shared/json.ts';
import { SyncError } from '../peer/errors.ts';
import { LogHub } from '../peer/log/log-hub.ts';
import { Sync, type SyncOptions } from '../peer/sync/sync.ts';

type Options = Omit<SyncOptions, 'persistenceDirectory' | 'inMemory'>;

function openSqlite(options?: Options): Sync {
  const dir = mkdtempSync(join(tmpdir(), 'dql-'));
  try {
    return new Sync({ logHub: new LogHub(), ...options, persistenceDirectory: dir });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true }); // e.g. on a Node the storage engine refuses
    throw error;
  }
}

/** `[name, open]` for `describe.each`: each call of `open` gives a fresh, empty peer. */
export const STORAGES: [string, (options?: Options) => Sync][] = [
  ['sqlite', openSqlite],
  ['memory', (options) => new Sync({ logHub: new LogHub(), ...options, inMemory: true })],
];

/**
 * Opens a fresh peer before each test and closes it (removing its directory) after; the getter
 * returned gives the current one. Further peers opened with `open` are cleaned up too.
 */
export function freshPeer(open: (options?: Options) => Sync): { peer: () => Sync; open: (options?: Options) => Sync } {
  let opened: Sync[] = [];
  let current: Sync | undefined;
  const openTracked = (options?: Options): Sync => {
    const sync = open(options);
    opened.push(sync);
    return sync;
  };
  beforeEach(() => {
    current = openTracked();
  });
  afterEach(() => {
    for (const sync of opened) {
      sync.close();
      if (sync.persistenceDirectory !== undefined) rmSync(sync.persistenceDirectory, { recursive: true, force: true });
    }
    opened = [];
    current = undefined;
  });
  return {
    peer: () => {
      if (current === undefined) throw new Error('no peer outside a test');
      return current;
    },
    open: openTracked,
  };
}

/** The error a promise (or a function) fails with; fails the test when it succeeds. */
export async function failureOf(work: Promise<unknown> | (() => unknown)): Promise<SyncError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    expect(error).toBeInstanceOf(SyncError);
    return error as SyncError;
  }
  throw new Error('expected the statement to fail');
}

/** Inserts documents into a collection in one statement. */
export async function seed(sync: Sync, collection: string, docs: readonly JsonObject[]): Promise<void> {
  await sync.store.execute(`INSERT INTO ${collection} DOCUMENTS (:docs)`, { docs: [...docs] });
}
