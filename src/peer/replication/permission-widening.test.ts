/**
 * Found by the mesh simulator (docs/simulator.md; `npm run simulate -- --seed 13 --steps 1200`:
 * s5's read permission widens to tasks at step 1080, and "entitlement" violations follow after
 * healing): a small peer whose read permission widens (a new certificate) never receives the
 * documents that became readable, though its subscription matches them. The Big Peer skipped
 * them while the peer could not read them, and the peer's saved progress for the query passed
 * them; a new session starts from that progress, so only documents changed since come.
 * Spec 1.2: "A peer receives documents only through subscriptions (queries) that it registers and
 * that its permissions allow"; a widened permission allows them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { EVERYTHING, type Permissions } from '../../shared/permissions.ts';
import { createMesh, ids, type Mesh } from '../../testing/test-mesh.ts';

let mesh: Mesh;
let dir: string;
beforeEach(() => {
  mesh = createMesh();
  dir = mkdtempSync(join(tmpdir(), 'permission-widening-'));
});
afterEach(() => {
  mesh.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const onlyA: Permissions = { read: { everything: false, queries_by_collection: { orders: ["k = 'a'"] } }, write: EVERYTHING.write };

it('sends the documents a widened read permission lets the peer read, when its subscription matches them', async () => {
  const big = mesh.peer('big', { bigPeer: true });
  await big.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'o1', k: 'a' }, b: { _id: 'o2', k: 'b' } });
  const before = mesh.peer('small', { sqlite: true, dir, permissions: onlyA });
  before.store.registerSubscription('SELECT * FROM orders');
  await mesh.connect(before, big);
  await mesh.settle();
  expect(await ids(before, 'orders')).toEqual(['o1']);
  before.close();
  await mesh.settle();

  // The same store, started again with a certificate that lets it read every order.
  const after = mesh.peer('small', { sqlite: true, dir, permissions: EVERYTHING });
  after.store.registerSubscription('SELECT * FROM orders');
  await mesh.connect(after, big);
  await mesh.settle();
  expect(await ids(after, 'orders')).toEqual(['o1', 'o2']);
});

it('starts a running session again when a new certificate changes what the peer may read, and sends what it may read now', async () => {
  const big = mesh.peer('big', { bigPeer: true });
  await big.store.execute('INSERT INTO orders DOCUMENTS (:a), (:b)', { a: { _id: 'o1', k: 'a' }, b: { _id: 'o2', k: 'b' } });
  const small = mesh.peer('small', { permissions: onlyA });
  small.store.registerSubscription('SELECT * FROM orders');
  await mesh.connect(small, big);
  await mesh.settle();
  expect(await ids(small, 'orders')).toEqual(['o1']);

  const ended = new Promise<[number, string]>((resolve) => small.replicator.onSessionEnd((_remote, code, reason) => resolve([code, reason])));
  small.renewCertificate(EVERYTHING);
  expect(await ended).toEqual([1012, 'permissions changed']);
  await mesh.connect(small, big); // what a dialer does after a session ends
  await mesh.settle();
  expect(await ids(small, 'orders')).toEqual(['o1', 'o2']);
});

it('keeps a running session when a new certificate grants the same read rules', async () => {
  const big = mesh.peer('big', { bigPeer: true });
  const small = mesh.peer('small', { permissions: onlyA });
  const { dialer } = await mesh.connect(small, big);
  await mesh.settle();
  small.renewCertificate({ ...onlyA, write: { everything: false, queries_by_collection: {} } });
  await mesh.settle();
  expect(dialer.isEnding).toBe(false);
});
