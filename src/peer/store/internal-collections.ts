/**
 * Internal collections: the ones the peer owns (`__presence`, src/shared/internal-collections.ts).
 * Peers read them; only the peer's own jobs and replication write them. Other names with a
 * leading `__` are application collections like any other.
 */
import { isInternalCollection } from '../../shared/internal-collections.ts';
import { UnsupportedQueryError } from '../errors.ts';
import { SYSTEM_INDEXES, isSystemCollection } from '../query/commands.ts';

export { isInternalCollection };

/** User writes to internal collections, and to the collections the peer describes itself with (`system:…`), are refused (`query/unsupported`). */
export function assertWritable(collection: string): void {
  if (isSystemCollection(collection)) {
    throw new UnsupportedQueryError(`collection ${collection} describes the peer: it can be read with SELECT, not written`, { collection });
  }
  if (isInternalCollection(collection)) {
    throw new UnsupportedQueryError(`collection ${collection} is internal to the peer: it can be read, not written`, { collection });
  }
}

/** A `system:` collection is read with SELECT through execute only, and must be one the peer has (`system:indexes`). */
export function assertSystemCollection(collection: string, use?: string): void {
  if (use !== undefined) throw new UnsupportedQueryError(`${collection} describes the peer: it is read with execute, not ${use}`, { collection });
  if (collection !== SYSTEM_INDEXES)
    throw new UnsupportedQueryError(`there is no collection ${collection}; the peer describes itself in ${SYSTEM_INDEXES}`, { collection });
}
