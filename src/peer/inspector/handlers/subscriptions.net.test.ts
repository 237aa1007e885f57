/**
 * Remote subscription sets over WebSockets on 127.0.0.1: the Big Peer's `everything` seen from a
 * small peer, a small peer's queries seen from the Big Peer, and the event when a remote's set
 * changes.
 */
import { afterEach, expect, it } from 'vitest';
import type { EventName } from '../../../shared/inspector/contract.ts';
import type { SubscriptionsSnapshot } from '../../../shared/inspector/subscriptions.ts';
import { createInspector, type Inspector } from '../inspector.ts';
import { netKit, until, type NetKit } from '../../../testing/inspector/net-kit.ts';
import { serveCall } from '../serve-call.ts';

let kit: NetKit | undefined;
const inspectors: Inspector[] = [];
afterEach(async () => {
  for (const i of inspectors.splice(0)) i.close();
  await kit?.dispose();
});

async function list(inspector: Inspector): Promise<SubscriptionsSnapshot> {
  const result = await serveCall(inspector.openSession().handlers, 'subscriptions:list', {});
  if (!result.ok) throw new Error(result.error.message);
  return result.value as SubscriptionsSnapshot;
}

it('shows each remote’s set with what it matches here, and pushes subscriptions:changed when a remote’s set changes', async () => {
  kit = netKit();
  const big = await kit.bigPeer();
  const docs = Array.from({ length: 6 }, (_, i) => ({ _id: `o${i}`, n: i, locationId: i < 4 ? 'A' : 'B' }));
  await big.sync.store.execute(
    `INSERT INTO orders DOCUMENTS ${docs.map((_, i) => `(:d${i})`).join(', ')}`,
    Object.fromEntries(docs.map((d, i) => [`d${i}`, d])),
  );
  await big.sync.store.execute('INSERT INTO people DOCUMENTS (:p)', { p: { _id: 'p' } });
  const small = kit.smallPeer('clerk', { bigPeerURL: big.url });
  small.sync.store.registerSubscription("SELECT * FROM orders WHERE locationId = 'A'");
  small.sync.store.registerSubscription('SELECT * FROM orders ORDER BY n DESC LIMIT 2');
  const bigInspector = createInspector(big.sync);
  const smallInspector = createInspector(small.sync);
  inspectors.push(bigInspector, smallInspector);
  const events: EventName[] = [];
  bigInspector.openSession().onEvent((event) => events.push(event));
  await small.sync.startSync();
  await until('the Big Peer has the small peer’s set', () => big.sync.sessions[0]?.remoteSubscriptions !== undefined);
  await until(
    'the small peer has the Big Peer’s set and 6 orders',
    async () => small.sync.sessions[0]?.remoteSubscriptions !== undefined && (await small.sync.store.execute('SELECT * FROM orders')).items.length === 6,
  );

  const onBig = await list(bigInspector);
  expect(onBig.localSet).toEqual({ everything: false, queries: { __presence: [{ expr: 'true', order_by: [] }] } });
  expect(onBig.remotes).toHaveLength(1);
  const remote = onBig.remotes[0];
  expect(remote).toMatchObject({ peerKey: small.sync.peerKey, role: 'small-peer' });
  expect(remote?.queries.map((q) => [q.collection, q.query.expr, q.matchingDocuments])).toEqual([
    ['__presence', 'true', 0],
    ['orders', "(locationId = 'A')", 4],
    ['orders', 'true', 2],
  ]);
  // o0–o3 by the condition, o4 and o5 by the window: six documents, each once.
  expect(remote?.matchingDocuments).toBe(6);

  const onSmall = await list(smallInspector);
  expect(onSmall.remotes).toEqual([{ peerKey: big.sync.peerKey, role: 'big-peer', set: { everything: true, queries: {} }, queries: [], matchingDocuments: 6 }]);

  await until('the events of the session start are out', () => events.includes('subscriptions:changed'));
  const before = events.filter((e) => e === 'subscriptions:changed').length;
  small.sync.store.registerSubscription('SELECT * FROM people');
  await until('the Big Peer’s inspector is told', () => events.filter((e) => e === 'subscriptions:changed').length > before);
  const after = await list(bigInspector);
  expect(after.remotes[0]?.queries.find((q) => q.collection === 'people')?.matchingDocuments).toBe(1);
});
