/**
 * Which strategies' subscriptions overlap what they evict, for the Eviction panel's rows and the
 * Subscriptions panel: `sync.eviction.overlap(collection)`, the dry run's own reasoning (the
 * peer's eviction plan, the one reasoning about overlaps there is), never worked out again here.
 *
 * Choices:
 * - A strategy is flagged when a run would be refused with `eviction/overlap`: every run of it
 *   would be, until it is fixed. Refusals that pass (too soon, a blocked write) are not.
 * - Worked out at each `eviction:get` and `subscriptions:list`. Where the conditions decide it
 *   (the usual shapes) no document is read, so a refresh stays cheap with 100,000 documents to
 *   evict; where they do not, the plan is worked out whole, as a dry run. A check that throws
 *   flags nothing.
 */
import type { EvictionOverlapInfo } from '../../../shared/inspector/eviction.ts';
import type { EvictionDryRun, EvictionOverlapCheck, EvictionSnapshot } from '../../eviction/types.ts';

/** What the overlap check needs of `sync.eviction`. */
export interface OverlapPort {
  snapshot(): EvictionSnapshot;
  overlap(collection: string): EvictionOverlapCheck | undefined;
}

/** The overlap a dry run reports, if it is refused for one. */
export function overlapOf(dry: EvictionDryRun): EvictionOverlapInfo | undefined {
  if (dry.refusal?.code !== 'eviction/overlap') return undefined;
  return overlapInfo({ ...dry, message: dry.refusal.message });
}

function overlapInfo(check: EvictionOverlapCheck): EvictionOverlapInfo {
  return {
    collection: check.collection,
    strategy: check.strategy,
    message: check.message,
    subscriptions: check.overlapping,
    ...(check.suggestedSubscribeWhere === undefined ? {} : { suggestedSubscribeWhere: check.suggestedSubscribeWhere }),
  };
}

/** Each configured collection's overlap, by collection (those without one left out). */
export function evictionOverlaps(port: OverlapPort): Map<string, EvictionOverlapInfo> {
  const overlaps = new Map<string, EvictionOverlapInfo>();
  for (const { config } of port.snapshot().collections) {
    try {
      const check = port.overlap(config.collection);
      if (check !== undefined) overlaps.set(config.collection, overlapInfo(check));
    } catch {
      // A closed store or a condition that no longer parses: the panel shows the run's own error.
    }
  }
  return overlaps;
}
