/**
 * The acceptance suite of a Big Peer's state: whatever its store (SQLite in a directory,
 * PostgreSQL shared by nodes), everything a node would need lives in it, so that a node started
 * on it later (the same one restarted, or another) carries on: documents with their merge
 * metadata and tombstones, the peer identity, the issuer keys, API keys and replication
 * progress. Run by state.net.test.ts (SQLite) and postgres/state.net.test.ts (PostgreSQL), over
 * real HTTP and WebSocket on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../shared/permissions.ts';
import { LogHub, Sync, onlinePlayground } from '../../peer/host.ts';
import { BigPeer } from '../../big-peer/big-peer.ts';
import { bigPeerConfig } from '../../big-peer/config.ts';
import { PLAYGROUND_TOKEN, TEST_APP, call, waitUntil } from './test-helpers.ts';

/** One store: each `open()` is a new Sync on it, as a node starting on it would make. */
export interface StoreUnderTest {
  open(): Sync;
}

const ids = async (sync: Sync, collection = 'orders'): Promise<unknown[]> =>
  (await sync.store.execute(`SELECT _id FROM ${collection} ORDER BY _id`)).items.map((d) => d._id);

/** `newStore()` gives a fresh, empty store each call. */
export function runBigPeerStateTests(name: string, newStore: () => StoreUnderTest): void {
  describe(`a Big Peer's state on ${name}`, () => {
    const closing: (() => unknown)[] = [];
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
    });

    /** A node on a new Sync of the store (on `port`, or a free one); `stop()` closes both, as the node's exit would. */
    async function node(store: StoreUnderTest, port = 0): Promise<{ peer: BigPeer; stop(): Promise<void> }> {
      const sync = store.open();
      let peer: BigPeer;
      try {
        peer = await BigPeer.start(bigPeerConfig({ appID: TEST_APP, playgroundToken: PLAYGROUND_TOKEN, port }), {
          sync,
          logHub: new LogHub({ minimumLogLevel: 'ERROR' }),
        });
      } catch (error) {
        sync.close();
        throw error;
      }
      let stopped = false;
      const stop = async (): Promise<void> => {
        if (stopped) return;
        stopped = true;
        await peer.close();
        sync.close();
      };
      closing.push(stop);
      return { peer, stop };
    }

    function smallPeer(url: string): Sync {
      const sync = new Sync({
        inMemory: true,
        logHub: new LogHub({ minimumLogLevel: 'ERROR' }),
        identity: onlinePlayground({ appID: TEST_APP, token: PLAYGROUND_TOKEN, bigPeerURL: url }),
        sync: { reconnect: { minDelayMs: 20, maxDelayMs: 200 } },
      });
      closing.push(() => sync.close());
      return sync;
    }

    it('keeps its peer identity, issuer keys and API keys for the next node', async () => {
      const store = newStore();
      const first = await node(store);
      const { key } = await first.peer.apiKeys.create('ops', EVERYTHING, Date.now());
      const before = { peerKey: first.peer.sync.peerKey, issuer: first.peer.issuer.publicKey };
      await first.stop();
      const second = await node(store);
      expect({ peerKey: second.peer.sync.peerKey, issuer: second.peer.issuer.publicKey }).toEqual(before);
      const answer = await call(`${second.peer.url}/api/v4/store/execute`, {
        method: 'POST',
        body: { statement: 'SELECT * FROM orders' },
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      });
      expect(answer.status).toBe(200);
    });

    it('keeps documents with their merge metadata and tombstones: a deletion stays deleted and later changes merge per field', async () => {
      const store = newStore();
      const first = await node(store);
      const port = first.peer.port;
      const a = smallPeer(first.peer.url);
      a.store.registerSubscription('SELECT * FROM orders');
      await a.startSync();
      await a.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'kept', total: 1, status: 'new' }), ({ _id: 'gone', total: 2 })");
      await a.store.execute("DELETE FROM orders WHERE _id = 'gone'");
      await waitUntil('the node has the tombstone', () => first.peer.sync.store.readNow((r) => r.get('orders', 'gone')?.value === null));
      const meta = first.peer.sync.store.readNow((r) => r.get('orders', 'kept')?.meta);
      await first.stop();

      const second = await node(store, port);
      expect(second.peer.sync.store.readNow((r) => [r.get('orders', 'kept')?.meta, r.get('orders', 'gone')?.value])).toEqual([meta, null]);
      const b = smallPeer(second.peer.url);
      b.store.registerSubscription('SELECT * FROM orders');
      await b.startSync();
      await waitUntil('b holds the live order', async () => (await ids(b)).length === 1);
      expect(await ids(b)).toEqual(['kept']);
      // a (reconnected to the new node on the same address) and b change different fields at once.
      await waitUntil('a is back', () => a.sessions.length === 1);
      await Promise.all([
        b.store.execute("UPDATE orders SET status = 'paid' WHERE _id = 'kept'"),
        a.store.execute("UPDATE orders SET total = 5 WHERE _id = 'kept'"),
      ]);
      const merged = async (sync: Sync) => JSON.stringify((await sync.store.execute("SELECT status, total FROM orders WHERE _id = 'kept'")).items);
      await waitUntil(
        'both peers hold the merge',
        async () => (await merged(a)) === '[{"status":"paid","total":5}]' && (await merged(b)) === (await merged(a)),
      );
      expect(await ids(a)).toEqual(['kept']);
    });

    it('keeps replication progress: a small peer back after the node restarted sends only what it wrote since', async () => {
      const store = newStore();
      const first = await node(store);
      const port = first.peer.port;
      const a = smallPeer(first.peer.url);
      a.store.registerSubscription('SELECT * FROM orders');
      await a.startSync();
      await a.store.execute('INSERT INTO orders DOCUMENTS (:docs)', {
        docs: Array.from({ length: 50 }, (_, i) => ({ _id: `o${String(i).padStart(2, '0')}` })),
      });
      await waitUntil('the node holds the 50 orders', async () => (await ids(first.peer.sync)).length === 50);
      // It saves what it holds of a's changes just before it acknowledges them.
      await waitUntil('the node saved its progress with a', () =>
        first.peer.sync.store.readNow((r) => r.setting(`replication/progress/${a.peerKey}`) !== undefined),
      );
      await a.stopSync();
      await first.stop();

      const second = await node(store, port);
      await a.store.execute("INSERT INTO orders DOCUMENTS ({ _id: 'later' })");
      const sentBefore = a.traffic.docsSent;
      await a.startSync();
      await waitUntil('the node holds the later order', async () => (await ids(second.peer.sync)).length === 51);
      await new Promise((resolve) => setTimeout(resolve, 200)); // anything sent again would have come by now
      expect(a.traffic.docsSent - sentBefore).toBe(1);
    });
  });
}
