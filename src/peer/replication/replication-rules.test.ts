/**
 * Replication under permissions, eviction and the protocol's own rules, over the in-memory
 * transport: what a peer may read and write, what comes back after an EVICT, and what a
 * malformed or refused session leaves behind.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANNOUNCE_CLOSE_CODES } from '../../shared/protocol/announce.ts';
import { memoryConnectionPair } from './memory-transport.ts';
import { SessionRefused } from './handshake.ts';
import { createMesh, ids, rows, type Mesh } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

const LOCATION_1 = {
  read: { everything: false, queries_by_collection: { orders: ['locationId = 1'] } },
  write: { everything: false, queries_by_collection: { orders: ['locationId = 1'] } },
};

describe('permissions', () => {
  it('sends a peer only the documents it may read, whatever it subscribes to', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small', { permissions: LOCATION_1 });
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a', locationId: 1 }, b: { _id: 'b', locationId: 2 } });
    await big.store.execute('INSERT INTO people DOCUMENTS (:p)', { p: { _id: 'p' } });
    small.store.registerSubscription('SELECT * FROM orders');
    small.store.registerSubscription('SELECT * FROM people');
    await mesh.connect(small, big);
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['a']);
    expect(await ids(small, 'people')).toEqual([]);
    expect(big.lines()).toContain(`Not serving a subscription the remote peer may not read; remote = ${small.peerKey}; collection = people`);
  });

  it('refuses, logs and does not merge the writes a peer may not make', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small', { permissions: LOCATION_1 });
    await mesh.connect(small, big);
    await small.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a', locationId: 1 }, b: { _id: 'b', locationId: 2 } });
    await small.store.execute('INSERT INTO people DOCUMENTS (:p)', { p: { _id: 'p' } });
    await mesh.settle();
    expect(await ids(big, 'orders')).toEqual(['a']);
    expect(await ids(big, 'people')).toEqual([]);
    const refusals = big.logs.filter((e) => e.event === 'replication.writes-refused');
    expect(refusals.map((e) => [e.level, e.fields.collection, e.fields.count])).toEqual(
      expect.arrayContaining([
        ['WARN', 'orders', 1],
        ['WARN', 'people', 1],
      ]),
    );
  });

  it('refuses a change that moves a document out of what the peer may write', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small', { permissions: LOCATION_1 });
    small.store.registerSubscription('SELECT * FROM orders');
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a', locationId: 1, n: 0 } });
    await mesh.connect(small, big);
    await mesh.settle();
    await small.store.execute('UPDATE orders SET locationId = 2 WHERE _id = :id', { id: 'a' });
    await small.store.execute('UPDATE orders SET n = 1 WHERE _id = :id', { id: 'a' });
    await mesh.settle();
    expect(await rows(big, 'SELECT locationId, n FROM orders')).toEqual([{ locationId: 1, n: 0 }]);
  });

  it('serves a subscription and a read rule on createdAt <= a string TTL with only the string createdAt at or before it', async () => {
    const ttl = '2026-11-18T00:00:00.000Z';
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small', {
      permissions: {
        read: { everything: false, queries_by_collection: { orders: [`createdAt <= '${ttl}'`], people: ['true'] } },
        write: { everything: false, queries_by_collection: {} },
      },
    });
    const typed = (collection: string) =>
      big.store.execute(`INSERT INTO ${collection} DOCUMENTS (:docs)`, {
        docs: [
          { _id: 'old', createdAt: '2026-11-01T00:00:00.000Z' },
          { _id: 'new', createdAt: '2026-11-20T00:00:00.000Z' },
          { _id: 'number', createdAt: 1700000000000 },
          { _id: 'true', createdAt: true },
          { _id: 'null', createdAt: null },
          { _id: 'missing' },
          { _id: 'array', createdAt: ['2026-11-01T00:00:00.000Z'] },
          { _id: 'object', createdAt: { at: '2026-11-01T00:00:00.000Z' } },
        ],
      });
    await typed('orders');
    await typed('people');
    small.store.registerSubscription('SELECT * FROM orders');
    small.store.registerSubscription('SELECT * FROM people WHERE createdAt <= :ttl', { ttl });
    await mesh.connect(small, big);
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['old']);
    expect(await ids(small, 'people')).toEqual(['old']);
  });

  it('lets the Big Peer write anything to a small peer', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small', { permissions: LOCATION_1 });
    small.store.registerSubscription('SELECT * FROM orders');
    await mesh.connect(small, big);
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a', locationId: 1 } });
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['a']);
  });
});

describe('eviction', () => {
  it('receives again the evicted documents its subscriptions still match (the evict/re-sync loop)', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    small.store.registerSubscription('SELECT * FROM orders');
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a' }, b: { _id: 'b' } });
    await mesh.connect(small, big);
    await mesh.settle();
    await small.store.execute('EVICT FROM orders WHERE _id = :id', { id: 'a' });
    expect(await ids(small, 'orders')).toEqual(['b']);
    await mesh.settle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['a', 'b']);
  });

  it('does not receive them again when the subscription was cancelled first and replaced by one that does not overlap', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    const all = small.store.registerSubscription('SELECT * FROM orders WHERE createdAt > :ttl', { ttl: '2026-01-01' });
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a', createdAt: '2026-02-01' }, b: { _id: 'b', createdAt: '2026-03-01' } });
    await mesh.connect(small, big);
    await mesh.settle();
    all.cancel();
    await small.store.execute('EVICT FROM orders WHERE createdAt <= :ttl', { ttl: '2026-02-15' });
    small.store.registerSubscription('SELECT * FROM orders WHERE createdAt > :ttl', { ttl: '2026-02-15' });
    await mesh.settle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['b']);
  });

  it('delivers a change that takes a held document out of a subscription (the TTL flag), so it can be evicted', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    small.store.registerSubscription('SELECT * FROM orders WHERE evictionFlag = false');
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'a', evictionFlag: false }, b: { _id: 'b', evictionFlag: false } });
    await mesh.connect(small, big);
    await mesh.settle();
    await big.store.execute('UPDATE orders SET evictionFlag = true WHERE _id = :id', { id: 'a' });
    await mesh.settle();
    expect(await rows(small, 'SELECT _id, evictionFlag FROM orders ORDER BY _id')).toEqual([
      { _id: 'a', evictionFlag: true },
      { _id: 'b', evictionFlag: false },
    ]);
    const evicted = await small.store.execute('EVICT FROM orders WHERE evictionFlag = true');
    expect(evicted.mutatedDocumentIds).toEqual(['a']);
    await mesh.settle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['b']);
  });
});

describe('sessions', () => {
  it('closes the session on a malformed frame and keeps the peer running', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    const { acceptor } = await mesh.connect(small, big);
    // The small peer's end sends garbage: the Big Peer closes that session only.
    const ended = new Promise<[number, string]>((resolve) => big.replicator.onSessionEnd((_r, code, reason) => resolve([code, reason])));
    (acceptor.connection as unknown as { other: { send(t: string): void } }).other.send('{"type":"update","docs":"not a list"}');
    const [code, reason] = await ended;
    expect(code).toBe(ANNOUNCE_CLOSE_CODES.malformed);
    expect(reason).toContain('update.');
    expect(big.lines().some((l) => l.startsWith('Malformed message from a peer, closing its session'))).toBe(true);
    // Both peers go on: a new session replicates.
    small.store.registerSubscription('SELECT * FROM orders');
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    await mesh.connect(small, big);
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['a']);
  });

  it('refuses a peer whose certificate comes from another issuer, and both sides log why', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const other = createMesh();
    try {
      const stranger = other.peer('stranger');
      const { dialer, acceptor } = memoryConnectionPair();
      const results = await Promise.allSettled([stranger.replicator.dial(dialer), big.replicator.accept(acceptor)]);
      const [d, a] = results.map((r) => (r.status === 'rejected' ? (r.reason as SessionRefused) : undefined));
      expect(a).toMatchObject({ code: ANNOUNCE_CLOSE_CODES.unauthorized, byRemote: false });
      expect(a?.reason).toContain('UnknownIssuer');
      expect(d).toMatchObject({ code: ANNOUNCE_CLOSE_CODES.unauthorized, byRemote: true });
      expect(big.lines().some((l) => l.startsWith('Session refused;') && l.includes('UnknownIssuer'))).toBe(true);
      expect(stranger.lines().some((l) => l.startsWith('Session refused by the remote peer;') && l.includes('UnknownIssuer'))).toBe(true);
    } finally {
      other.dispose();
    }
  });

  it('refuses a peer that speaks another outer_protocol_version, with the reason', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const { dialer, acceptor } = memoryConnectionPair();
    const accepted = big.replicator.accept(acceptor).catch((e: unknown) => e);
    const closed = new Promise<[number, string]>((resolve) =>
      dialer.listen({
        message: (t) => {
          if (JSON.parse(t).type === 'challenge')
            dialer.send(
              JSON.stringify({
                type: 'announce',
                peerKey: 'k'.repeat(43),
                appID: 'mesh-app',
                outer_protocol_version: 1,
                certificate: { claims: 'x', signature: 'y' },
                proof: 'p',
                nonce: 'n',
              }),
            );
        },
        close: (code, reason) => resolve([code, reason]),
      }),
    );
    const [code, reason] = await closed;
    expect(code).toBe(ANNOUNCE_CLOSE_CODES.malformed);
    expect(reason).toBe('outer_protocol_version 1 is not supported (this peer speaks 2)');
    expect(await accepted).toBeInstanceOf(SessionRefused);
  });

  it('elects one connection when two peers dial each other at once, and both keep the same one', async () => {
    const a = mesh.peer('a');
    const b = mesh.peer('b');
    const [ab, ba] = await Promise.all([mesh.connect(a, b), mesh.connect(b, a)]);
    await mesh.settle();
    const open = [ab.dialer, ab.acceptor, ba.dialer, ba.acceptor].filter((s) => !s.isClosed);
    expect(open).toHaveLength(2);
    expect(open[0]?.connection.dialed).not.toBe(open[1]?.connection.dialed);
    expect(a.replicator.sessions()).toHaveLength(1);
    expect(b.replicator.sessions()).toHaveLength(1);
    expect(a.lines().filter((l) => l.startsWith('VirtConnElectedNewConn')).length).toBeGreaterThanOrEqual(1);
    a.store.registerSubscription('SELECT * FROM notes');
    await b.store.execute('INSERT INTO notes DOCUMENTS (:n)', { n: { _id: 'n' } });
    await mesh.settle();
    expect(await ids(a, 'notes')).toEqual(['n']);
  });
});
