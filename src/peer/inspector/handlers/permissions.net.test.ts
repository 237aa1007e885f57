/**
 * Permissions of connected peers over WebSockets on 127.0.0.1: a small peer whose certificate
 * allows only the orders of location A, seen from its own inspector and from the Big Peer's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CallName, CallOutput } from '../../../shared/inspector/contract.ts';
import { EVERYTHING } from '../../../shared/permissions.ts';
import { createInspector, type Inspector } from '../inspector.ts';
import { netKit, until, type NetKit } from '../../../testing/inspector/net-kit.ts';
import { serveCall } from '../serve-call.ts';

const LOCATION_A = {
  read: { everything: false, queries_by_collection: { orders: ["locationId = 'A'"] } },
  write: { everything: false, queries_by_collection: { orders: ["locationId = 'A'"] } },
};

let kit: NetKit | undefined;
const inspectors: Inspector[] = [];
afterEach(async () => {
  for (const i of inspectors.splice(0)) i.close();
  await kit?.dispose();
});

function caller(inspector: Inspector) {
  const session = inspector.openSession();
  return async <C extends CallName>(channel: C, input: unknown = {}): Promise<CallOutput<C>> => {
    const result = await serveCall(session.handlers, channel, input);
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.value as CallOutput<C>;
  };
}

describe('permissions over a live session', () => {
  it('lists the local certificate’s rules and each connected peer’s, and checks one document for each', async () => {
    kit = netKit();
    const big = await kit.bigPeer();
    const small = kit.smallPeer('clerk', { bigPeerURL: big.url, permissions: LOCATION_A });
    const bigInspector = createInspector(big.sync);
    const smallInspector = createInspector(small.sync);
    inspectors.push(bigInspector, smallInspector);
    const onBig = caller(bigInspector);
    const onSmall = caller(smallInspector);
    expect((await onSmall('permissions:list')).local).toEqual({ peerKey: small.sync.peerKey, role: 'local', permissions: undefined });
    await small.sync.startSync();
    await until('both sides have the session', () => small.sync.sessions.length === 1 && big.sync.sessions.length === 1);
    await big.sync.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a', locationId: 'A' }, b: { _id: 'b', locationId: 'B' } });

    expect(await onSmall('permissions:list')).toEqual({
      local: { peerKey: small.sync.peerKey, role: 'local', permissions: LOCATION_A },
      remotes: [{ peerKey: big.sync.peerKey, role: 'big-peer', permissions: EVERYTHING }],
    });
    expect(await onBig('permissions:list')).toEqual({
      local: { peerKey: big.sync.peerKey, role: 'local', permissions: EVERYTHING },
      remotes: [{ peerKey: small.sync.peerKey, role: 'small-peer', permissions: LOCATION_A }],
    });

    const a = await onBig('permissions:check', { collection: 'orders', id: 'a' });
    expect(a).toEqual({
      collection: 'orders',
      id: 'a',
      found: true,
      peers: [
        {
          peerKey: big.sync.peerKey,
          role: 'local',
          read: { allowed: true, reason: 'read.everything is true' },
          write: { allowed: true, reason: 'write.everything is true' },
        },
        {
          peerKey: small.sync.peerKey,
          role: 'small-peer',
          read: { allowed: true, reason: "read.queries_by_collection.orders: locationId = 'A' matches" },
          write: { allowed: true, reason: "write.queries_by_collection.orders: locationId = 'A' matches" },
        },
      ],
    });
    const b = await onBig('permissions:check', { collection: 'orders', id: 'b' });
    expect(b.peers[1]?.read).toEqual({ allowed: false, reason: "read.queries_by_collection.orders: no rule matches (locationId = 'A')" });
    const people = await onBig('permissions:check', { collection: 'people', id: 'p' });
    expect(people.found).toBe(false);
    expect(people.peers[1]?.read).toEqual({ allowed: false, reason: 'no read rule for collection people' });

    // The small peer does not hold b: its own rules cannot decide it.
    const fromSmall = await onSmall('permissions:check', { collection: 'orders', id: 'b' });
    expect(fromSmall.found).toBe(false);
    expect(fromSmall.peers.map((p) => [p.role, p.read.allowed, p.read.reason])).toEqual([
      ['local', false, 'document not held here: rules with conditions cannot be decided'],
      ['big-peer', true, 'read.everything is true'],
    ]);
  });

  it('refuses bad input naming the field', async () => {
    kit = netKit();
    const big = await kit.bigPeer();
    const inspector = createInspector(big.sync);
    inspectors.push(inspector);
    const session = inspector.openSession();
    for (const [input, field] of [
      [{ id: 'a' }, 'collection'],
      [{ collection: 'orders' }, 'id'],
      [{ collection: 'orders', id: 3 }, 'id'],
      [{ collection: 'orders', id: 'a', as: 'x' }, 'as'],
    ] as const) {
      const result = await serveCall(session.handlers, 'permissions:check', input);
      expect(result.ok ? 'ok' : [result.error.code, result.error.message.split(':')[0]]).toEqual(['inspector/bad-request', field]);
    }
    const list = await serveCall(session.handlers, 'permissions:list', { peer: 'x' });
    expect(list.ok ? 'ok' : list.error.code).toBe('inspector/bad-request');
  });
});
