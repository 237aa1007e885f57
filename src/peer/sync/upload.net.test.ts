/**
 * `sync.pendingUpload` and `sync.waitUntilUploaded` of a small peer on a real SQLite store
 * against a real Big Peer on 127.0.0.1: the wait ends when the Big Peer has acknowledged every
 * commit (and the documents are there), or at its bound with what is pending.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestPeer, PLAYGROUND_TOKEN, TEST_APP, type TestPeer } from '../../testing/big-peer/test-helpers.ts';
import { onlinePlayground } from '../auth/identity.ts';
import { LogHub } from '../log/log-hub.ts';
import { Sync } from './sync.ts';

let big: TestPeer;
let dir: string;
const opened: Sync[] = [];
beforeEach(async () => {
  big = await startTestPeer();
  dir = mkdtempSync(join(tmpdir(), 'upload-'));
});
afterEach(async () => {
  for (const sync of opened.splice(0)) sync.close();
  await big.close();
  rmSync(dir, { recursive: true, force: true });
});

function device(): Sync {
  const logHub = new LogHub({ minimumLogLevel: 'ERROR' });
  logHub.enabled = false;
  const sync = new Sync({
    persistenceDirectory: dir,
    logHub,
    identity: onlinePlayground({ appID: TEST_APP, token: PLAYGROUND_TOKEN, bigPeerURL: big.url }),
    sync: { reconnect: { minDelayMs: 20, maxDelayMs: 200 } },
  });
  opened.push(sync);
  return sync;
}

const bigIds = async (): Promise<string[]> => (await big.peer.sync.store.execute('SELECT _id FROM orders ORDER BY _id')).items.map((r) => String(r._id));

describe('waiting until the Big Peer holds what this peer wrote', () => {
  it('resolves with nothing pending once the Big Peer has acknowledged every commit, and the documents are there', async () => {
    const sync = device();
    await sync.startSync();
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:b)', { b: { _id: 'b' } });
    const state = await sync.waitUntilUploaded({ timeoutMs: 10_000 });
    expect(state).toMatchObject({ upTo: 2, acknowledgedUpTo: 2, pendingCommits: 0, bigPeerSession: true });
    expect(await bigIds()).toEqual(['a', 'b']);
    expect(sync.pendingUpload.pendingCommits).toBe(0);
  });

  it('ends at its bound with what is pending while sync is stopped, and the next session uploads it', async () => {
    const sync = device();
    await sync.startSync();
    await sync.waitUntilUploaded({ timeoutMs: 10_000 });
    await sync.stopSync();
    const before = Date.now();
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'offline' } });
    const state = await sync.waitUntilUploaded({ timeoutMs: 300 });
    expect(Date.now() - before).toBeGreaterThanOrEqual(290);
    expect(state).toMatchObject({ upTo: 1, acknowledgedUpTo: 0, pendingCommits: 1, pendingTxnIds: { first: 1, last: 1 }, bigPeerSession: false });
    expect(state.pendingSince).toBeGreaterThanOrEqual(before);
    expect(await bigIds()).toEqual([]);

    await sync.startSync();
    expect(await sync.waitUntilUploaded({ timeoutMs: 10_000 })).toMatchObject({ pendingCommits: 0, acknowledgedUpTo: 1 });
    expect(await bigIds()).toEqual(['offline']);
  });

  it('rejects a wait with sync/closed when the Sync closes first, and a negative bound with a RangeError', async () => {
    const sync = device();
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    await expect(sync.waitUntilUploaded({ timeoutMs: -1 })).rejects.toThrow(RangeError);
    const waiting = sync.waitUntilUploaded({ timeoutMs: 60_000 });
    sync.close();
    await expect(waiting).rejects.toMatchObject({ code: 'sync/closed' });
    await expect(sync.waitUntilUploaded({ timeoutMs: 0 })).rejects.toMatchObject({ code: 'sync/closed' });
  });
});
