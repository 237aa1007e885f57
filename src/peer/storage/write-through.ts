/**
 * `StorageEngine.write` in terms of `beginWrite`, the same for every engine: `fn` runs in one
 * write transaction, which commits when it returns and rolls back (rethrowing) when it throws.
 */
import type { StorageEngine, StorageWriter } from './types.ts';

export function writeThrough<T>(engine: Pick<StorageEngine, 'beginWrite'>, fn: (writer: StorageWriter) => T): T {
  const tx = engine.beginWrite();
  try {
    const result = fn(tx.writer);
    tx.commit();
    return result;
  } catch (error) {
    tx.rollback();
    throw error;
  }
}
