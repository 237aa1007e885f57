/**
 * The replication lines name the documents of an update, the first five then a count (issue 21:
 * "why didn't this order reach that register?" starts with what was sent): the receiver's merged
 * chunk at DEBUG, the sender's update at VERBOSE (spec 3.5's DEBUG sequence stays exact).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createMesh, type Mesh } from '../../testing/test-mesh.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

it('names the first five documents of an update sent (VERBOSE) and of a chunk merged (DEBUG), and counts the rest', async () => {
  const big = mesh.peer('big', { bigPeer: true, logLevel: 'VERBOSE' });
  const small = mesh.peer('small');
  const docs = Array.from({ length: 7 }, (_, i) => ({ _id: `o${i + 1}` }));
  await big.store.execute('INSERT INTO orders DOCUMENTS (:docs)', { docs });
  small.store.registerSubscription('SELECT * FROM orders');
  await mesh.connect(small, big);
  await mesh.settle();
  const ids = 'orders:"o1", orders:"o2", orders:"o3", orders:"o4", orders:"o5" (+2 more)';
  expect(big.logs.find((e) => e.message.startsWith('Sending an update'))?.level).toBe('VERBOSE');
  expect(big.lines()).toContain(`Sending an update; remote = ${small.peerKey}; update = 1; num_docs = 7; ids = ${ids}`);
  expect(
    small.lines().filter((l) => l.startsWith('Merged an update chunk') && l.includes(`remote = ${big.peerKey}`) && l.endsWith(`ids = ${ids}`)),
  ).toHaveLength(1);
});
