/** The Overview panel's slice: `overview` (peer data) and `overviewView` (the inspector's own state). */
import type { EventWiring, SliceCreator } from '../../store/types.ts';

export interface OverviewSlice {
  readonly overviewView: Record<string, never>;
}

export const createOverviewSlice: SliceCreator<OverviewSlice> = () => ({
  overviewView: {},
});

export const wireOverviewEvents: EventWiring = () => () => {};
