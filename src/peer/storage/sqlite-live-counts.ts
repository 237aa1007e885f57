/**
 * The live documents of each collection, counted as the writer changes them, so that
 * `SELECT COUNT(*) FROM c` reads one value instead of walking the collection. The counts are a
 * JSON object in the clock's row (`clock.live`, migration 3), which every commit writes anyway:
 * keeping them costs no page and no statement more. The writer adds up its changes here and
 * folds them into that row before its commit (with the clock) and at each savepoint, so that
 * rolling back undoes them with the rest. Only live documents are counted: writing a tombstone takes one off,
 * removing tombstones changes nothing, and a collection with none is left out.
 */
/** A collection's live documents as committed (or, on the writer's connection, as written so far); no row when none. */
export const LIVE_COUNT_SQL = "SELECT value FROM json_each((SELECT live FROM clock WHERE one = 1)) WHERE key = ? AND type = 'integer'";

export class LiveCounts {
  readonly #pending = new Map<string, number>();
  /** The counts of the clock's row as this writer last read or wrote them; undefined after a rollback (read again). */
  #written: Map<string, number> | undefined;

  /** Notes `delta` live documents more (or fewer) in the collection. */
  add(collection: string, delta: number): void {
    if (delta !== 0) this.#pending.set(collection, (this.#pending.get(collection) ?? 0) + delta);
  }

  /** Changes noted and not yet written into the counts. */
  pending(collection: string): number {
    return this.#pending.get(collection) ?? 0;
  }

  /**
   * The clock row's `live` with the changes noted, to be written now, or undefined when they
   * change nothing; forgets them. `read` gives the row's `live` as it is, when not known.
   */
  fold(read: () => string): string | undefined {
    let changed = false;
    for (const [collection, delta] of this.#pending) {
      if (delta === 0) continue;
      const counts = (this.#written ??= new Map(Object.entries(JSON.parse(read()) as Record<string, number>)));
      const n = (counts.get(collection) ?? 0) + delta;
      if (n === 0) counts.delete(collection);
      else counts.set(collection, n);
      changed = true;
    }
    this.#pending.clear();
    return changed ? JSON.stringify(Object.fromEntries(this.#written ?? [])) : undefined;
  }

  /** Forgets the noted changes and the counts known: what they counted was rolled back. */
  discard(): void {
    this.#pending.clear();
    this.#written = undefined;
  }
}
