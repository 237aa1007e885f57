/**
 * Found by the mesh simulator (docs/simulator.md; `npm run simulate -- --seed 4 --steps 3000
 * --until 1779`, with the fix of evict-in-flight.test.ts): documents a peer asked for by name
 * (`want`, after notices, while it held them) arrive right after it evicted them, in an update of
 * the subscription version it still has (the EVICT's new version is sent only once its progress is
 * saved). Nothing committed between the merge's look at the store and its write, so they are
 * not checked, and the EVICT is undone for documents no subscription matches.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { holdable, turns } from './holdable-connection.test-helpers.ts';
import { memoryConnectionPair } from './memory-transport.ts';
import { createMesh, ids, type Mesh } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

// Found by the simulator (seed 4, step 1779) after the fix of evict-in-flight.test.ts: every
// document is now checked inside the write, whatever the update's subscription version.
it('keeps evicted a document it had asked for by name, when the answer arrives just after the EVICT', async () => {
  const big = mesh.peer('big', { bigPeer: true });
  const small = mesh.peer('small');
  small.store.registerSubscription('SELECT * FROM orders WHERE v >= 5');
  const { dialer, acceptor } = memoryConnectionPair();
  const link = holdable(dialer);
  await Promise.all([small.replicator.dial(link.connection), big.replicator.accept(acceptor)]);
  await big.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'o1', v: 7 } });
  await mesh.settle();

  // o1 leaves the subscription: a notice, the small peer (holding it) asks for it; the answer is held.
  link.hold();
  await big.store.execute('UPDATE orders SET v = 3 WHERE _id = :id', { id: 'o1' });
  await turns(20);
  expect(link.releaseOne()).toBe(true); // the notice
  await turns(20);
  // The answer arrives the moment the EVICT has committed, before anything else runs.
  const off = small.store.onCommit((txn) => {
    if (txn.changes.some((c) => c.kind === 'evict')) link.releaseAll();
  });
  await small.store.execute('EVICT FROM orders WHERE true');
  off();
  await mesh.settle();
  expect(await ids(small, 'orders')).toEqual([]);
});
