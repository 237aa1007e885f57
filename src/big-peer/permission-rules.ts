/**
 * Permissions on the Big Peer's side: reading them from configuration and webhook answers, and
 * deciding whether a credential may read or write a collection over HTTP.
 *
 * Over HTTP a collection is allowed when the rules say `everything`, or when the collection's
 * queries include `true` (the whole collection). A rule restricted by another condition is for
 * replication, where each document is checked; the HTTP API cannot check documents one by one
 * before a statement runs, so it refuses such a collection (403) rather than guess.
 */
import type { PermissionRules, Permissions } from '../shared/permissions.ts';

/** The query that grants a whole collection. */
export const WHOLE_COLLECTION = 'true';

export function allows(permissions: Permissions, access: 'read' | 'write', collection: string): boolean {
  const rules = permissions[access];
  if (rules.everything) return true;
  const queries = Object.hasOwn(rules.queries_by_collection, collection) ? rules.queries_by_collection[collection] : undefined;
  return queries?.includes(WHOLE_COLLECTION) === true;
}

/** Permissions over some collections only (`--collections a,b`), optionally read-only. */
export function collectionPermissions(collections: readonly string[] | undefined, readOnly: boolean): Permissions {
  const some = (): PermissionRules =>
    collections === undefined
      ? { everything: true, queries_by_collection: {} }
      : { everything: false, queries_by_collection: Object.fromEntries(collections.map((c) => [c, [WHOLE_COLLECTION]])) };
  return { read: some(), write: readOnly ? { everything: false, queries_by_collection: {} } : some() };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads permission rules written either way: `queries_by_collection` (as peers print them) or
 * `queriesByCollection` (as webhooks answer). Returns a message naming the fault instead of throwing.
 */
export function readRules(value: unknown, where: string): PermissionRules | string {
  if (!isRecord(value)) return `${where} must be an object {"everything": …, "queriesByCollection": {…}}`;
  if (value.everything !== undefined && typeof value.everything !== 'boolean') return `${where}.everything must be true or false`;
  const byCollection = value.queriesByCollection ?? value.queries_by_collection ?? {};
  if (!isRecord(byCollection)) return `${where}.queriesByCollection must be an object of collection names to lists of queries`;
  const queries: Record<string, readonly string[]> = {};
  for (const [collection, list] of Object.entries(byCollection)) {
    if (collection === '__proto__') return `${where}.queriesByCollection may not name __proto__`;
    if (!Array.isArray(list) || !list.every((q) => typeof q === 'string')) {
      return `${where}.queriesByCollection.${collection} must be a list of query strings`;
    }
    queries[collection] = [...(list as string[])];
  }
  return { everything: value.everything === true, queries_by_collection: queries };
}

/** Reads `{read, write}` permissions; a message naming the fault when they are malformed. */
export function readPermissions(value: unknown, where: string): Permissions | string {
  if (!isRecord(value)) return `${where} must be an object {"read": {…}, "write": {…}}`;
  const read = readRules(value.read ?? {}, `${where}.read`);
  if (typeof read === 'string') return read;
  const write = readRules(value.write ?? {}, `${where}.write`);
  if (typeof write === 'string') return write;
  return { read, write };
}
