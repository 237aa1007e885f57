/**
 * A chunk merged from a remote is committed as a Replication transaction named for that remote,
 * so that the timeline and the "blocked" lines tell two remotes' writes apart (issue 21, 3.1).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CommittedTransaction } from '../store/store.ts';
import { createMesh, type Mesh } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

it('names the remote a merged chunk came from in its transaction hint', async () => {
  const big = mesh.peer('big', { bigPeer: true });
  const small = mesh.peer('small');
  await big.store.execute('INSERT INTO orders DOCUMENTS (:o)', { o: { _id: 'o1' } });
  const commits: CommittedTransaction[] = [];
  small.store.onCommit((txn) => commits.push(txn));
  small.store.registerSubscription('SELECT * FROM orders');
  await mesh.connect(small, big);
  await mesh.settle();
  expect(commits.filter((c) => c.originator === 'Replication').map((c) => c.hint)).toEqual([`replication from ${big.peerKey}`]);
});
