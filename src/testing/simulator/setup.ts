/**
 * The mesh of a run, made from the seed: the Big Peer (holding the counters and a few documents
 * from the start), the small peers (each with a clock skew, a store kind, read and write grants
 * and some subscriptions), the links (every small peer to the Big Peer, some pairs of small peers
 * to each other), and the watchers attached to every peer (log sequences, commits, arrivals).
 */
import type { JsonValue } from '../../shared/json.ts';
import { ArrivalWatch } from './arrivals.ts';
import { COUNTER_COLLECTION, COUNTER_FIELD, Ledger } from './ledger.ts';
import { Links } from './links.ts';
import { LogSequenceChecker } from './log-sequence.ts';
import { COUNTER_IDS, DOC_COLLECTIONS, IDS, READ_GRANTS, SUBSCRIPTIONS, permissions, randomDocument, writeGrant } from './menus.ts';
import { SimAuth } from './sim-auth.ts';
import { SimClock } from './sim-clock.ts';
import { issuerFromSeed, keyFromSeed } from './sim-keys.ts';
import { SimNetwork } from './sim-network.ts';
import { SimPeer, type StorageKind } from './sim-peer.ts';
import { SimRandom } from './sim-random.ts';
import type { ViolationKind } from './world.ts';

type Report = (kind: ViolationKind, message: string) => void;

export type StorageChoice = StorageKind | 'mixed';

export interface MeshParts {
  readonly random: SimRandom;
  readonly clock: SimClock;
  readonly net: SimNetwork;
  readonly links: Links;
  readonly auth: SimAuth;
  readonly ledger: Ledger;
  readonly big: SimPeer;
  readonly smalls: SimPeer[];
  readonly checkers: Map<SimPeer, LogSequenceChecker>;
}

/** Makes the peers and links (nothing opened yet); `report` hears what the watchers find, `step` says when. */
export function makeMesh(seed: number, peers: number, storage: StorageChoice, root: string, report: Report, step: () => number): MeshParts {
  const random = new SimRandom(seed);
  const clock = new SimClock();
  const net = new SimNetwork(() => clock.now(), random);
  const links = new Links(net, clock, random);
  const auth = new SimAuth(issuerFromSeed(random.bytes32()), () => clock.now());
  const ledger = new Ledger();
  const kind = (i: number): StorageKind => (storage === 'mixed' ? (i % 2 === 1 ? 'sqlite' : 'memory') : storage);
  const big = new SimPeer({ name: 'big', role: 'big', storage: kind(1), skewMs: 0, key: keyFromSeed(random.bytes32()), clock, auth, root });
  const smalls: SimPeer[] = [];
  for (let i = 1; i <= peers; i++) {
    const peer = new SimPeer({
      name: `s${i}`,
      role: 'small',
      storage: kind(i),
      skewMs: random.int(-3_000, 3_000),
      key: keyFromSeed(random.bytes32()),
      clock,
      auth,
      root,
    });
    auth.grant(peer.user, permissions(random.chance(0.6) ? (READ_GRANTS[0] as never) : random.pick(READ_GRANTS), writeGrant(i)));
    peer.subscriptions.add(`SELECT * FROM ${COUNTER_COLLECTION}`);
    for (let n = random.int(1, 2); n > 0; n--) peer.subscriptions.add(random.pick(SUBSCRIPTIONS));
    smalls.push(peer);
  }
  for (const peer of smalls) links.add(peer, big, random.int(1, 80));
  for (let i = 0; i < smalls.length; i++) {
    for (let j = i + 1; j < smalls.length; j++) if (random.chance(0.25)) links.add(smalls[i] as SimPeer, smalls[j] as SimPeer, random.int(1, 30));
  }
  const checkers = new Map<SimPeer, LogSequenceChecker>();
  for (const peer of [big, ...smalls]) {
    const checker = new LogSequenceChecker(peer.name, (problem) => report('log-sequence', problem));
    checkers.set(peer, checker);
    peer.onLog((entry) => checker.feed(entry));
    peer.onOpen((p) => watchCommits(p, ledger, report, step));
  }
  return { random, clock, net, links, auth, ledger, big, smalls, checkers };
}

/** Records each commit of the peer's new process in the ledger, and (small peers) watches what arrives. */
function watchCommits(peer: SimPeer, ledger: Ledger, report: Report, step: () => number): void {
  const sync = peer.sync;
  if (sync === undefined) return;
  const arrivals = peer.role === 'small' ? new ArrivalWatch(sync.store, (problem) => report('arrival', `${peer.name}: ${problem}`)) : undefined;
  const identity = peer.identity;
  const ledgerPeer = {
    name: peer.name,
    identity,
    peerKey: sync.peerKey,
    get: (collection: string, id: JsonValue) => sync.store.readNow((r) => r.get(collection, id)),
    acknowledgedUpTo: () => (peer.role === 'small' ? sync.pendingUpload.acknowledgedUpTo : Number.POSITIVE_INFINITY),
  };
  sync.store.onCommit((txn) => {
    if (peer.sync !== sync) return; // a crashed process commits nothing more
    ledger.committed(ledgerPeer, txn, step());
    arrivals?.committed(txn);
  });
}

/** The Big Peer's first documents: the counters (each made a counter once, before anyone increments it) and a few of each collection. */
export async function seedBigPeer(big: SimPeer, random: SimRandom): Promise<void> {
  const store = big.sync?.store;
  if (store === undefined) throw new Error('the Big Peer is not open');
  for (const id of COUNTER_IDS) {
    await store.execute(`INSERT INTO ${COUNTER_COLLECTION} DOCUMENTS (:d)`, { d: { _id: id } });
    await store.execute(`UPDATE ${COUNTER_COLLECTION} APPLY ${COUNTER_FIELD} PN_INCREMENT BY 0 WHERE _id = :id`, { id });
  }
  for (const collection of DOC_COLLECTIONS) {
    for (const id of IDS[collection])
      if (random.chance(0.5)) await store.execute(`INSERT INTO ${collection} DOCUMENTS (:d)`, { d: randomDocument(random, id) });
  }
}
