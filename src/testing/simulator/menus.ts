/**
 * What the simulated apps work with: the collections, a small pool of `_id`s per collection (so
 * that peers write the same documents at once), the subscriptions and EVICT conditions they pick
 * from, the read grants a permission change picks from, and random document values.
 */
import type { JsonObject } from '../../shared/json.ts';
import type { Permissions, PermissionRules } from '../../shared/permissions.ts';
import { COUNTER_COLLECTION } from './ledger.ts';
import type { SimRandom } from './sim-random.ts';

export const DOC_COLLECTIONS = ['orders', 'tasks'] as const;
export type DocCollection = (typeof DOC_COLLECTIONS)[number];
export const ALL_COLLECTIONS: readonly string[] = [...DOC_COLLECTIONS, COUNTER_COLLECTION];

const range = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
export const IDS: Readonly<Record<DocCollection, readonly string[]>> = { orders: range('o', 12), tasks: range('t', 12) };

/**
 * An `_id` of the collection, the first ones far more often than the last: hot documents that
 * peers write at once, and cold ones written rarely, whose staleness would show at the end.
 */
export function pickId(random: SimRandom, collection: DocCollection): string {
  const ids = IDS[collection];
  return ids[Math.floor(ids.length * random.next() ** 2)] as string;
}
export const COUNTER_IDS: readonly string[] = ['c0', 'c1', 'c2', 'c3'];

export const SUBSCRIPTIONS: readonly string[] = [
  'SELECT * FROM orders',
  "SELECT * FROM orders WHERE k = 'a'",
  'SELECT * FROM orders WHERE v >= 5',
  'SELECT * FROM orders WHERE flag = false',
  'SELECT * FROM tasks',
  "SELECT * FROM tasks WHERE k != 'c' AND v < 7",
  `SELECT * FROM ${COUNTER_COLLECTION}`,
];

export const EVICT_CONDITIONS: readonly string[] = ["k = 'a'", 'v < 5', 'flag = true', 'true', "_id = 'o3' OR _id = 't3'"];

export const INSERT_POLICIES: readonly string[] = ['FAIL', 'DO NOTHING', 'DO UPDATE', 'DO UPDATE_LOCAL_DIFF', 'DO MERGE'];

const whole = (collections: readonly string[]): PermissionRules => ({
  everything: false,
  queries_by_collection: Object.fromEntries(collections.map((c) => [c, ['true']])),
});

/** Read grants: everything, collection by collection, some documents of orders only, no tasks. */
export const READ_GRANTS: readonly PermissionRules[] = [
  { everything: true, queries_by_collection: {} },
  whole(ALL_COLLECTIONS),
  { everything: false, queries_by_collection: { orders: ["k = 'a'", 'v >= 5'], tasks: ['true'], [COUNTER_COLLECTION]: ['true'] } },
  whole(['orders', COUNTER_COLLECTION]),
];

/** Write grants stay as given at the start (whole collections): every third peer may not write tasks. */
export function writeGrant(index: number): PermissionRules {
  return index % 3 === 2 ? whole(['orders', COUNTER_COLLECTION]) : { everything: true, queries_by_collection: {} };
}

export function permissions(read: PermissionRules, write: PermissionRules): Permissions {
  return { read, write };
}

/** May these (whole-collection) rules write the collection? */
export function mayWrite(rules: PermissionRules, collection: string): boolean {
  return rules.everything || Object.hasOwn(rules.queries_by_collection, collection);
}

/** A document with some of the fields the conditions test. */
export function randomDocument(random: SimRandom, id: string): JsonObject {
  const doc: Record<string, unknown> = { _id: id, k: random.pick(['a', 'b', 'c']), v: random.int(0, 9) };
  if (random.chance(0.7)) doc.flag = random.chance(0.5);
  if (random.chance(0.5)) doc.note = `s${random.int(0, 99)}`;
  if (random.chance(0.4)) doc.o = { x: random.int(0, 9), y: random.int(0, 9) };
  return doc as JsonObject;
}

/** A value for a field SET by an UPDATE. */
export function randomValue(random: SimRandom, field: string): unknown {
  switch (field) {
    case 'k':
      return random.pick(['a', 'b', 'c']);
    case 'v':
    case 'o.x':
      return random.int(0, 9);
    case 'flag':
      return random.chance(0.5);
    case 'o':
      return { x: random.int(0, 9), z: random.int(0, 9) };
    default:
      return `s${random.int(0, 99)}`;
  }
}
