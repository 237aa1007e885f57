import { afterEach, describe, expect, it } from 'vitest';
import { onlinePlayground } from '../../auth/identity.ts';
import { FixtureLogin } from '../../../testing/auth/login-server.ts';
import { inspectorKit, removeTempDirs, tempDir, type InspectorKit } from '../../../testing/inspector/test-kit.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
  removeTempDirs();
});

describe('overview:get', () => {
  it('tells an offline in-memory peer’s identity, counts with internal collections flagged, and the peer’s clock', async () => {
    kit = inspectorKit();
    await kit.sync.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a' }, b: { _id: 'b' } });
    await kit.sync.store.execute('DELETE FROM orders WHERE _id = :id', { id: 'b' });
    const overview = await kit.call('overview:get');
    expect(overview).toEqual({
      identityType: 'offline',
      appId: undefined,
      peerKey: kit.sync.peerKey,
      persistenceDirectory: undefined,
      syncActive: false,
      bigPeer: { url: undefined, state: 'none', peerKey: undefined },
      auth: { authenticated: false, userID: undefined, certificateExpiresAt: undefined, lastError: undefined },
      // Both commits wait for a Big Peer this peer has never reached.
      upload: { pendingCommits: 2, oldestPendingAt: null, acknowledgedUpTo: 0 },
      remotes: [],
      collections: [
        { name: '__presence', documents: 0, tombstones: 0, internal: true },
        { name: 'orders', documents: 1, tombstones: 1, internal: false },
      ],
      storeSizeBytes: 0,
      lastTxnId: 2,
      now: kit.clock.now(),
    });
  });

  it('tells the persistence directory and a store size on disk for a SQLite store', async () => {
    const dir = tempDir();
    kit = inspectorKit({ sync: { inMemory: false, persistenceDirectory: dir } });
    const overview = await kit.call('overview:get');
    expect(overview.persistenceDirectory).toBe(dir);
    expect(overview.storeSizeBytes).toBeGreaterThan(0);
  });

  it('refuses input it does not take, naming the field', async () => {
    kit = inspectorKit();
    for (const channel of ['overview:get', 'sync:start', 'sync:stop']) {
      expect(await kit.fail(channel, { verbose: true })).toMatchObject({ code: 'inspector/bad-request', message: expect.stringContaining('verbose') });
      expect(await kit.fail(channel, 'now')).toMatchObject({ code: 'inspector/bad-request', message: expect.stringContaining('input') });
      expect(await kit.fail(channel, [])).toMatchObject({ code: 'inspector/bad-request' });
    }
    expect(kit.sync.isSyncActive).toBe(false);
  });
});

describe('sync:start and sync:stop', () => {
  it('answer sync/not-configured as a value for a peer with nowhere to sync', async () => {
    kit = inspectorKit();
    expect(await kit.fail('sync:start')).toMatchObject({ code: 'sync/not-configured' });
    expect((await kit.call('sync:stop')).syncActive).toBe(false);
  });

  it('start and stop sync, with the auth status and the Big Peer link in the overview', async () => {
    const fixture = new FixtureLogin({ appID: 'app-1', playgroundToken: 'tok', now: () => Date.now() });
    kit = inspectorKit({
      sync: {
        identity: onlinePlayground({ appID: 'app-1', token: 'tok', bigPeerURL: 'http://127.0.0.1:9' }),
        fetch: fixture.fetch,
        sync: { reconnect: { minDelayMs: 60_000 } },
      },
    });
    kit.clock.advance(Date.now() - kit.clock.now());
    const before = await kit.call('overview:get');
    expect(before).toMatchObject({
      identityType: 'OnlinePlayground',
      appId: 'app-1',
      syncActive: false,
      bigPeer: { url: 'http://127.0.0.1:9', state: 'stopped' },
    });
    const started = await kit.call('sync:start');
    expect(started).toMatchObject({ syncActive: true, bigPeer: { state: 'connecting' }, auth: { authenticated: true, userID: 'playground' } });
    expect(started.auth.certificateExpiresAt).toBeGreaterThan(kit.clock.now());
    const stopped = await kit.call('sync:stop');
    expect(stopped).toMatchObject({ syncActive: false, bigPeer: { state: 'stopped' } });
  });
});
