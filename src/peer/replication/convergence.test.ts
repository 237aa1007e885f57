/**
 * Three peers writing at random, apart and together, in a line (a – b – c) and in a triangle:
 * once connected and settled, every peer holds the same documents, and nothing echoes (no
 * further transaction once the mesh is quiet). Many seeds; each failure names its seed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../testing/seeded-random.ts';
import { createMesh, type Mesh, type MeshPeer } from '../../testing/test-mesh.ts';
import type { Session } from './session.ts';

let mesh: Mesh;
beforeEach(() => {
  mesh = createMesh();
});
afterEach(() => mesh.dispose());

const IDS = ['d1', 'd2', 'd3', 'd4'];
const FIELDS = ['a', 'b', 'c'];

async function randomWrite(peer: MeshPeer, random: () => number): Promise<void> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const id = pick(IDS);
  const roll = random();
  const value = Math.floor(random() * 100);
  if (roll < 0.3) await peer.store.execute('INSERT INTO docs DOCUMENTS (:d) ON ID CONFLICT DO MERGE', { d: { _id: id, [pick(FIELDS)]: value } });
  else if (roll < 0.55) await peer.store.execute(`UPDATE docs SET ${pick(FIELDS)} = :v WHERE _id = :id`, { v: value, id });
  else if (roll < 0.7) await peer.store.execute(`UPDATE docs UNSET ${pick(FIELDS)} WHERE _id = :id`, { id });
  else if (roll < 0.85) await peer.store.execute('UPDATE docs APPLY n PN_INCREMENT BY 1.0 WHERE _id = :id', { id });
  else await peer.store.execute('DELETE FROM docs WHERE _id = :id', { id });
}

/** Documents as sorted-key JSON: field order is not part of a document's state. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .map(([k, v]) => [k, canonical(v)]),
    );
  return value;
}

async function state(peer: MeshPeer): Promise<string> {
  return JSON.stringify(canonical((await peer.store.execute('SELECT * FROM docs ORDER BY _id')).items));
}

async function run(seed: number, shape: 'line' | 'triangle'): Promise<void> {
  const random = seededRandom(seed);
  const peers = ['a', 'b', 'c'].map((name) => mesh.peer(name));
  for (const p of peers) p.store.registerSubscription('SELECT * FROM docs');
  const [a, b, c] = peers as [MeshPeer, MeshPeer, MeshPeer];
  const links: [MeshPeer, MeshPeer][] =
    shape === 'line'
      ? [
          [a, b],
          [b, c],
        ]
      : [
          [a, b],
          [b, c],
          [c, a],
        ];
  let sessions: Session[] = [];
  const connectAll = async (): Promise<void> => {
    for (const [x, y] of links) sessions.push((await mesh.connect(x, y)).dialer);
  };
  const cut = async (): Promise<void> => {
    for (const s of sessions) s.close(1000, 'cut');
    sessions = [];
    await mesh.settle();
  };
  for (let round = 0; round < 3; round++) {
    // Apart: each peer writes on its own.
    for (let i = 0; i < 6; i++) await randomWrite(peers[Math.floor(random() * 3)] as MeshPeer, random);
    await connectAll();
    // Together: writes while connected, racing the replication.
    for (let i = 0; i < 4; i++) await randomWrite(peers[Math.floor(random() * 3)] as MeshPeer, random);
    await mesh.settle();
    const states = await Promise.all(peers.map(state));
    expect(new Set(states).size, `seed ${seed} ${shape} round ${round}: ${states.join(' | ')}`).toBe(1);
    // Quiet: nothing more is written anywhere (no echo).
    const txns = peers.map((p) => p.store.lastTxnId);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await mesh.settle();
    expect(
      peers.map((p) => p.store.lastTxnId),
      `seed ${seed}: an echo after convergence`,
    ).toEqual(txns);
    await cut();
  }
}

describe('three peers converge after random concurrent writes', () => {
  it('in a line, for 40 seeds', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      await run(seed, 'line');
      mesh.dispose();
      mesh = createMesh();
    }
  }, 120_000);

  it('in a triangle, for 40 seeds', async () => {
    for (let seed = 101; seed <= 140; seed++) {
      await run(seed, 'triangle');
      mesh.dispose();
      mesh = createMesh();
    }
  }, 120_000);
});
