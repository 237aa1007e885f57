/**
 * The Overview panel's slice: `overview` (the peer's snapshot, and the answer of the last sync
 * start/stop) and `overviewView` (the inspector's own choices). The snapshot is also what the
 * shell's status bar and the Documents panel's collection list show.
 *
 * Refresh: at start, every few seconds (the store size, the auth state), after commits
 * (`store:changed`, throttled) and when the link opens again. The certificate countdown does not
 * re-fetch: it ticks from the snapshot's `now`.
 */
import type { OverviewSnapshot } from '../../../../shared/inspector/overview.ts';
import { inspector } from '../../client/index.ts';
import { onLinkReopened } from '../../shell/slice.ts';
import { idle, loading, settle, type Remote } from '../../store/remote.ts';
import { throttle } from '../../store/throttle.ts';
import type { EventWiring, SliceCreator } from '../../store/types.ts';

/** How often the snapshot is fetched without a reason. */
export const OVERVIEW_POLL_MS = 5000;
/** At most one refresh per this interval for bursts of commits. */
export const OVERVIEW_CHANGE_THROTTLE_MS = 1000;

export interface OverviewSlice {
  readonly overview: {
    readonly snapshot: Remote<OverviewSnapshot>;
    /** The last `sync:start` / `sync:stop` call. */
    readonly syncToggle: Remote<OverviewSnapshot>;
  };
  readonly overviewView: {
    /** Show `__` collections in the collection table. */
    readonly showInternal: boolean;
  };
  loadOverview(): Promise<void>;
  setSyncActive(active: boolean): Promise<void>;
  setOverviewShowInternal(show: boolean): void;
}

let inFlight: Promise<void> | undefined;

export const createOverviewSlice: SliceCreator<OverviewSlice> = (set, get) => ({
  overview: { snapshot: idle(), syncToggle: idle() },
  overviewView: { showInternal: false },
  loadOverview: () => {
    // One call at a time: a poll that meets a refresh in flight joins it.
    inFlight ??= (async () => {
      set((s) => ({ overview: { ...s.overview, snapshot: loading(s.overview.snapshot) } }));
      const result = await inspector.call('overview:get', {});
      set((s) => ({ overview: { ...s.overview, snapshot: settle(s.overview.snapshot, result, Date.now()) } }));
    })().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  },
  setSyncActive: async (active) => {
    if (get().overview.syncToggle.status === 'loading') return;
    set((s) => ({ overview: { ...s.overview, syncToggle: loading(s.overview.syncToggle) } }));
    const result = await inspector.call(active ? 'sync:start' : 'sync:stop', {});
    const now = Date.now();
    set((s) => ({
      overview: {
        syncToggle: settle(s.overview.syncToggle, result, now),
        snapshot: result.ok ? settle(s.overview.snapshot, result, now) : s.overview.snapshot,
      },
    }));
  },
  setOverviewShowInternal: (showInternal) => set((s) => ({ overviewView: { ...s.overviewView, showInternal } })),
});

export const wireOverviewEvents: EventWiring = (store) => {
  const load = () => void store.getState().loadOverview();
  const refresh = throttle(load, OVERVIEW_CHANGE_THROTTLE_MS);
  load();
  const poll = setInterval(() => {
    if (typeof document === 'undefined' || document.visibilityState !== 'hidden') load();
  }, OVERVIEW_POLL_MS);
  const stopChanged = inspector.on('store:changed', refresh);
  // The Big Peer's link state lives in the overview too: follow connection changes, so that the
  // status bar never says "connected" while the Mesh panel shows the connection closed.
  const stopMesh = inspector.on('mesh:changed', refresh);
  const stopReopened = onLinkReopened(store, load);
  return () => {
    clearInterval(poll);
    refresh.cancel();
    stopChanged();
    stopMesh();
    stopReopened();
  };
};
