/**
 * Found by the mesh simulator (docs/simulator.md, seed 17 of `npm run simulate -- --seed 17
 * --steps 3000`, reported after healing as a lost write of orders o7): a peer that has not seen
 * a deletion SETs a field (an edit made after the deletion, which docs/merge.md says brings the
 * document back) and then UNSETs it. Its state after the UNSET no longer contains its state after
 * the SET: once the deletion is merged, the peers hold a tombstone, but merging the SET state in
 * again (from any peer that received it in between) gives a live document. So the outcome
 * depends on which intermediate states travelled, which docs/merge.md rules out ("Dropping such
 * edits would make the result depend on the order of merges").
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mergeDocumentStates, type DocumentState } from '../crdt/merge.ts';
import { jsonEqual } from '../../shared/json.ts';
import { createMesh, type Mesh, type MeshPeer } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

const later = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 3));
const state = (peer: MeshPeer): DocumentState => {
  const doc = peer.store.readNow((r) => r.get('orders', 'o7'));
  if (doc === undefined) throw new Error(`${peer.name} does not hold o7`);
  return { value: doc.value, meta: doc.meta };
};

// crdt/merge.ts counted a removal (`r`) as no write that outlives a deletion (`writtenAt`), and
// the UNSET replaced the SET's stamp with the removal's; a removal now counts as a write.
it('keeps, after an UNSET, the revival by a SET made after a deletion it had not seen', async () => {
  const a = mesh.peer('a');
  const b = mesh.peer('b');
  for (const p of [a, b]) p.store.registerSubscription('SELECT * FROM orders');
  const first = await mesh.connect(a, b);
  await a.store.execute('INSERT INTO orders DOCUMENTS (:d)', { d: { _id: 'o7', k: 'a', o: { x: 1 } } });
  await mesh.settle();
  first.dialer.close(1000, 'apart');
  await mesh.settle();

  await b.store.execute("DELETE FROM orders WHERE _id = 'o7'");
  await later();
  await a.store.execute("UPDATE orders SET o = :o WHERE _id = 'o7'", { o: { x: 8 } }); // after the deletion
  const afterSet = state(a);
  await later();
  await a.store.execute("UPDATE orders UNSET o WHERE _id = 'o7'");
  await mesh.connect(a, b);
  await mesh.settle();

  const final = state(a);
  expect(jsonEqual(state(b), final)).toBe(true);
  // The state a peer reached contains every state it held before: merging one in changes nothing.
  const again = mergeDocumentStates(final, afterSet);
  expect(again.value).toEqual(final.value);
});
