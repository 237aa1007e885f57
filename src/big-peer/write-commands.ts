/**
 * The commands of `POST /api/v4/store/write`, checked and translated to DQL, then run inside one
 * transaction. Values always travel as statement arguments; collection names and paths are
 * written as backtick-quoted names.
 *
 * - `update`: the query picks the documents once (so a sub-command that changes a field of the
 *   query does not change which documents the next sub-command touches); then each sub-command
 *   runs in order: `set` (SET), `increment` (APPLY … PN_INCREMENT BY), `replaceWithCounter`
 *   (the field becomes a counter holding its current number, or 0; a counter stays as it is).
 * - `upsert`: INSERT … ON ID CONFLICT DO UPDATE (fields not named are kept); a field that
 *   `valueTypeOverrides` marks `counter` becomes a counter holding the given number.
 * - `remove`: DELETE (a tombstone that replicates).
 */
import type { UpdateSubCommand, WriteResult } from '../shared/big-peer-api.ts';
import type { JsonObject, JsonValue } from '../shared/json.ts';
import type { Transaction } from '../peer/host.ts';
import { HttpError } from './http-error.ts';
import { dqlPath, parseLegacyPath, translateLegacyQuery, type PathSegment, type TranslatedQuery } from './legacy-query.ts';

export const MAX_COMMANDS = 1000;

/** A command once checked: its paths parsed and its query translated. */
export type CheckedCommand =
  | { readonly method: 'update'; readonly collection: string; readonly where: TranslatedQuery; readonly subs: readonly CheckedSub[] }
  | { readonly method: 'upsert'; readonly collection: string; readonly doc: JsonObject; readonly counters: readonly Counter[] }
  | { readonly method: 'remove'; readonly collection: string; readonly where: TranslatedQuery };

type CheckedSub = { readonly method: UpdateSubCommand['method']; readonly path: readonly PathSegment[]; readonly value: JsonValue };
type Counter = { readonly path: readonly PathSegment[]; readonly value: number };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(where: string, message: string): HttpError {
  return new HttpError(400, 'http/bad-request', `${where}: ${message}`);
}

/** Runs a check that may throw a ParseError or InvalidArgumentsError, naming where it failed. */
function at<T>(where: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (typeof e.code === 'string' && e.code.startsWith('query/')) throw new HttpError(400, e.code as 'query/invalid', `${where}: ${e.message}`);
    throw error;
  }
}

function checkSub(sub: unknown, where: string): CheckedSub {
  if (!isObject(sub)) throw bad(where, 'must be an object {"method", "path", …}');
  if (typeof sub.path !== 'string') throw bad(where, '"path" must be a string such as "evictionFlag" or "address.city"');
  const path = at(`${where}.path`, () => parseLegacyPath(sub.path as string));
  switch (sub.method) {
    case 'set':
      if (!('value' in sub)) throw bad(where, 'a set needs "value"');
      return { method: 'set', path, value: sub.value as JsonValue };
    case 'increment':
      if (typeof sub.amount !== 'number' || !Number.isFinite(sub.amount)) throw bad(where, 'an increment needs "amount", a number');
      return { method: 'increment', path, value: sub.amount };
    case 'replaceWithCounter':
      return { method: 'replaceWithCounter', path, value: null };
    default:
      throw bad(where, `"method" must be set, increment or replaceWithCounter, not ${JSON.stringify(sub.method)}`);
  }
}

/** Removes the value at `path` from `doc` and returns it. */
function takeAt(doc: JsonObject, path: readonly PathSegment[]): JsonValue | undefined {
  let parent: JsonValue | undefined = doc;
  for (const segment of path.slice(0, -1)) parent = isObject(parent) && typeof segment === 'string' ? parent[segment] : undefined;
  const last = path[path.length - 1];
  if (!isObject(parent) || typeof last !== 'string' || !Object.hasOwn(parent, last)) return undefined;
  const value = parent[last];
  delete parent[last];
  return value;
}

function checkUpsert(c: Record<string, unknown>, collection: string, where: string): CheckedCommand {
  if (!isObject(c.value)) throw bad(where, 'an upsert needs "value", a JSON object');
  const doc = structuredClone(c.value) as JsonObject;
  const id = c.id ?? doc._id;
  if (id === undefined || id === null || typeof id === 'boolean' || Array.isArray(id))
    throw bad(where, 'an upsert needs "id": a string, a number or an object');
  if (doc._id !== undefined && JSON.stringify(doc._id) !== JSON.stringify(id)) throw bad(where, '"id" and "value._id" differ');
  doc._id = id as JsonValue;
  const counters: Counter[] = [];
  const overrides = c.valueTypeOverrides ?? {};
  if (!isObject(overrides)) throw bad(where, '"valueTypeOverrides" must be an object of paths to "counter"');
  for (const [key, type] of Object.entries(overrides)) {
    if (type !== 'counter') throw bad(`${where}.valueTypeOverrides.${key}`, `the only type is "counter", not ${JSON.stringify(type)}`);
    const path = at(`${where}.valueTypeOverrides`, () => parseLegacyPath(key));
    const value = takeAt(doc, path);
    if (typeof value !== 'number') throw bad(`${where}.valueTypeOverrides.${key}`, 'a counter needs a number in "value" at that path');
    counters.push({ path, value });
  }
  return { method: 'upsert', collection, doc, counters };
}

/** Checks the body's commands; errors are 400s that name the command (`commands[2].query`). */
export function checkCommands(commands: unknown, args: JsonObject): CheckedCommand[] {
  if (!Array.isArray(commands) || commands.length === 0) throw new HttpError(400, 'http/bad-request', '"commands" must be a non-empty list');
  if (commands.length > MAX_COMMANDS) throw new HttpError(400, 'http/bad-request', `at most ${MAX_COMMANDS} commands per request`);
  return commands.map((c: unknown, i): CheckedCommand => {
    const where = `commands[${i}]`;
    if (!isObject(c)) throw bad(where, 'must be an object {"method", "collection", …}');
    if (typeof c.collection !== 'string' || c.collection === '') throw bad(where, '"collection" must be a non-empty string');
    const collection = c.collection;
    const query = (): TranslatedQuery => {
      if (typeof c.query !== 'string') throw bad(where, '"query" must be a string such as "createdAt <= $args.TTL && evictionFlag == false"');
      return at(`${where}.query`, () => translateLegacyQuery(c.query as string, args, `q${i}_`));
    };
    switch (c.method) {
      case 'update': {
        if (!Array.isArray(c.commands) || c.commands.length === 0)
          throw bad(where, 'an update needs "commands", a non-empty list of set, increment or replaceWithCounter');
        const subs = c.commands.map((s: unknown, j) => checkSub(s, `${where}.commands[${j}]`));
        return { method: 'update', collection, where: query(), subs };
      }
      case 'upsert':
        return checkUpsert(c, collection, where);
      case 'remove':
        return { method: 'remove', collection, where: query() };
      default:
        throw bad(where, `"method" must be update, upsert or remove, not ${JSON.stringify(c.method)}`);
    }
  });
}

const quote = (name: string): string => `\`${name.replaceAll('`', '``')}\``;
const key = (id: JsonValue): string => JSON.stringify(id);

/** Lets other requests run between the statements of a long store/write (the transaction stays open). */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The documents one store/write request may touch in all (matched by updates, removed, upserted).
 * Over it the request fails with 413 and nothing is written.
 */
export const MAX_DOCUMENTS_PER_REQUEST = 100_000;

/** Counts the documents a request touches, across its commands. */
export class DocumentBudget {
  #used = 0;
  readonly limit: number;
  constructor(limit: number = MAX_DOCUMENTS_PER_REQUEST) {
    this.limit = limit;
  }
  /** @throws HttpError 413 when the request would touch more than `limit` documents. */
  take(n: number): void {
    this.#used += n;
    if (this.#used > this.limit) {
      throw new HttpError(
        413,
        'http/payload-too-large',
        `one request may touch at most ${this.limit} documents; this one touches at least ${this.#used}: split it into smaller requests`,
      );
    }
  }
}

/**
 * The field becomes a counter holding its current number (or 0); a counter stays as it is.
 * Statements per call: one SELECT before, one UPDATE … BY 0 over the whole matched set (counters
 * keep their value, anything else becomes a counter at 0), one SELECT after, then one UPDATE per
 * distinct number that plain fields held (usually a handful), each over all documents holding it.
 */
async function replaceWithCounter(tx: Transaction, c: string, path: string, ids: JsonValue[]): Promise<number | null> {
  if (ids.length === 0) return null;
  const values = async (): Promise<Map<string, JsonValue>> =>
    new Map((await tx.execute(`SELECT _id, ${path} AS v FROM ${c} WHERE _id IN :ids`, { ids })).items.map((r) => [key(r._id as JsonValue), r.v as JsonValue]));
  const before = await values();
  // BY 0 keeps a counter as it is and turns anything else into a counter at 0 …
  let { commitId } = await tx.execute(`UPDATE ${c} APPLY ${path} PN_INCREMENT BY 0 WHERE _id IN :ids`, { ids });
  const after = await values();
  // … which then gets the number the field held, where it held one: grouped by that number.
  const byDelta = new Map<number, JsonValue[]>();
  for (const id of ids) {
    const was = before.get(key(id));
    const now = after.get(key(id));
    if (typeof was === 'number' && typeof now === 'number' && was !== now) {
      const group = byDelta.get(was - now);
      if (group === undefined) byDelta.set(was - now, [id]);
      else group.push(id);
    }
  }
  for (const [by, group] of byDelta) {
    await yieldToEventLoop();
    commitId = (await tx.execute(`UPDATE ${c} APPLY ${path} PN_INCREMENT BY :by WHERE _id IN :ids`, { by, ids: group })).commitId ?? commitId;
  }
  return commitId;
}

/** Runs one checked command inside the transaction. */
export async function runCommand(tx: Transaction, command: CheckedCommand, budget: DocumentBudget = new DocumentBudget()): Promise<WriteResult> {
  const c = quote(command.collection);
  switch (command.method) {
    case 'update': {
      const { items } = await tx.execute(`SELECT _id FROM ${c} WHERE ${command.where.where}`, command.where.params);
      const ids = items.map((r) => r._id as JsonValue);
      budget.take(ids.length);
      let txnId: number | null = null;
      for (const [j, sub] of command.subs.entries()) {
        if (j > 0) await yieldToEventLoop();
        const path = dqlPath(sub.path);
        if (sub.method === 'set') txnId = (await tx.execute(`UPDATE ${c} SET ${path} = :value WHERE _id IN :ids`, { value: sub.value, ids })).commitId;
        else if (sub.method === 'increment')
          txnId = (await tx.execute(`UPDATE ${c} APPLY ${path} PN_INCREMENT BY :by WHERE _id IN :ids`, { by: sub.value, ids })).commitId;
        else txnId = await replaceWithCounter(tx, c, path, ids);
      }
      return { method: 'update', transactionId: txnId ?? 0, updated: ids.length };
    }
    case 'upsert': {
      budget.take(1);
      const id = command.doc._id as JsonValue;
      const { commitId } = await tx.execute(`INSERT INTO ${c} DOCUMENTS (:doc) ON ID CONFLICT DO UPDATE`, { doc: command.doc });
      for (const counter of command.counters) {
        const path = dqlPath(counter.path);
        // A plain 0 first, so that the counter starts afresh from the given number.
        await tx.execute(`UPDATE ${c} SET ${path} = 0 WHERE _id = :id`, { id });
        await tx.execute(`UPDATE ${c} APPLY ${path} PN_INCREMENT BY :by WHERE _id = :id`, { by: counter.value, id });
      }
      return { method: 'upsert', transactionId: commitId ?? 0, upserted: 1 };
    }
    case 'remove': {
      const { commitId, mutatedDocumentIds } = await tx.execute(`DELETE FROM ${c} WHERE ${command.where.where}`, command.where.params);
      // Counted after the fact: over the budget, the transaction rolls the DELETE back.
      budget.take(mutatedDocumentIds.length);
      return { method: 'remove', transactionId: commitId ?? 0, removed: mutatedDocumentIds.length };
    }
  }
}
