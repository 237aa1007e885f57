/**
 * Which strategies' subscriptions overlap what they evict, for the Eviction panel's rows and the
 * Subscriptions panel: read off the dry run (the peer's eviction plan, the one reasoning about
 * overlaps there is), never worked out again here.
 *
 * Choices:
 * - A strategy is flagged when its dry run is refused with `eviction/overlap`: every run of it
 *   would be refused until it is fixed. Refusals that pass (too soon, a blocked write) are not.
 * - Worked out at each `eviction:get` and `subscriptions:list`, as a dry run of each strategy is
 *   (it reads the documents the next run would evict); a dry run that throws flags nothing.
 */
import type { EvictionOverlapInfo } from '../../../shared/inspector/eviction.ts';
import type { EvictionDryRun, EvictionSnapshot } from '../../eviction/types.ts';

/** What the overlap check needs of `sync.eviction`. */
export interface OverlapPort {
  snapshot(): EvictionSnapshot;
  dryRun(collection: string): EvictionDryRun;
}

/** The overlap a dry run reports, if it is refused for one. */
export function overlapOf(dry: EvictionDryRun): EvictionOverlapInfo | undefined {
  if (dry.refusal?.code !== 'eviction/overlap') return undefined;
  return {
    collection: dry.collection,
    strategy: dry.strategy,
    message: dry.refusal.message,
    subscriptions: dry.overlapping,
    ...(dry.suggestedSubscribeWhere === undefined ? {} : { suggestedSubscribeWhere: dry.suggestedSubscribeWhere }),
  };
}

/** Each configured collection's overlap, by collection (those without one left out). */
export function evictionOverlaps(port: OverlapPort): Map<string, EvictionOverlapInfo> {
  const overlaps = new Map<string, EvictionOverlapInfo>();
  for (const { config } of port.snapshot().collections) {
    try {
      const overlap = overlapOf(port.dryRun(config.collection));
      if (overlap !== undefined) overlaps.set(config.collection, overlap);
    } catch {
      // A closed store or a condition that no longer parses: the panel shows the run's own error.
    }
  }
  return overlaps;
}
