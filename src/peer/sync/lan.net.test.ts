/**
 * LAN sync with the in-memory discovery twin and real WebSockets on 127.0.0.1: who is dialed
 * and who is not (another app, another protocol version, another issuer), one session per pair
 * whoever dials, multi-hop through a peer both others see, and the transport conditions. The
 * same over real mDNS between network namespaces is lan.netns.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/log.ts';
import { FixtureLogin } from '../../testing/auth/login-server.ts';
import { onlinePlayground } from '../auth/identity.ts';
import { LogHub } from '../log/log-hub.ts';
import { Sync, type SyncOptions } from './sync.ts';
import { TransportConfig, type PeerToPeerOptions } from '../replication/transport-config.ts';
import { MemoryLanNetwork, type MemoryDiscoveryOptions } from '../lan/memory-discovery.ts';

const APP = 'lan-app';
const TOKEN = 'lan-token';
const WAIT_MS = 10_000;

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Peer {
  readonly sync: Sync;
  readonly logs: LogEntry[];
  lines(event: string): string[];
}

const opened: Sync[] = [];
const onExit: (() => void)[] = [];
afterEach(() => {
  for (const sync of opened.splice(0)) sync.close();
  for (const task of onExit.splice(0)) task();
});

interface PeerSpec {
  readonly network: MemoryLanNetwork;
  readonly label: string;
  readonly login?: FixtureLogin;
  readonly appID?: string;
  readonly discovery?: MemoryDiscoveryOptions;
  readonly sync?: SyncOptions['sync'];
  readonly peerToPeer?: PeerToPeerOptions;
  /** Keep the store (and so the peer key) here instead of in memory. */
  readonly persistenceDirectory?: string;
}

const defaultLogin = new FixtureLogin({ appID: APP, playgroundToken: TOKEN, now: () => Date.now() });

function lanPeer(spec: PeerSpec): Peer {
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  const login = spec.login ?? defaultLogin;
  const sync = new Sync({
    ...(spec.persistenceDirectory === undefined ? { inMemory: true } : { persistenceDirectory: spec.persistenceDirectory }),
    logHub: hub,
    fetch: login.fetch,
    identity: onlinePlayground({ appID: spec.appID ?? APP, token: TOKEN, bigPeerURL: 'http://big-peer.invalid' }),
    lanDiscovery: () => spec.network.discovery(spec.label, spec.discovery),
    sync: spec.sync ?? {
      bigPeer: false,
      reconnect: { minDelayMs: 20, maxDelayMs: 200 },
      peerToPeer: spec.peerToPeer ?? { lan: { listen: { host: '127.0.0.1' } } },
    },
  });
  opened.push(sync);
  return { sync, logs, lines: (event) => logs.filter((e) => e.event === event).map((e) => e.message) };
}

const count = async (sync: Sync, collection: string): Promise<number> =>
  Number((await sync.store.execute(`SELECT COUNT(*) AS n FROM ${collection}`)).items[0]?.n);
const sessionKeys = (peer: Peer): string[] => peer.sync.sessions.map((s) => s.remote.peerKey).sort();

describe('small peers on one LAN', () => {
  it('find each other, log Discovered with the LAN address, and sync both ways over one session', async () => {
    const network = new MemoryLanNetwork();
    const a = lanPeer({ network, label: 'a' });
    const b = lanPeer({ network, label: 'b' });
    for (const p of [a, b]) p.sync.store.registerSubscription('SELECT * FROM tasks');
    await a.sync.startSync();
    await b.sync.startSync();
    await a.sync.store.execute('INSERT INTO tasks DOCUMENTS (:t)', { t: { _id: 't1', by: 'a' } });
    await b.sync.store.execute('INSERT INTO tasks DOCUMENTS (:t)', { t: { _id: 't2', by: 'b' } });
    await until('both have both', async () => (await count(a.sync, 'tasks')) === 2 && (await count(b.sync, 'tasks')) === 2);
    expect(sessionKeys(a)).toEqual([b.sync.peerKey]);
    expect(sessionKeys(b)).toEqual([a.sync.peerKey]);
    const port = Number(new URL(b.sync.lanListenUrl as string).port);
    expect(a.lines('peer.discovered')).toContain(`Discovered; peer = LanPeer; connect_address = ws://127.0.0.1:${port}/_sync/ws; remote = ${b.sync.peerKey}`);
    expect(a.sync.connections.filter((c) => c.state === 'elected').map((c) => c.transport)).toEqual(['LAN']);
    expect(a.sync.lanPeers).toMatchObject([{ peerKey: b.sync.peerKey, appID: APP, compatible: true, present: true }]);
    expect(a.sync.transportConditions).toMatchObject([{ transport: 'LAN', condition: 'Ok' }]);
    // The peer with the larger key let the other dial: one connection, no election needed.
    const [small, large] = a.sync.peerKey < b.sync.peerKey ? [a, b] : [b, a];
    expect(small.sync.sessions[0]?.connectionType).toBe('WsClient');
    expect(large.sync.sessions[0]?.connectionType).toBe('WsServer');
  });

  it('see a peer of another app or of another protocol version, and say why they do not sync with it', async () => {
    const network = new MemoryLanNetwork();
    const a = lanPeer({ network, label: 'a' });
    const other = lanPeer({
      network,
      label: 'other',
      appID: 'another-app',
      login: new FixtureLogin({ appID: 'another-app', playgroundToken: TOKEN, now: () => Date.now() }),
    });
    const future = lanPeer({ network, label: 'future', discovery: { txt: { protocolVersion: 99 } } });
    await a.sync.startSync();
    await other.sync.startSync();
    await future.sync.startSync();
    await until('a saw both', () => a.sync.lanPeers.length === 2);
    await pause(300);
    // `a` dials neither. (The "future" peer here really speaks version 2, so its own dial to `a`
    // would pass the announcement; a peer of another version is refused there too, with 4400.)
    expect(a.lines('peer.discovered')).toEqual([]);
    expect(a.sync.sessions.map((s) => s.remote.peerKey)).not.toContain(other.sync.peerKey);
    const byKey = new Map(a.sync.lanPeers.map((p) => [p.peerKey, p]));
    expect(byKey.get(other.sync.peerKey)).toMatchObject({
      compatible: false,
      appID: 'another-app',
      reason: `another app (another-app): only peers of ${APP} sync with this one`,
    });
    expect(byKey.get(future.sync.peerKey)).toMatchObject({
      compatible: false,
      protocolVersion: 99,
      reason: 'outer_protocol_version 99 is not supported (this peer speaks 2)',
    });
    expect(a.lines('lan.peer-ignored')).toHaveLength(2);
    expect(a.lines('lan.peer-ignored')[0]).toMatch(
      /^Not syncing with a LAN peer; name = syncmesh-.+; connect_address = ws:\/\/127\.0\.0\.1:\d+\/_sync\/ws; remote = .+; reason = another app/,
    );
    // The other app's peer dialed `a` (it sees `a` as of another app too, so it does not): nothing came of it.
    expect(other.sync.sessions).toEqual([]);
  });

  it('refuse a peer whose certificate another Big Peer issued (UnknownIssuer), and nothing crosses', async () => {
    const network = new MemoryLanNetwork();
    const a = lanPeer({ network, label: 'a' });
    const stranger = lanPeer({ network, label: 'stranger', login: new FixtureLogin({ appID: APP, playgroundToken: TOKEN, now: () => Date.now() }) });
    for (const p of [a, stranger]) p.sync.store.registerSubscription('SELECT * FROM tasks');
    await a.sync.store.execute('INSERT INTO tasks DOCUMENTS (:t)', { t: { _id: 'secret' } });
    await a.sync.startSync();
    await stranger.sync.startSync();
    await until('a refused the stranger', () => a.lines('peer.session-refused').length > 0 && stranger.lines('peer.session-refused').length > 0);
    expect([...a.lines('peer.session-refused'), ...stranger.lines('peer.session-refused')].join('\n')).toContain('UnknownIssuer');
    await pause(500);
    expect(a.sync.sessions).toEqual([]);
    expect(stranger.sync.sessions).toEqual([]);
    expect(await count(stranger.sync, 'tasks')).toBe(0);
    // A refusal will not change soon: the refused side's dialer waits minutes, not the usual backoff.
    const dialer = a.sync.peerKey < stranger.sync.peerKey ? a : stranger;
    await until('the refused dialer scheduled its retry', () => dialer.logs.some((e) => e.event === 'peer.reconnect-scheduled'));
    const seconds = dialer.logs.filter((e) => e.event === 'peer.reconnect-scheduled').map((e) => Number(e.fields.seconds));
    expect(Math.min(...seconds)).toBeGreaterThanOrEqual(150);
    expect(dialer.sync.connections.find((c) => c.direction === 'dialed' && c.transport === 'LAN')?.reason).toMatch(/^refused/);
  });

  it('carry a document from A to C through B when A and C cannot see each other', async () => {
    const network = new MemoryLanNetwork();
    network.separate('a', 'c');
    const [a, b, c] = ['a', 'b', 'c'].map((label) => lanPeer({ network, label })) as [Peer, Peer, Peer];
    for (const p of [a, b, c]) p.sync.store.registerSubscription('SELECT * FROM notes');
    for (const p of [a, b, c]) await p.sync.startSync();
    await a.sync.store.execute('INSERT INTO notes DOCUMENTS (:n)', { n: { _id: 'n1', text: 'from a' } });
    await until('c has n1', async () => (await count(c.sync, 'notes')) === 1);
    expect(sessionKeys(a)).toEqual([b.sync.peerKey]);
    expect(sessionKeys(c)).toEqual([b.sync.peerKey]);
    await c.sync.store.execute('UPDATE notes SET text = :t WHERE _id = :id', { t: 'edited on c', id: 'n1' });
    await until('a has the edit', async () => (await a.sync.store.execute('SELECT text FROM notes')).items[0]?.text === 'edited on c');
  });

  it('keep one session when both peers dial each other at once, and the loser does not redial', async () => {
    const network = new MemoryLanNetwork();
    const [portA, portB] = [await freePort(), await freePort()];
    const address = (port: number): string => `ws://127.0.0.1:${port}/_sync/ws`;
    const peer = (label: string, listen: number, dial: number): Peer =>
      lanPeer({
        network,
        label,
        sync: { bigPeer: false, listen: { host: '127.0.0.1', port: listen }, connect: [address(dial)], reconnect: { minDelayMs: 20, maxDelayMs: 200 } },
      });
    const a = peer('a', portA, portB);
    const b = peer('b', portB, portA);
    await Promise.all([a.sync.startSync(), b.sync.startSync()]);
    await until('one session each', () => a.sync.sessions.length === 1 && b.sync.sessions.length === 1);
    await pause(800);
    const established = a.lines('peer.connection-established').length + b.lines('peer.connection-established').length;
    await pause(1_000);
    // Quiet: nobody dials again while the elected connection runs (before the fix, every ~400 ms).
    expect(a.lines('peer.connection-established').length + b.lines('peer.connection-established').length).toBe(established);
    // Both ends kept the same connection: the one dialed by the peer with the smaller key.
    const [small, large] = a.sync.peerKey < b.sync.peerKey ? [a, b] : [b, a];
    expect(small.sync.sessions[0]?.connectionType).toBe('WsClient');
    expect(large.sync.sessions[0]?.connectionType).toBe('WsServer');
    const parked = large.sync.connections.find((c) => c.direction === 'dialed');
    expect(parked).toMatchObject({ state: 'closed', reason: 'not dialed while another connection to this peer is elected', retryAt: undefined });
    // When the elected session ends, the parked dialer dials again (here in vain: the other stopped).
    await small.sync.stopSync();
    await until('the larger peer dialed again', () => large.lines('peer.stream-failed').length > 0);
  });
});

describe('transport configuration', () => {
  it('enableAllPeerToPeer() turns on every peer-to-peer transport; those this platform lacks are reported Unavailable with why, and LAN runs', async () => {
    const network = new MemoryLanNetwork();
    const config = new TransportConfig().enableAllPeerToPeer();
    config.bigPeer = false;
    config.peerToPeer.lan.listen = { host: '127.0.0.1' };
    const a = lanPeer({ network, label: 'a', sync: config });
    await a.sync.startSync();
    const conditions = new Map(a.sync.transportConditions.map((c) => [c.transport, c]));
    expect([...conditions.keys()].sort()).toEqual(['AWDL', 'BluetoothLE', 'LAN', 'P2PWifi', 'WifiAware']);
    expect(conditions.get('LAN')).toMatchObject({ condition: 'Ok' });
    for (const radio of ['AWDL', 'BluetoothLE', 'P2PWifi', 'WifiAware'] as const) {
      expect(conditions.get(radio)).toMatchObject({ condition: 'Unavailable' });
      expect(conditions.get(radio)?.reason).toContain(`has no such transport`);
    }
    const warnings = a.logs.filter((e) => e.event === 'transport.unavailable');
    expect(warnings.map((e) => e.level)).toEqual(['WARN', 'WARN', 'WARN', 'WARN']);
    expect(warnings[0]?.message).toMatch(
      /^Transport unavailable; transport = BluetoothLE; condition = Unavailable; reason = Bluetooth LE needs a platform Bluetooth API; SyncMesh on linux/,
    );
    await a.sync.stopSync();
    expect(a.sync.transportConditions.find((c) => c.transport === 'LAN')).toMatchObject({ condition: 'Stopped' });
  });

  it('refuses to start with only transports this platform lacks, and says which', async () => {
    const network = new MemoryLanNetwork();
    const a = lanPeer({ network, label: 'a', sync: { bigPeer: false, peerToPeer: { bluetoothLE: true, awdl: true } } });
    await expect(a.sync.startSync()).rejects.toMatchObject({
      code: 'sync/not-configured',
      message: expect.stringContaining('(BluetoothLE, AWDL are not available on this platform)'),
    });
    expect(a.sync.isSyncActive).toBe(false);
  });

  it('fails with sync/lan-failed when LAN is the only transport and cannot listen, and runs on without it otherwise', async () => {
    const network = new MemoryLanNetwork();
    const a = lanPeer({ network, label: 'a' });
    await a.sync.startSync();
    const taken = Number(new URL(a.sync.lanListenUrl as string).port);
    const b = lanPeer({ network, label: 'b', peerToPeer: { lan: { listen: { host: '127.0.0.1', port: taken } } } });
    await expect(b.sync.startSync()).rejects.toMatchObject({ code: 'sync/lan-failed' });
    expect(b.sync.isSyncActive).toBe(false);
    const c = lanPeer({
      network,
      label: 'c',
      sync: { bigPeer: false, listen: { host: '127.0.0.1', port: 0 }, peerToPeer: { lan: { listen: { host: '127.0.0.1', port: taken } } } },
    });
    await c.sync.startSync();
    expect(c.sync.isSyncActive).toBe(true);
    expect(c.sync.transportConditions).toMatchObject([{ transport: 'LAN', condition: 'TcpListenFailure' }]);
    expect(c.logs.find((e) => e.event === 'lan.failed')).toMatchObject({ level: 'ERROR' });
  });
});

describe('LAN peers coming and going', () => {
  it('do not pile up rows in the mesh when a neighbour restarts on a new port each time', async () => {
    const network = new MemoryLanNetwork();
    const a = lanPeer({ network, label: 'a' });
    await a.sync.startSync();
    const dir = mkdtempSync(join(tmpdir(), 'lan-restart-'));
    onExit.push(() => rmSync(dir, { recursive: true, force: true }));
    for (let i = 0; i < 5; i++) {
      const b = lanPeer({ network, label: 'b', persistenceDirectory: dir });
      await b.sync.startSync();
      await until(`a has a session with b #${i}`, () => a.sync.sessions.length === 1);
      b.sync.close();
      await until(`a lost b #${i}`, () => a.sync.sessions.length === 0);
    }
    expect(a.sync.connections.filter((c) => c.direction === 'dialed').length).toBeLessThanOrEqual(1);
    expect(a.sync.lanPeers.filter((p) => p.present)).toEqual([]);
  });

  it('keep a running session when one answer says the peer moved, and dial the new address only once it ends', async () => {
    const network = new MemoryLanNetwork();
    const a = lanPeer({ network, label: 'a' });
    const b = lanPeer({ network, label: 'b' });
    await a.sync.startSync();
    await b.sync.startSync();
    await until('a session', () => a.sync.sessions.length === 1 && b.sync.sessions.length === 1);
    const name = a.sync.lanPeers[0]?.name as string;
    const ended = (): number =>
      a.logs.filter((e) => e.event === 'replication.session-ended').length + b.logs.filter((e) => e.event === 'replication.session-ended').length;
    const endedBefore = ended();
    network.announce({ peerKey: b.sync.peerKey, appID: APP, protocolVersion: 2, address: '127.0.0.1', port: 9, name });
    network.announce({ peerKey: a.sync.peerKey, appID: APP, protocolVersion: 2, address: '127.0.0.1', port: 9, name: b.sync.lanPeers[0]?.name as string });
    await pause(300);
    expect(ended()).toBe(endedBefore);
    expect(a.sync.sessions.map((s) => s.remote.peerKey)).toEqual([b.sync.peerKey]);
    expect(b.sync.sessions.map((s) => s.remote.peerKey)).toEqual([a.sync.peerKey]);
  });

  it('stop starting when the Sync is closed while LAN starts, leaving nothing listening', async () => {
    const a = lanPeer({ network: new MemoryLanNetwork(), label: 'a' });
    let release: () => void = () => {};
    const slow = new MemoryLanNetwork().discovery('slow');
    const held = new Promise<void>((resolve) => (release = resolve));
    const sync = new Sync({
      inMemory: true,
      fetch: defaultLogin.fetch,
      identity: onlinePlayground({ appID: APP, token: TOKEN, bigPeerURL: 'http://big-peer.invalid' }),
      lanDiscovery: () => ({
        start: async (ad, events) => {
          await held;
          await slow.start(ad, events);
        },
        stop: () => slow.stop(),
      }),
      sync: { bigPeer: false, peerToPeer: { lan: { listen: { host: '127.0.0.1', port: await freePort() } } } },
    });
    opened.push(sync);
    void a;
    const starting = sync.startSync();
    await pause(100);
    sync.close();
    release();
    await expect(starting).rejects.toMatchObject({ code: 'sync/closed' });
    expect(sync.isSyncActive).toBe(false);
  });
});
