/**
 * Internal collections (`__presence`, and any name starting with `__`): peers read them,
 * only the peer's own jobs write them.
 */
import { UnsupportedQueryError } from '../errors.ts';

export function isInternalCollection(name: string): boolean {
  return name.startsWith('__');
}

/** User writes to internal collections are refused (`query/unsupported`). */
export function assertWritable(collection: string): void {
  if (isInternalCollection(collection)) {
    throw new UnsupportedQueryError(`collection ${collection} is internal: it can be read, not written`, { collection });
  }
}
