/**
 * The Eviction panel's slice: `eviction` (the peer's state from `eviction:get`, the chart's points
 * and marks, the last dry run, the last run asked for, the scenario) and `evictionView` (the chart
 * window, hidden series, the scenario's inputs).
 *
 * Points and marks are collected from the start (events are wired with the store), merged with
 * each `eviction:get`. The state is fetched when the panel is shown and, while it is, after
 * `eviction:changed` (at most once a second) and when the link opens again.
 */
import type { ErrorValue } from '../../../../shared/error-codes.ts';
import type {
  EvictionDryRunInfo,
  EvictionFixStrategyResult,
  EvictionMark,
  EvictionNarrowResult,
  EvictionRunInfo,
  EvictionSample,
  EvictionScenarioCycle,
  EvictionScenarioResult,
  EvictionState,
} from '../../../../shared/inspector/eviction.ts';
import { inspector } from '../../client/index.ts';
import { onLinkReopened, whileShown } from '../../shell/slice.ts';
import { idle, loading, settle, type Remote } from '../../store/remote.ts';
import { throttle } from '../../store/throttle.ts';
import type { EventWiring, SliceCreator } from '../../store/types.ts';
import type { SeriesId } from './chart-layout.ts';
import { mergeMarks, mergeSamples } from './model.ts';

/** At most one refresh of the state per this interval for bursts of `eviction:changed`. */
export const EVICTION_CHANGE_THROTTLE_MS = 1000;

/** Time windows the chart offers. */
export const CHART_WINDOWS = [
  { ms: 120_000, label: '2 min' },
  { ms: 300_000, label: '5 min' },
  { ms: 900_000, label: '15 min' },
] as const;

export interface ScenarioState {
  /** `running`: asked, not answered yet (or under way, started elsewhere); `cancelled`: stopped by Cancel, the peer put back. */
  readonly status: 'idle' | 'running' | 'done' | 'error' | 'cancelled';
  /** Cancel was asked and has not answered yet. */
  readonly cancelling: boolean;
  /** Started from this window (its answer comes here), or seen under way, started from another. */
  readonly origin: 'here' | 'elsewhere';
  /** The id its rows carry, once known (the first row, or the answer). */
  readonly id: number | undefined;
  readonly docs: number;
  readonly cycles: number;
  readonly rows: readonly EvictionScenarioCycle[];
  readonly report: EvictionScenarioResult | undefined;
  readonly error: ErrorValue | undefined;
}

export interface EvictionData {
  readonly state: Remote<EvictionState>;
  /** The chart's points, oldest first (at most 900). */
  readonly samples: readonly EvictionSample[];
  readonly marks: readonly EvictionMark[];
  readonly dryRun: { readonly collection: string; readonly result: Remote<EvictionDryRunInfo> } | undefined;
  /** The last Run now or Force asked from this window. */
  readonly run: { readonly collection: string; readonly force: boolean; readonly result: Remote<EvictionRunInfo> } | undefined;
  /** The last fix of an overlap asked from this window (Narrow, on a strategy's row or in Subscriptions). */
  readonly narrow: { readonly collection: string; readonly subscriptionId: number; readonly result: Remote<EvictionNarrowResult> } | undefined;
  /** The last fix of a local strategy's own overlap asked from this window (Apply). */
  readonly fixStrategy: { readonly collection: string; readonly result: Remote<EvictionFixStrategyResult> } | undefined;
  readonly scenario: ScenarioState;
}

export interface EvictionView {
  readonly chartWindowMs: number;
  readonly hiddenSeries: readonly SeriesId[];
  /** The scenario's inputs as typed. */
  readonly scenarioDocs: string;
  readonly scenarioCycles: string;
}

export interface EvictionSlice {
  readonly eviction: EvictionData;
  readonly evictionView: EvictionView;
  loadEviction(): Promise<void>;
  receiveEvictionPoints(samples: readonly EvictionSample[], marks: readonly EvictionMark[]): void;
  dryRunEviction(collection: string): Promise<void>;
  runEviction(collection: string, force: boolean): Promise<void>;
  /** Puts the narrowed form of a subscription that overlaps what `collection`'s strategy evicts in its place; then both panels refresh. */
  narrowOverlappingSubscription(collection: string, subscriptionId: number): Promise<void>;
  /** Gives `collection`'s local strategy the suggested `subscribeWhere` on the running peer; then the panel refreshes. */
  fixOverlappingStrategy(collection: string): Promise<void>;
  runEvictionScenario(docs: number, cycles: number): Promise<void>;
  /** Cancels the scenario under way (this window's or another's); resolves once the peer is put back. */
  cancelEvictionScenario(): Promise<void>;
  receiveScenarioCycle(id: number, row: EvictionScenarioCycle): void;
  setEvictionChartWindow(ms: number): void;
  toggleEvictionSeries(id: SeriesId): void;
  setScenarioInputs(docs: string, cycles: string): void;
}

export const IDLE_SCENARIO: ScenarioState = {
  status: 'idle',
  cancelling: false,
  origin: 'here',
  id: undefined,
  docs: 0,
  cycles: 0,
  rows: [],
  report: undefined,
  error: undefined,
};

let inFlight: Promise<void> | undefined;

export const createEvictionSlice: SliceCreator<EvictionSlice> = (set, get) => {
  const setData = (patch: Partial<EvictionData>): void => set((s) => ({ eviction: { ...s.eviction, ...patch } }));
  const setView = (patch: Partial<EvictionView>): void => set((s) => ({ evictionView: { ...s.evictionView, ...patch } }));
  return {
    eviction: { state: idle(), samples: [], marks: [], dryRun: undefined, run: undefined, narrow: undefined, fixStrategy: undefined, scenario: IDLE_SCENARIO },
    evictionView: { chartWindowMs: 300_000, hiddenSeries: [], scenarioDocs: '200', scenarioCycles: '2' },

    loadEviction() {
      // One call at a time: a refresh that meets one in flight joins it.
      inFlight ??= (async () => {
        set((s) => ({ eviction: { ...s.eviction, state: loading(s.eviction.state) } }));
        const result = await inspector.call('eviction:get', {});
        set((s) => {
          const eviction = { ...s.eviction, state: settle(s.eviction.state, result, Date.now()) };
          if (!result.ok) return { eviction };
          const scenario = reconcileScenario(s.eviction.scenario, result.value.scenario);
          return {
            eviction: {
              ...eviction,
              samples: mergeSamples(s.eviction.samples, result.value.samples),
              marks: mergeMarks(s.eviction.marks, result.value.marks),
              scenario,
            },
          };
        });
      })().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },

    receiveEvictionPoints(samples, marks) {
      set((s) => {
        const merged = { samples: mergeSamples(s.eviction.samples, samples), marks: mergeMarks(s.eviction.marks, marks) };
        if (merged.samples === s.eviction.samples && merged.marks === s.eviction.marks) return s;
        return { eviction: { ...s.eviction, ...merged } };
      });
    },

    async dryRunEviction(collection) {
      const previous = get().eviction.dryRun;
      const base = previous?.collection === collection ? previous.result : idle<EvictionDryRunInfo>();
      setData({ dryRun: { collection, result: loading(base) } });
      const result = await inspector.call('eviction:dry-run', { collection });
      const current = get().eviction.dryRun;
      // Another collection asked for meanwhile: this answer is not wanted any more.
      if (current?.collection !== collection) return;
      setData({ dryRun: { collection, result: settle(current.result, result, Date.now()) } });
    },

    async runEviction(collection, force) {
      if (get().eviction.run?.result.status === 'loading') return;
      setData({ run: { collection, force, result: loading(idle()) } });
      const result = await inspector.call('eviction:run', { collection, force });
      setData({ run: { collection, force, result: settle(idle(), result, Date.now()) } });
      void get().loadEviction();
      // What a dry run of the collection said is out of date once it ran.
      const dry = get().eviction.dryRun;
      if (result.ok && result.value.outcome === 'evicted' && dry?.collection === collection) void get().dryRunEviction(collection);
    },

    async narrowOverlappingSubscription(collection, subscriptionId) {
      if (get().eviction.narrow?.result.status === 'loading') return;
      setData({ narrow: { collection, subscriptionId, result: loading(idle()) } });
      const result = await inspector.call('eviction:narrow-subscription', { collection, subscriptionId });
      setData({ narrow: { collection, subscriptionId, result: settle(idle(), result, Date.now()) } });
      // The Subscriptions panel refreshes on the peer's subscriptions:changed.
      void get().loadEviction();
      const dry = get().eviction.dryRun;
      if (result.ok && dry?.collection === collection) void get().dryRunEviction(collection);
    },

    async fixOverlappingStrategy(collection) {
      if (get().eviction.fixStrategy?.result.status === 'loading') return;
      setData({ fixStrategy: { collection, result: loading(idle()) } });
      const result = await inspector.call('eviction:fix-strategy', { collection });
      setData({ fixStrategy: { collection, result: settle(idle(), result, Date.now()) } });
      void get().loadEviction();
      const dry = get().eviction.dryRun;
      if (result.ok && dry?.collection === collection) void get().dryRunEviction(collection);
    },

    async runEvictionScenario(docs, cycles) {
      if (get().eviction.scenario.status === 'running') return;
      setData({ scenario: { ...IDLE_SCENARIO, status: 'running', docs, cycles } });
      const result = await inspector.call('eviction:scenario', { docs, cycles });
      const current = get().eviction.scenario;
      if (result.ok) {
        setData({ scenario: { ...current, status: 'done', id: result.value.id, rows: result.value.cycles, report: result.value, error: undefined } });
      } else if (result.error.code === 'scenario/cancelled') {
        setData({ scenario: { ...current, status: 'cancelled', cancelling: false, error: result.error } });
      } else {
        setData({ scenario: { ...current, status: 'error', cancelling: false, error: result.error } });
      }
    },

    async cancelEvictionScenario() {
      const scenario = get().eviction.scenario;
      if (scenario.status !== 'running' || scenario.cancelling) return;
      setData({ scenario: { ...scenario, cancelling: true } });
      const result = await inspector.call('eviction:scenario-cancel', {});
      const current = get().eviction.scenario;
      if (!result.ok) {
        setData({ scenario: { ...current, cancelling: false, error: result.error } });
        return;
      }
      // This window's own scenario learns it from its answer; one started elsewhere ends here.
      if (current.origin === 'elsewhere' && result.value.cancelled && (current.status === 'running' || current.status === 'done'))
        setData({ scenario: { ...current, status: 'cancelled', cancelling: false } });
      else if (current.cancelling) setData({ scenario: { ...current, cancelling: false } });
      void get().loadEviction();
    },

    receiveScenarioCycle(id, row) {
      set((s) => {
        const scenario = s.eviction.scenario;
        // Rows of this window's scenario (its id is learnt from its first row), or of one under way started elsewhere.
        if (scenario.status !== 'running' || (scenario.id !== undefined && scenario.id !== id)) return s;
        if (scenario.rows.some((r) => r.way === row.way && r.cycle === row.cycle)) return s;
        return { eviction: { ...s.eviction, scenario: { ...scenario, id, rows: [...scenario.rows, row] } } };
      });
    },

    setEvictionChartWindow(chartWindowMs) {
      setView({ chartWindowMs });
    },

    toggleEvictionSeries(id) {
      const hidden = get().evictionView.hiddenSeries;
      setView({ hiddenSeries: hidden.includes(id) ? hidden.filter((h) => h !== id) : [...hidden, id] });
    },

    setScenarioInputs(scenarioDocs, scenarioCycles) {
      setView({ scenarioDocs, scenarioCycles });
    },
  };
};

/**
 * The scenario as this window knows it, given the one the peer says is under way: one started
 * elsewhere is shown with its rows; once it is over, its rows stay (its report went to the window
 * that asked). This window's own is left to its answer.
 */
export function reconcileScenario(local: ScenarioState, running: EvictionState['scenario']): ScenarioState {
  if (running !== undefined) {
    if (local.status === 'running' && (local.id === undefined || local.id === running.id)) {
      return running.rows.length > local.rows.length || local.id === undefined
        ? { ...local, id: running.id, rows: running.rows.length > local.rows.length ? running.rows : local.rows }
        : local;
    }
    if (local.status === 'running' && local.origin === 'here') return local;
    return { ...IDLE_SCENARIO, status: 'running', origin: 'elsewhere', id: running.id, docs: running.docs, cycles: running.cycles, rows: running.rows };
  }
  if (local.status === 'running' && local.origin === 'elsewhere') return { ...local, status: 'done' };
  return local;
}

export const wireEvictionEvents: EventWiring = (store) => {
  let samples: EvictionSample[] = [];
  let marks: EvictionMark[] = [];
  // Points come once a second: applied as they come, batched only when a backlog arrives at once.
  const flush = throttle(() => {
    const batch = { samples, marks };
    samples = [];
    marks = [];
    store.getState().receiveEvictionPoints(batch.samples, batch.marks);
  }, 250);
  const offSample = inspector.on('eviction:sample', (sample) => {
    if (samples.push(sample) > 2 * 900) samples = samples.slice(-900);
    flush();
  });
  const offMark = inspector.on('eviction:mark', (mark) => {
    marks.push(mark);
    flush();
  });
  const offCycle = inspector.on('eviction:scenario-cycle', ({ id, row }) => store.getState().receiveScenarioCycle(id, row));
  const shown = whileShown(store, 'eviction', () => void store.getState().loadEviction());
  const refresh = throttle(() => shown.refresh(), EVICTION_CHANGE_THROTTLE_MS);
  const offChanged = inspector.on('eviction:changed', () => refresh());
  // Events pushed while the link was down are lost: once it is back, the state fills the gap.
  const stopLink = onLinkReopened(store, () => {
    if (store.getState().eviction.state.status !== 'idle') void store.getState().loadEviction();
  });
  return () => {
    offSample();
    offMark();
    offCycle();
    offChanged();
    shown.stop();
    refresh.cancel();
    flush.cancel();
    stopLink();
  };
};
