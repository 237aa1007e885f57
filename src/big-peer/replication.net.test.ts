/**
 * Replication over real WebSockets on 127.0.0.1: small peers (`Sync` with a playground or
 * webhook identity) and a real Big Peer; the connection log sequence (spec 3.4), documents both
 * ways, a Big Peer restart with nothing lost, two small peers dialing each other directly, and a
 * subscription refused for want of read permission (spec 5.7).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../shared/log.ts';
import { LogHub, Sync, onlinePlayground, onlineWithAuthentication, type SyncOptions } from '../peer/host.ts';
import { PLAYGROUND_TOKEN, TEST_APP, startTestPeer, startWebhook, type TestPeer } from '../testing/big-peer/test-helpers.ts';

const WAIT_MS = 10_000;

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'repl-net-'));
  dirs.push(dir);
  return dir;
};

interface Peer {
  readonly sync: Sync;
  readonly logs: LogEntry[];
}

const peers: Sync[] = [];
function smallPeer(options: Partial<SyncOptions> & { bigPeerURL: string }): Peer {
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  const { bigPeerURL, ...rest } = options;
  const sync = new Sync({
    inMemory: true,
    logHub: hub,
    identity: onlinePlayground({ appID: TEST_APP, token: PLAYGROUND_TOKEN, bigPeerURL }),
    sync: { reconnect: { minDelayMs: 20, maxDelayMs: 200 } },
    ...rest,
  });
  peers.push(sync);
  return { sync, logs };
}

const count = async (sync: Sync, collection: string): Promise<number> =>
  Number((await sync.store.execute(`SELECT COUNT(*) AS n FROM ${collection}`)).items[0]?.n);

afterEach(() => {
  for (const p of peers.splice(0)) p.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('a small peer and the Big Peer over WebSocket', () => {
  let big: TestPeer;
  beforeEach(async () => {
    big = await startTestPeer();
  });
  afterEach(() => big.close());

  it('sends again what a peer evicted while sync was stopped, as its subscription still asks for it', async () => {
    const { sync } = smallPeer({ bigPeerURL: big.url });
    await big.peer.sync.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'a' }), ({ _id: 'b' })");
    sync.store.registerSubscription('SELECT * FROM orders');
    await sync.startSync();
    await until('the orders arrive', async () => (await count(sync, 'orders')) === 2);
    await sync.stopSync();
    await sync.store.execute('EVICT FROM orders');
    expect(await count(sync, 'orders')).toBe(0);
    await sync.startSync();
    await until('the orders come back', async () => (await count(sync, 'orders')) === 2);
  });

  it('logs Discovered, ConnectionEstablished (WsClient), phy started and VirtConnElectedNewConn, in order', async () => {
    const { sync, logs } = smallPeer({ bigPeerURL: big.url });
    await sync.startSync();
    await until('the connection is elected', () => logs.some((e) => e.event === 'replication.connection-elected'));
    const events = ['peer.discovered', 'peer.connection-established', 'replication.phy-started', 'replication.connection-elected'];
    const lines = logs.filter((e) => events.includes(e.event)).map((e) => e.message);
    const wsUrl = big.peer.wsUrl;
    expect(lines).toEqual([
      `Discovered; peer = WebSocketClientPeer; connect_address = ${wsUrl}`,
      expect.stringMatching(new RegExp(`^ConnectionEstablished; connection_type = WsClient; connection = WsClient#\\d+; remote_address = ${wsUrl}$`)),
      `phy started; remote = ${big.peer.sync.peerKey}`,
      expect.stringMatching(new RegExp(`^VirtConnElectedNewConn; remote = ${big.peer.sync.peerKey}; new_conn = WsClient#\\d+; old_conn = none$`)),
    ]);
    const established = logs.find((e) => e.event === 'peer.connection-established');
    const elected = logs.find((e) => e.event === 'replication.connection-elected');
    expect(elected?.fields.new_conn).toBe(established?.fields.connection);
    expect(elected?.fields.old_conn).toBe('');
  });

  it('sends its writes to the Big Peer and receives what its subscriptions match, observers included', async () => {
    const { sync } = smallPeer({ bigPeerURL: big.url });
    sync.store.registerSubscription('SELECT * FROM orders WHERE locationId = 1');
    const seen: string[][] = [];
    sync.store.registerObserver('SELECT * FROM orders ORDER BY _id', (event) => seen.push(event.items.map((d) => String(d._id))));
    await big.peer.sync.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a', locationId: 1 }, b: { _id: 'b', locationId: 2 } });
    await sync.startSync();
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:c)', { c: { _id: 'c', locationId: 1 } });
    await until('the Big Peer has c', async () => (await count(big.peer.sync, 'orders')) === 3);
    await until('the small peer has a and c', () => JSON.stringify(seen.at(-1)) === '["a","c"]');
    expect(await count(sync, 'orders')).toBe(2);
  });

  it('brings a write on one small peer to another through the Big Peer', async () => {
    const a = smallPeer({ bigPeerURL: big.url });
    const b = smallPeer({ bigPeerURL: big.url });
    b.sync.store.registerSubscription('SELECT * FROM notes');
    await Promise.all([a.sync.startSync(), b.sync.startSync()]);
    await a.sync.store.execute('INSERT INTO notes DOCUMENTS (:n)', { n: { _id: 'n1', text: 'hello' } });
    await until('b has the note', async () => (await count(b.sync, 'notes')) === 1);
    expect((await b.sync.store.execute('SELECT * FROM notes')).items).toEqual([{ _id: 'n1', text: 'hello' }]);
    // a subscribes to nothing: it is not sent b's documents.
    await b.sync.store.execute('INSERT INTO notes DOCUMENTS (:n)', { n: { _id: 'n2' } });
    await until('the Big Peer has n2', async () => (await count(big.peer.sync, 'notes')) === 2);
    expect(await count(a.sync, 'notes')).toBe(1);
  });

  it('refuses, with a typed error, a subscription to a collection its certificate does not let it read', async () => {
    await big.close();
    const webhook = await startWebhook(() => ({
      body: JSON.stringify({
        authenticated: true,
        userID: 'clerk',
        expirationSeconds: 3600,
        permissions: {
          read: { everything: false, queriesByCollection: { orders: ['true'] } },
          write: { everything: false, queriesByCollection: { orders: ['true'] } },
        },
      }),
    }));
    try {
      big = await startTestPeer({ authProviders: { corp: { url: webhook.url } } });
      const { sync } = smallPeer({
        bigPeerURL: big.url,
        identity: onlineWithAuthentication({
          appID: TEST_APP,
          bigPeerURL: big.url,
          provider: 'corp',
          authHandler: {
            authenticationRequired: (auth) => void auth.login('jwt', 'corp'),
            authenticationExpiringSoon: (auth) => void auth.login('jwt', 'corp'),
          },
        }),
      });
      await sync.startSync();
      await until('logged in', () => sync.auth.status.authenticated);
      expect(() => sync.store.registerSubscription('SELECT * FROM payroll')).toThrow(expect.objectContaining({ code: 'sync/permission-denied' }));
      expect(() => sync.store.collection('payroll').find('amount > 0').subscribe()).toThrow(/may not read the collection payroll/);
      // An application's own `__` collection is under the rules like any other; only presence is readable by all.
      expect(() => sync.store.registerSubscription('SELECT * FROM __private')).toThrow(expect.objectContaining({ code: 'sync/permission-denied' }));
      expect(sync.store.registerSubscription('SELECT * FROM orders').collection).toBe('orders');
      expect(sync.store.subscriptions.map((s) => s.collection)).toEqual(['__presence', 'orders']);
    } finally {
      await webhook.close();
    }
  });

  it('rejects startSync with auth/failed for a wrong playground token, and keeps running', async () => {
    const { sync } = smallPeer({ bigPeerURL: big.url, identity: onlinePlayground({ appID: TEST_APP, token: 'wrong', bigPeerURL: big.url }) });
    await expect(sync.startSync()).rejects.toMatchObject({ code: 'auth/failed' });
    expect(sync.isSyncActive).toBe(false);
    expect((await sync.store.execute('SELECT * FROM orders')).items).toEqual([]);
  });

  it('rejects startSync with sync/not-configured on a peer without an identity', async () => {
    const sync = new Sync({ inMemory: true, logHub: new LogHub() });
    peers.push(sync);
    await expect(sync.startSync()).rejects.toMatchObject({ code: 'sync/not-configured' });
  });
});

describe('reconnection', () => {
  it('reconnects after the Big Peer restarts, and nothing written on either side meanwhile is lost', async () => {
    const bigDir = tempDir();
    let big = await startTestPeer({ dataDir: bigDir });
    const port = big.peer.port;
    const url = big.url;
    const { sync, logs } = smallPeer({ bigPeerURL: url, inMemory: false, persistenceDirectory: tempDir() });
    sync.store.registerSubscription('SELECT * FROM orders');
    await sync.startSync();
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'before' } });
    await until('the Big Peer has it', async () => (await count(big.peer.sync, 'orders')) === 1);
    await big.close();
    await until('the small peer saw the connection end', () => logs.some((e) => e.event === 'peer.connection-ended'));
    await sync.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'while-down' } });
    await until('a failed reconnection', () => logs.some((e) => e.event === 'peer.stream-failed'));
    big = await startTestPeer({ dataDir: bigDir, port });
    try {
      await big.peer.sync.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'on-the-big-peer' } });
      await until('the Big Peer has the write made while it was down', async () => (await count(big.peer.sync, 'orders')) === 3);
      await until('the small peer has the Big Peer’s write', async () => (await count(sync, 'orders')) === 3);
      expect(logs.filter((e) => e.event === 'replication.connection-elected')).toHaveLength(2);
    } finally {
      await big.close();
    }
  });
});

describe('two small peers given each other’s address', () => {
  it('sync directly, and go on syncing once the Big Peer is gone', async () => {
    const big = await startTestPeer();
    const a = smallPeer({ bigPeerURL: big.url, sync: { bigPeer: false, listen: { host: '127.0.0.1', port: 0 } } });
    await a.sync.startSync();
    const address = a.sync.listenUrl as string;
    expect(address).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/_sync\/ws$/);
    const b = smallPeer({ bigPeerURL: big.url, sync: { bigPeer: false, connect: [address], reconnect: { minDelayMs: 20, maxDelayMs: 200 } } });
    b.sync.store.registerSubscription('SELECT * FROM tasks');
    a.sync.store.registerSubscription('SELECT * FROM tasks');
    await b.sync.startSync();
    await big.close(); // Certificates are held: the peers no longer need the Big Peer.
    await a.sync.store.execute('INSERT INTO tasks DOCUMENTS (:t)', { t: { _id: 't1', done: false } });
    await until('b has t1', async () => (await count(b.sync, 'tasks')) === 1);
    await b.sync.store.execute('UPDATE tasks SET done = true WHERE _id = :id', { id: 't1' });
    await until('a sees t1 done', async () => (await a.sync.store.execute('SELECT done FROM tasks')).items[0]?.done === true);
    expect(a.sync.sessions.map((s) => [s.remote.peerKey, s.connectionType])).toEqual([[b.sync.peerKey, 'WsServer']]);
    expect(b.sync.sessions.map((s) => [s.remote.peerKey, s.connectionType])).toEqual([[a.sync.peerKey, 'WsClient']]);
  });
});
