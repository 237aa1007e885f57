/**
 * The collections the peer owns. Spec 2.2 calls collections named with a leading `__` internal,
 * and names `__presence`, which every peer subscribes to. The names the peer owns are reserved:
 * the application reads them, and its writes are refused (`query/unsupported`); the peer's own
 * jobs and replication write them. Any other name, `__private` included, is the application's
 * own collection: written, read back, replicated and evicted like any other (docs/dql.md,
 * "Internal collections"), as the established store lets an application do.
 */
export const INTERNAL_COLLECTIONS: readonly string[] = ['__presence'];

/** Is the collection one the peer owns (reserved: read, never written by the application)? */
export function isInternalCollection(name: string): boolean {
  return INTERNAL_COLLECTIONS.includes(name);
}
