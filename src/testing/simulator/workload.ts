/**
 * What the apps do, one random action a step: writes of every kind (INSERT with each conflict
 * policy, UPDATE SET and UNSET, UPDATE of many documents, PN_INCREMENT counters, DELETE), the
 * Big Peer's own writes (as its HTTP API and TTL job make them), EVICT, and subscriptions
 * registered and cancelled. Writes are started, not awaited: they queue for the write slot
 * while replication merges, as in a running app. Every small peer writes only the collections
 * its certificate lets it write; counters are only incremented (never set, deleted or evicted),
 * so that their value is the sum of the increments.
 */
import { COUNTER_COLLECTION, COUNTER_FIELD } from './ledger.ts';
import {
  COUNTER_IDS,
  DOC_COLLECTIONS,
  EVICT_CONDITIONS,
  INSERT_POLICIES,
  pickId,
  SUBSCRIPTIONS,
  mayWrite,
  randomDocument,
  randomValue,
  type DocCollection,
} from './menus.ts';
import type { SimPeer } from './sim-peer.ts';
import type { World } from './world.ts';

export interface Action {
  readonly text: string;
  run(): void | Promise<void>;
}

const SET_FIELDS = ['k', 'v', 'flag', 'note', 'o.x', 'o'];
const UNSET_FIELDS = ['note', 'o', 'o.x', 'flag'];

/** A FAIL insert of an `_id` that exists is refused: not a finding. */
const conflictRefused = (error: unknown): boolean => (error as { code?: string }).code === 'query/evaluation';

/** Runs a statement on the peer (if it is up), counted as a write or an EVICT. */
function execute(
  world: World,
  peer: SimPeer,
  statement: string,
  args: Record<string, unknown>,
  expected?: (error: unknown) => boolean,
  count: 'writes' | 'evicts' = 'writes',
): Action {
  return {
    text: `${peer.name}: ${statement} ${JSON.stringify(args)}`,
    run: () => {
      const sync = peer.sync;
      if (sync === undefined) return;
      world.stats[count]++;
      world.track(peer, statement, sync.store.execute(statement, args), expected);
    },
  };
}

/** A write of a document collection by `peer`. */
function documentWrite(world: World, peer: SimPeer, collection: DocCollection): Action {
  const r = world.random;
  const id = pickId(r, collection);
  switch (r.weighted({ insert: 4, set: 5, setMany: 1, unset: 2, delete: 1.5, deleteMany: 0.3 })) {
    case 'insert': {
      const policy = r.pick(INSERT_POLICIES);
      return execute(world, peer, `INSERT INTO ${collection} DOCUMENTS (:d) ON ID CONFLICT ${policy}`, { d: randomDocument(r, id) }, conflictRefused);
    }
    case 'set': {
      const field = r.pick(SET_FIELDS);
      return execute(world, peer, `UPDATE ${collection} SET ${field} = :v WHERE _id = :id`, { v: randomValue(r, field), id });
    }
    case 'setMany':
      return execute(world, peer, `UPDATE ${collection} SET v = :v WHERE k = :k`, { v: r.int(0, 9), k: r.pick(['a', 'b', 'c']) });
    case 'unset':
      return execute(world, peer, `UPDATE ${collection} UNSET ${r.pick(UNSET_FIELDS)} WHERE _id = :id`, { id });
    case 'delete':
      return execute(world, peer, `DELETE FROM ${collection} WHERE _id = :id`, { id });
    default:
      return execute(world, peer, `DELETE FROM ${collection} WHERE v > 8`, {});
  }
}

function smallWrite(world: World): Action | undefined {
  const peer = world.random.pick(world.smalls);
  const rules = world.auth.granted(peer.user).write;
  const writable = DOC_COLLECTIONS.filter((c) => mayWrite(rules, c));
  if (writable.length === 0) return undefined;
  return documentWrite(world, peer, world.random.pick(writable));
}

function increment(world: World): Action {
  const r = world.random;
  const peer = r.pick(world.smalls);
  const by = r.pick([1, 2, 3, -1]);
  return execute(world, peer, `UPDATE ${COUNTER_COLLECTION} APPLY ${COUNTER_FIELD} PN_INCREMENT BY :by WHERE _id = :id`, { by, id: r.pick(COUNTER_IDS) });
}

/** The Big Peer writes too: through its HTTP API, and its TTL job flags documents. */
function bigWrite(world: World): Action {
  const r = world.random;
  if (r.chance(0.2)) return execute(world, world.big, 'UPDATE orders SET flag = true WHERE v < :v', { v: r.int(1, 4) });
  return documentWrite(world, world.big, r.pick(DOC_COLLECTIONS));
}

function evict(world: World): Action {
  const r = world.random;
  const peer = r.pick(world.smalls);
  const collection = r.pick(DOC_COLLECTIONS);
  const condition = r.pick(EVICT_CONDITIONS);
  return execute(world, peer, `EVICT FROM ${collection} WHERE ${condition}`, {}, undefined, 'evicts');
}

function subscribe(world: World): Action | undefined {
  const r = world.random;
  const peer = r.pick(world.smalls);
  const statement = r.pick(SUBSCRIPTIONS);
  if (peer.subscriptions.has(statement)) {
    return {
      text: `${peer.name}: cancel ${statement}`,
      run: () => {
        world.stats.subscriptionChanges++;
        peer.unsubscribe(statement);
      },
    };
  }
  return {
    text: `${peer.name}: subscribe ${statement}`,
    run: () => {
      world.stats.subscriptionChanges++;
      peer.subscribe(statement);
    },
  };
}

const APP_ACTIONS = { write: 45, increment: 10, bigWrite: 6, evict: 2.5, subscribe: 4 } as const;

/** One app action, or undefined when the one drawn cannot be made now. */
export function appAction(world: World): Action | undefined {
  switch (world.random.weighted(APP_ACTIONS)) {
    case 'write':
      return smallWrite(world);
    case 'increment':
      return increment(world);
    case 'bigWrite':
      return bigWrite(world);
    case 'evict':
      return evict(world);
    case 'subscribe':
      return subscribe(world);
  }
}

export const APP_WEIGHT = Object.values(APP_ACTIONS).reduce((a, b) => a + b, 0);
