/**
 * Replication at its edges, over the in-memory transport: a merge that fails halfway through an
 * update, EVICTs racing updates, windows of LIMIT subscriptions, documents leaving a replaced
 * subscription, and hostile frames. Each was once a defect; each test failed before its fix.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANNOUNCE_CLOSE_CODES } from '../../shared/protocol/announce.ts';
import { ManualTimers } from '../time.ts';
import { createMesh, ids, rows, type Mesh, type MeshPeer } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

async function insertMany(peer: MeshPeer, count: number): Promise<void> {
  const args: Record<string, unknown> = {};
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    args[`d${i}`] = { _id: `o${String(i).padStart(4, '0')}`, i };
    names.push(`(:d${i})`);
  }
  await peer.store.execute(`INSERT INTO orders DOCUMENTS ${names.join(', ')}`, args);
}

describe('a merge that fails', () => {
  it('ends the session without saving the update’s progress, so a reconnection brings every document', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    await insertMany(big, 1200); // three chunks
    small.store.registerSubscription('SELECT * FROM orders');
    const writes = small.store.internalWrites as { write: (...args: never[]) => Promise<unknown> };
    const real = writes.write.bind(writes);
    let replicationWrites = 0;
    writes.write = ((originator: string, hint: string, fn: never) => {
      if (originator === 'Replication' && ++replicationWrites === 2)
        return new Promise((_, reject) => setTimeout(() => reject(new Error('disk I/O error (injected)')), 20));
      return real(originator as never, hint as never, fn);
    }) as never;
    await mesh.connect(small, big);
    await mesh.settle();
    expect(small.logs.some((e) => e.event === 'replication.failed' && e.level === 'ERROR')).toBe(true);
    expect((await rows(small, 'SELECT COUNT(*) AS n FROM orders'))[0]?.n).toBeLessThan(1200);
    await mesh.connect(small, big);
    await mesh.settle();
    expect((await rows(small, 'SELECT COUNT(*) AS n FROM orders'))[0]?.n).toBe(1200);
  });
});

describe('eviction racing replication', () => {
  it('brings back the evicted documents this peer wrote itself, since its subscriptions still match them', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    small.store.registerSubscription('SELECT * FROM notes');
    await mesh.connect(small, big);
    await small.store.execute('INSERT INTO notes DOCUMENTS (:n)', { n: { _id: 'mine' } });
    await big.store.execute('INSERT INTO notes DOCUMENTS (:n)', { n: { _id: 'theirs' } });
    await mesh.settle();
    await small.store.execute('EVICT FROM notes');
    await mesh.settle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await mesh.settle();
    expect(await ids(small, 'notes')).toEqual(['mine', 'theirs']);
  });

  it('does not let an update made for the cancelled subscription bring back what the 3.2 cycle evicted', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    const sub = small.store.registerSubscription('SELECT * FROM orders WHERE createdAt > :ttl', { ttl: '2026-01-01' });
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', {
      a: { _id: 'a', createdAt: '2026-01-10', n: 0 },
      b: { _id: 'b', createdAt: '2026-03-01', n: 0 },
    });
    await mesh.connect(small, big);
    await mesh.settle();
    await big.store.execute('UPDATE orders SET n = 1 WHERE _id = :id', { id: 'a' });
    sub.cancel();
    await small.store.execute('EVICT FROM orders WHERE createdAt <= :ttl', { ttl: '2026-02-15' });
    small.store.registerSubscription('SELECT * FROM orders WHERE createdAt > :ttl', { ttl: '2026-02-15' });
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['b']);
  });

  it('tells a peer of a held document that leaves the subscription it registered after cancelling the old one', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    const old = small.store.registerSubscription('SELECT * FROM orders');
    await big.store.execute('INSERT INTO orders DOCUMENTS (:x), (:y)', { x: { _id: 'x', evictionFlag: false }, y: { _id: 'y', evictionFlag: true } });
    await mesh.connect(small, big);
    await mesh.settle();
    old.cancel();
    small.store.registerSubscription('SELECT * FROM orders WHERE evictionFlag = false');
    await mesh.settle();
    await big.store.execute('UPDATE orders SET evictionFlag = true WHERE _id = :id', { id: 'x' });
    await mesh.settle();
    expect(await rows(small, 'SELECT _id, evictionFlag FROM orders WHERE _id = :id', { id: 'x' })).toEqual([{ _id: 'x', evictionFlag: true }]);
  });
});

describe('LIMIT subscriptions', () => {
  it('sends a document that enters the window because another left it, though it did not change', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    small.store.registerSubscription('SELECT * FROM orders WHERE open = true ORDER BY rank LIMIT 2');
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b), (:c)', {
      a: { _id: 'a', rank: 1, open: true },
      b: { _id: 'b', rank: 2, open: true },
      c: { _id: 'c', rank: 3, open: true },
    });
    await mesh.connect(small, big);
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['a', 'b']);
    await big.store.execute('UPDATE orders SET open = false WHERE _id = :id', { id: 'a' });
    await mesh.settle();
    expect(await rows(small, 'SELECT _id FROM orders WHERE open = true ORDER BY rank')).toEqual([{ _id: 'b' }, { _id: 'c' }]);
  });
});

describe('hostile frames', () => {
  const sendFromSmall = (session: { connection: unknown }, text: string): void => (session.connection as { other: { send(t: string): void } }).other.send(text);

  it('closes the session on a document id nested 20,000 levels deep, and keeps the peer running', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    const { acceptor } = await mesh.connect(small, big);
    const ended = new Promise<number>((resolve) => big.replicator.onSessionEnd((_r, code) => resolve(code)));
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    sendFromSmall(acceptor, `{"type":"want","docs":[["orders",${deep}]]}`);
    expect(await ended).toBe(ANNOUNCE_CLOSE_CODES.malformed);
    await big.store.execute('INSERT INTO orders DOCUMENTS (:a)', { a: { _id: 'a' } });
    small.store.registerSubscription('SELECT * FROM orders');
    await mesh.connect(small, big);
    await mesh.settle();
    expect(await ids(small, 'orders')).toEqual(['a']);
  });

  it('closes the session of a peer that floods update chunks without waiting for acknowledgements', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    const { acceptor } = await mesh.connect(small, big);
    await mesh.settle();
    const ended = new Promise<[number, string]>((resolve) => big.replicator.onSessionEnd((_r, code, reason) => resolve([code, reason])));
    // The Big Peer merges slowly, so the flood arrives before its first acknowledgement.
    const writes = big.store.internalWrites as { write: (...args: never[]) => Promise<unknown> };
    const real = writes.write.bind(writes);
    writes.write = ((o: never, h: never, fn: never) => new Promise((resolve) => setTimeout(resolve, 200)).then(() => real(o, h, fn))) as never;
    const doc = (i: number) => `{"collection":"c","id":"d${i}","value":{"_id":"d${i}"},"meta":{"c":["0000018f2a3b4c00","pk"]}}`;
    for (let chunk = 1; chunk <= 40; chunk++) {
      sendFromSmall(acceptor, `{"type":"update","update":1,"chunk":${chunk},"since_index":0,"upto":1,"subscription_version":1,"docs":[${doc(chunk)}]}`);
    }
    const [code, reason] = await ended;
    expect(code).toBe(ANNOUNCE_CLOSE_CODES.malformed);
    expect(reason).toMatch(/ahead of their acknowledgements/);
  });

  it('closes the session on update chunks out of order', async () => {
    const big = mesh.peer('big', { bigPeer: true });
    const small = mesh.peer('small');
    const { acceptor } = await mesh.connect(small, big);
    await mesh.settle();
    const ended = new Promise<string>((resolve) => big.replicator.onSessionEnd((_r, _code, reason) => resolve(reason)));
    sendFromSmall(acceptor, '{"type":"update","update":5,"chunk":2,"since_index":0,"upto":1,"subscription_version":1,"docs":[]}');
    expect(await ended).toMatch(/update 5 chunk 2 out of order/);
  });
});

describe('certificates that expire during a session', () => {
  it('end the session with 4401 when the remote small peer’s certificate expires, not before', async () => {
    const clock = new ManualTimers(Date.now());
    const a = mesh.peer('a', { timers: clock, certificateLifetimeMs: 60_000 });
    const b = mesh.peer('b', { timers: clock, certificateLifetimeMs: 10 * 86_400_000 });
    const { dialer, acceptor } = await mesh.connect(a, b);
    clock.advance(59_999);
    expect([dialer.isEnding, acceptor.isEnding]).toEqual([false, false]);
    clock.advance(1);
    // b holds a's certificate, which just expired: b ends the session.
    expect(acceptor.isEnding).toBe(true);
    await mesh.settle();
    expect(b.logs.find((e) => e.event === 'replication.session-ended')?.fields).toMatchObject({
      code: ANNOUNCE_CLOSE_CODES.unauthorized,
      reason: 'certificate expired',
    });
  });

  it('refuse a small peer whose certificate already expired (4401), as the Big Peer does', async () => {
    const clock = new ManualTimers(Date.now());
    const a = mesh.peer('a', { timers: clock, certificateLifetimeMs: 1_000 });
    const b = mesh.peer('b', { timers: clock });
    clock.advance(2_000);
    await expect(mesh.connect(a, b)).rejects.toMatchObject({ code: ANNOUNCE_CLOSE_CODES.unauthorized });
    expect(b.logs.find((e) => e.event === 'peer.session-refused')?.message).toMatch(/code = 4401; reason = .*expired/i);
  });

  it('watch a certificate longer than a timer can wait (24.8 days) in steps', async () => {
    const clock = new ManualTimers(Date.now());
    const a = mesh.peer('a', { timers: clock, certificateLifetimeMs: 30 * 86_400_000 });
    const b = mesh.peer('b', { timers: clock, certificateLifetimeMs: 60 * 86_400_000 });
    const { acceptor } = await mesh.connect(a, b);
    clock.advance(25 * 86_400_000);
    expect(acceptor.isEnding).toBe(false);
    clock.advance(5 * 86_400_000);
    expect(acceptor.isEnding).toBe(true);
  });
});
