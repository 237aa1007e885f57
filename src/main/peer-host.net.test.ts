/**
 * The desktop app's peer host for a user-data folder, with real sockets on 127.0.0.1: without
 * settings.json it starts the local Big Peer and syncs with it (and finds it again after a
 * restart); with settings it syncs with the Big Peer they name; a malformed file is a typed error
 * that leaves the file as it was and nothing open.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppSettingsError } from '../big-peer/index.ts';
import { PLAYGROUND_TOKEN, TEST_APP, closedPort, startTestPeer, type TestPeer } from '../testing/big-peer/test-helpers.ts';
import { LogHub, serveCall } from '../peer/host.ts';
import type { OverviewSnapshot } from '../shared/inspector/overview.ts';
import { startPeerHost, type PeerHost } from './peer-host.ts';

const WAIT = { timeout: 15_000, interval: 25 };

describe('startPeerHost', () => {
  let userData: string;
  let hub: LogHub;
  const hosts: PeerHost[] = [];
  const testPeers: TestPeer[] = [];

  const start = async (): Promise<PeerHost> => {
    const host = await startPeerHost({ userDataDir: userData, logHub: hub });
    hosts.push(host);
    return host;
  };
  const overview = async (host: PeerHost): Promise<OverviewSnapshot> => {
    const session = host.inspector.openSession();
    try {
      const result = await serveCall(session.handlers, 'overview:get', {});
      if (!result.ok) throw new Error(result.error.message);
      return result.value as OverviewSnapshot;
    } finally {
      session.close();
    }
  };

  beforeEach(() => {
    userData = mkdtempSync(join(tmpdir(), 'peer-host-'));
    hub = new LogHub({ minimumLogLevel: 'WARN' });
  });
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
    for (const peer of testPeers.splice(0)) await peer.close();
    hub.close();
    rmSync(userData, { recursive: true, force: true });
  });

  it('starts the local Big Peer without settings and syncs the app peer with it', async () => {
    const host = await start();
    expect(host.localBigPeer).toBeDefined();
    const local = host.localBigPeer!;
    expect(local.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(local.directory).toBe(join(userData, 'local-big-peer'));
    expect(await host.started).toBeUndefined();
    await expect.poll(async () => (await overview(host)).bigPeer.state, WAIT).toBe('connected');
    const snapshot = await overview(host);
    expect(snapshot).toMatchObject({
      identityType: 'OnlinePlayground',
      appId: local.appID,
      persistenceDirectory: join(userData, 'peer'),
      bigPeer: { url: local.url },
    });
    // A write of the app's peer reaches its Big Peer.
    await host.sync.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'o1', total: 3 } });
    await expect.poll(async () => (await local.bigPeer.sync.store.execute('SELECT total FROM orders')).items, WAIT).toEqual([{ total: 3 }]);
    expect(existsSync(join(userData, 'settings.json'))).toBe(false);
  });

  it('finds the same local Big Peer, app and data after a restart', async () => {
    const first = await start();
    const appID = first.localBigPeer!.appID;
    const peerKey = first.sync.peerKey;
    await first.sync.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'o1', total: 3 } });
    await first.close();
    await expect(fetch(`${first.localBigPeer!.url}/`)).rejects.toThrow();

    const second = await start();
    expect(second.localBigPeer!.appID).toBe(appID);
    expect(second.sync.peerKey).toBe(peerKey);
    expect((await second.sync.store.execute('SELECT total FROM orders')).items).toEqual([{ total: 3 }]);
    expect(await second.started).toBeUndefined();
    await expect.poll(async () => (await overview(second)).bigPeer.state, WAIT).toBe('connected');
  });

  it('syncs with the Big Peer that settings.json names, and starts no local one', async () => {
    const bigPeer = await startTestPeer();
    testPeers.push(bigPeer);
    writeFileSync(join(userData, 'settings.json'), JSON.stringify({ bigPeerUrl: bigPeer.url, appId: TEST_APP, playgroundToken: PLAYGROUND_TOKEN }));
    const host = await start();
    expect(host.localBigPeer).toBeUndefined();
    expect(await host.started).toBeUndefined();
    await expect.poll(async () => (await overview(host)).bigPeer.state, WAIT).toBe('connected');
    expect((await overview(host)).appId).toBe(TEST_APP);
    expect(existsSync(join(userData, 'local-big-peer'))).toBe(false);
  });

  it('stays open, offline, when the configured Big Peer cannot be reached', async () => {
    writeFileSync(join(userData, 'settings.json'), JSON.stringify({ bigPeerUrl: `http://127.0.0.1:${await closedPort()}`, appId: 'a', playgroundToken: 't' }));
    const host = await start();
    expect(await host.started).toMatchObject({ code: 'auth/unreachable' });
    expect(host.sync.isClosed).toBe(false);
    expect((await overview(host)).syncActive).toBe(false);
  });

  it.each([
    ['not JSON', '{"bigPeerUrl": ', /are not JSON/],
    ['not an object', '[]', /must hold a JSON object/],
    ['a misspelt field', '{"bigPeerURL": "http://127.0.0.1:1", "appId": "a", "playgroundToken": "t"}', /unknown field\(s\) bigPeerURL/],
    ['a missing field', '{"bigPeerUrl": "http://127.0.0.1:1", "appId": "a"}', /need "playgroundToken" as a non-empty string/],
    ['a URL that is not http', '{"bigPeerUrl": "ws://127.0.0.1:1", "appId": "a", "playgroundToken": "t"}', /http:\/\/ or https:\/\/ URL/],
  ])('refuses settings.json with %s as a typed error, leaving the file and opening nothing', async (_what, text, message) => {
    const file = join(userData, 'settings.json');
    writeFileSync(file, text);
    const failure = await startPeerHost({ userDataDir: userData, logHub: hub }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AppSettingsError);
    expect(failure).toMatchObject({ code: 'cli/usage', path: file, message: expect.stringMatching(message) });
    expect((failure as Error).message).toContain(file);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(join(userData, 'peer'))).toBe(false);
    expect(existsSync(join(userData, 'local-big-peer'))).toBe(false);
  });

  it('never echoes the playground token of a malformed file', async () => {
    writeFileSync(join(userData, 'settings.json'), '{"bigPeerUrl": "http://127.0.0.1:1", "appId": "a", "playgroundToken": 42}');
    await expect(startPeerHost({ userDataDir: userData, logHub: hub })).rejects.toThrow(/need "playgroundToken" as a non-empty string;/);
  });

  it('refuses a second host on the same folder with store/locked and leaves the first running', async () => {
    const first = await start();
    await expect(startPeerHost({ userDataDir: userData, logHub: hub })).rejects.toMatchObject({ code: 'store/locked' });
    expect((await first.sync.store.execute('SELECT * FROM orders')).items).toEqual([]);
  });
});
