/**
 * Internal collections: the ones the peer owns (`__presence`, src/shared/internal-collections.ts).
 * Peers read them; only the peer's own jobs and replication write them. Other names with a
 * leading `__` are application collections like any other.
 */
import { isInternalCollection } from '../../shared/internal-collections.ts';
import { UnsupportedQueryError } from '../errors.ts';

export { isInternalCollection };

/** User writes to internal collections are refused (`query/unsupported`). */
export function assertWritable(collection: string): void {
  if (isInternalCollection(collection)) {
    throw new UnsupportedQueryError(`collection ${collection} is internal to the peer: it can be read, not written`, { collection });
  }
}
