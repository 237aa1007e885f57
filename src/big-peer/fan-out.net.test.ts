/**
 * Fan-out of one commit to many sessions over real WebSockets on 127.0.0.1 (issue 23): a Big
 * Peer with small peers of three shapes (two subscriptions, two sets of read rules) sends each
 * what it subscribes to and may read, building one update per shape per commit (its fan-out
 * counts); a small peer that falls behind catches up on its own path, in order, while the others
 * keep sharing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../shared/log.ts';
import { LogHub, Sync, onlineWithAuthentication } from '../peer/host.ts';
import { TEST_APP, startTestPeer, startWebhook, waitUntil, type TestPeer } from '../testing/big-peer/test-helpers.ts';

/** Read rules by token: `all` reads every order, `east` only the east's. */
const READ_RULES: Record<string, string[]> = { all: ['true'], east: ["region = 'east'"] };

interface SmallPeer {
  readonly sync: Sync;
  readonly logs: LogEntry[];
  /** The `_id`s of orders this peer committed, in commit order. */
  readonly arrived: string[];
}

const opened: Sync[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const sync of opened.splice(0)) sync.close();
  for (const close of closers.splice(0).reverse()) await close();
});

async function bigPeerWithRules(): Promise<TestPeer> {
  const webhook = await startWebhook((body: { token: string }) => ({
    body: JSON.stringify({
      authenticated: true,
      userID: `user-${body.token}`,
      expirationSeconds: 3600,
      permissions: {
        read: { everything: false, queriesByCollection: { orders: READ_RULES[body.token] ?? [] } },
        write: { everything: false, queriesByCollection: {} },
      },
    }),
  }));
  closers.push(() => webhook.close());
  const big = await startTestPeer({ authProviders: { corp: { url: webhook.url } } });
  closers.push(() => big.close());
  return big;
}

/** A small peer logged in with `token` (its read rules), subscribed with `subscription`. */
function smallPeer(big: TestPeer, token: string, subscription: string): SmallPeer {
  const hub = new LogHub({ minimumLogLevel: 'WARN' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  const sync = new Sync({
    inMemory: true,
    logHub: hub,
    identity: onlineWithAuthentication({
      appID: TEST_APP,
      bigPeerURL: big.url,
      provider: 'corp',
      authHandler: {
        authenticationRequired: (auth) => void auth.login(token, 'corp'),
        authenticationExpiringSoon: (auth) => void auth.login(token, 'corp'),
      },
    }),
    sync: { reconnect: { minDelayMs: 20, maxDelayMs: 200 } },
  });
  opened.push(sync);
  const arrived: string[] = [];
  sync.store.onCommit((txn) => {
    for (const change of txn.changes) if (change.collection === 'orders' && change.kind === 'put') arrived.push(String(change.id));
  });
  sync.store.registerSubscription(subscription);
  return { sync, logs, arrived };
}

const idsOf = async (sync: Sync): Promise<string[]> => (await sync.store.execute('SELECT * FROM orders ORDER BY _id')).items.map((d) => String(d._id));

async function insert(big: TestPeer, ...docs: { _id: string; region: string }[]): Promise<void> {
  const values = docs.map((_, i) => `(:d${i})`).join(', ');
  await big.peer.sync.store.execute(`INSERT INTO orders DOCUMENTS ${values}`, Object.fromEntries(docs.map((d, i) => [`d${i}`, d])));
}

/** Every peer holds `ids` (and nothing else) and the Big Peer has nothing left to send or to be acknowledged. */
async function settled(big: TestPeer, expected: ReadonlyMap<SmallPeer, readonly string[]>): Promise<void> {
  await waitUntil('every small peer holds what it should', async () => {
    for (const [peer, ids] of expected) if (JSON.stringify(await idsOf(peer.sync)) !== JSON.stringify(ids)) return false;
    return true;
  });
  await waitUntil('the Big Peer is idle', () => big.peer.sync.isReplicationIdle);
}

describe('fan-out of one commit to many sessions', () => {
  it('sends each of three shapes what it subscribes to and may read, building one update per shape per commit', async () => {
    const big = await bigPeerWithRules();
    const perShape = 5;
    const shapes = {
      eastOnly: Array.from({ length: perShape }, () => smallPeer(big, 'all', "SELECT * FROM orders WHERE region = 'east'")),
      everyOrder: Array.from({ length: perShape }, () => smallPeer(big, 'all', 'SELECT * FROM orders')),
      readsEast: Array.from({ length: perShape }, () => smallPeer(big, 'east', 'SELECT * FROM orders')),
    };
    const all = Object.values(shapes).flat();
    await Promise.all(all.map((p) => p.sync.startSync()));
    await waitUntil('every small peer has a session', () => all.every((p) => p.sync.sessions.length === 1));
    await insert(big, { _id: 'e0', region: 'east' });
    await settled(big, new Map(all.map((p) => [p, ['e0']])));

    const before = big.peer.sync.fanOut;
    await insert(big, { _id: 'e1', region: 'east' });
    await settled(big, new Map(all.map((p) => [p, ['e0', 'e1']])));
    const afterEast = big.peer.sync.fanOut;
    // One commit, three shapes: three builds, one for each, served to all fifteen sessions.
    expect({ built: (afterEast?.built ?? 0) - (before?.built ?? 0), served: (afterEast?.served ?? 0) - (before?.served ?? 0) }).toEqual({
      built: 3,
      served: 3 * perShape,
    });

    await insert(big, { _id: 'w1', region: 'west' });
    await settled(
      big,
      new Map<SmallPeer, readonly string[]>([
        ...shapes.eastOnly.map((p) => [p, ['e0', 'e1']] as const),
        ...shapes.everyOrder.map((p) => [p, ['e0', 'e1', 'w1']] as const),
        ...shapes.readsEast.map((p) => [p, ['e0', 'e1']] as const),
      ]),
    );
    const afterWest = big.peer.sync.fanOut;
    expect({ built: (afterWest?.built ?? 0) - (afterEast?.built ?? 0), served: (afterWest?.served ?? 0) - (afterEast?.served ?? 0) }).toEqual({
      built: 3,
      served: 3 * perShape,
    });
    for (const peer of all) expect(peer.logs.filter((e) => e.level === 'WARN' || e.level === 'ERROR')).toEqual([]);
  });

  it('lets a small peer that fell behind catch up on its own updates, in order, while the others share theirs', async () => {
    const big = await bigPeerWithRules();
    const peers = Array.from({ length: 6 }, () => smallPeer(big, 'all', 'SELECT * FROM orders'));
    const [lagging, ...others] = peers as [SmallPeer, ...SmallPeer[]];
    await Promise.all(peers.map((p) => p.sync.startSync()));
    await waitUntil('every small peer has a session', () => peers.every((p) => p.sync.sessions.length === 1));
    await lagging.sync.stopSync();
    const ids = Array.from({ length: 40 }, (_, i) => `o${String(i).padStart(2, '0')}`);
    for (const id of ids.slice(0, 20)) await insert(big, { _id: id, region: 'east' });
    await waitUntil('the others hold the first 20', async () => {
      for (const p of others) if ((await idsOf(p.sync)).length !== 20) return false;
      return true;
    });
    const before = big.peer.sync.fanOut;
    // The lagging peer comes back while writes go on: it starts from its own progress.
    const back = lagging.sync.startSync();
    for (const id of ids.slice(20)) await insert(big, { _id: id, region: 'west' });
    await back;
    await settled(big, new Map(peers.map((p) => [p, ids])));
    const after = big.peer.sync.fanOut;
    // The five in step share each update they are sent (commits made meanwhile come together in
    // one); the lagging one, at a starting point of its own, is not among them.
    const served = (after?.served ?? 0) - (before?.served ?? 0);
    const built = (after?.built ?? 0) - (before?.built ?? 0);
    expect(served).toBeGreaterThanOrEqual(others.length);
    expect(served - built).toBeGreaterThanOrEqual(others.length - 1);
    for (const peer of peers) {
      expect(peer.arrived).toEqual(ids);
      expect(peer.logs.filter((e) => e.level === 'WARN' || e.level === 'ERROR')).toEqual([]);
    }
  });
});
