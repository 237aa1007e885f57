/**
 * The local Big Peer on 127.0.0.1: its generated identity is written once (owner-only) and kept,
 * a peer logs in with it, and a damaged identity file is reported, never replaced.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogHub, Sync, onlinePlayground } from '../peer/host.ts';
import { closedPort } from '../testing/big-peer/test-helpers.ts';
import { ConfigError, LOCAL_BIG_PEER_IDENTITY_FILE, loadOrCreateLocalIdentity, startLocalBigPeer, type LocalBigPeer } from './index.ts';

describe('startLocalBigPeer', () => {
  let dir: string;
  const started: LocalBigPeer[] = [];
  const start = async (port?: number): Promise<LocalBigPeer> => {
    const peer = await startLocalBigPeer({ directory: join(dir, 'big-peer'), ...(port === undefined ? {} : { port }) });
    started.push(peer);
    return peer;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'local-big-peer-'));
  });
  afterEach(async () => {
    for (const peer of started.splice(0)) await peer.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves on 127.0.0.1 with a generated app id and playground token, written for the owner only', async () => {
    const peer = await start();
    expect(peer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(peer.appID).toMatch(/^local-[0-9a-f]{12}$/);
    expect(Buffer.from(peer.playgroundToken, 'base64url')).toHaveLength(32);
    const file = join(dir, 'big-peer', LOCAL_BIG_PEER_IDENTITY_FILE);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ appID: peer.appID, playgroundToken: peer.playgroundToken });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'big-peer')).mode & 0o077).toBe(0);
  });

  it('makes a folder the user created (0755) the owner’s alone on every start, since its store holds the issuer key', async () => {
    const folder = join(dir, 'big-peer');
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    const peer = await start();
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    await peer.stop();
    started.splice(0);
    chmodSync(folder, 0o750);
    await start();
    expect(statSync(folder).mode & 0o777).toBe(0o700);
  });

  it('writes its identity whole, through a temporary file that it leaves no trace of', async () => {
    const folder = join(dir, 'big-peer');
    mkdirSync(folder);
    const first = loadOrCreateLocalIdentity(folder);
    expect(loadOrCreateLocalIdentity(folder)).toEqual(first);
    expect(readdirSync(folder)).toEqual([LOCAL_BIG_PEER_IDENTITY_FILE]);
    expect(statSync(join(folder, LOCAL_BIG_PEER_IDENTITY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('lets a small peer log in with that identity and sync', async () => {
    const peer = await start();
    const hub = new LogHub({ minimumLogLevel: 'ERROR' });
    const small = new Sync({
      inMemory: true,
      logHub: hub,
      identity: onlinePlayground({ appID: peer.appID, token: peer.playgroundToken, bigPeerURL: peer.url }),
    });
    try {
      await small.startSync();
      await expect.poll(() => small.sessions.length, { timeout: 10_000 }).toBe(1);
    } finally {
      small.close();
      hub.close();
    }
  });

  it('keeps its identity, issuer key and data across restarts, on the port asked for', async () => {
    const first = await start();
    await first.bigPeer.sync.store.execute('INSERT INTO notes DOCUMENTS (:d)', { d: { _id: 'n1' } });
    const issuer = first.bigPeer.issuer.publicKey;
    await first.stop();
    const port = await closedPort();
    const second = await start(port);
    expect([second.appID, second.playgroundToken]).toEqual([first.appID, first.playgroundToken]);
    expect(second.bigPeer.issuer.publicKey).toBe(issuer);
    expect(second.url).toBe(`http://127.0.0.1:${port}`);
    expect((await second.bigPeer.sync.store.execute('SELECT _id FROM notes')).items).toEqual([{ _id: 'n1' }]);
  });

  it('reports a damaged identity file with a ConfigError and leaves it as it is', async () => {
    mkdirSync(join(dir, 'big-peer'));
    const file = join(dir, 'big-peer', LOCAL_BIG_PEER_IDENTITY_FILE);
    for (const text of ['{"appID": ', '{"appID": "a"}', '[]', '{"appID": "", "playgroundToken": "t"}']) {
      writeFileSync(file, text);
      await expect(start()).rejects.toBeInstanceOf(ConfigError);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });
});
