/**
 * The Logs panel's slice: `logs` (the peer's entries, in a mutable ring; see log-buffer.ts) and
 * `logsView` (filters, pause, follow, expanded rows).
 *
 * Batches go into the ring as they arrive, but the store is told (`logs.version`) at most ten
 * times a second (the first batch at once): at 2,000 entries a second React renders ten times,
 * not 2,000. The store is told at the start of an animation frame (`requestAnimationFrame`), so
 * that React's render, and the style, layout and paint of its rows, fall in that one frame
 * rather than in a socket message's task between two frames, whose layout would then be redone
 * at the next frame's start.
 */
import type { ErrorValue } from '../../../../shared/error-codes.ts';
import type { LogBatchEvent } from '../../../../shared/inspector/logs.ts';
import type { LogLevel } from '../../../../shared/log.ts';
import { inspector } from '../../client/index.ts';
import { onLinkReopened } from '../../shell/slice.ts';
import { throttle } from '../../store/throttle.ts';
import type { EventWiring, SliceCreator } from '../../store/types.ts';
import { LogBuffer } from './log-buffer.ts';
import { SHOW_EVERYTHING, type LogFilter } from './log-filter.ts';

/** How often, at most, a flood of entries re-renders the panel. */
export const LOG_RENDER_INTERVAL_MS = 100;
/**
 * Held entries a filter change checks per task when it is spread over several (log-buffer.ts):
 * a few milliseconds of work each, so that frames keep coming while it runs.
 */
export const REFILTER_STEP_ENTRIES = 2_000;

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface LogsData {
  /** Mutable: read it during render, and subscribe to `version` to know when it changed. */
  readonly buffer: LogBuffer;
  readonly version: number;
  /** Loading the peer's recent history and its minimum level (`logs:recent`). */
  readonly status: LoadStatus;
  readonly error: ErrorValue | undefined;
  /** The peer's minimum level; undefined until `logs:recent` answered. */
  readonly minimumLogLevel: LogLevel | undefined;
  /** A change of the peer's level under way, or the error of the last one. */
  readonly levelChange: { readonly saving: boolean; readonly error: ErrorValue | undefined };
  /** Times the link to the peer dropped, and entries recovered from its recent history after. */
  readonly linkGaps: { readonly count: number; readonly recovered: number };
}

export interface LogsView {
  readonly filter: LogFilter;
  readonly paused: boolean;
  /** Keep the newest entry in view; off once the user scrolls up. */
  readonly follow: boolean;
  /** Rows showing their fields, by the buffer's ordinal. */
  readonly expanded: ReadonlySet<number>;
}

export interface LogsSlice {
  readonly logs: LogsData;
  readonly logsView: LogsView;
  loadLogs(): Promise<void>;
  receiveLogBatch(batch: LogBatchEvent): void;
  setLogFilter(patch: Partial<LogFilter>): void;
  pauseLogs(): void;
  resumeLogs(): void;
  clearLogs(): void;
  setLogsFollow(follow: boolean): void;
  toggleLogExpanded(ordinal: number): void;
  setPeerLogLevel(level: LogLevel): Promise<void>;
  /** The link came back: fetches what the peer logged meanwhile. */
  recoverLogGap(): Promise<void>;
}

export const createLogsSlice: SliceCreator<LogsSlice> = (set, get) => {
  const buffer = new LogBuffer();
  /** The next version, the buffer's view published with it (see LogBuffer.publish). */
  const nextVersion = (s: { logs: LogsData }): number => {
    buffer.publish();
    return s.logs.version + 1;
  };
  const bump = (): void => set((s) => ({ logs: { ...s.logs, version: nextVersion(s) } }));
  let refilterGeneration = 0;
  let frameRequested = false;
  const bumpAtFrame = (): void => {
    if (typeof requestAnimationFrame !== 'function') {
      bump();
      return;
    }
    if (frameRequested) return;
    frameRequested = true;
    requestAnimationFrame(() => {
      frameRequested = false;
      bump();
    });
  };
  const render = throttle(bumpAtFrame, LOG_RENDER_INTERVAL_MS);
  const setView = (patch: Partial<LogsView>): void => set((s) => ({ logsView: { ...s.logsView, ...patch } }));
  const setData = (patch: Partial<LogsData>): void => set((s) => ({ logs: { ...s.logs, ...patch } }));

  return {
    logs: {
      buffer,
      version: 0,
      status: 'idle',
      error: undefined,
      minimumLogLevel: undefined,
      levelChange: { saving: false, error: undefined },
      linkGaps: { count: 0, recovered: 0 },
    },
    logsView: { filter: SHOW_EVERYTHING, paused: false, follow: true, expanded: new Set() },

    async loadLogs() {
      if (get().logs.status === 'loading') return;
      setData({ status: 'loading', error: undefined });
      const result = await inspector.call('logs:recent', {});
      if (!result.ok) {
        setData({ status: 'error', error: result.error });
        return;
      }
      buffer.mergeHistory(result.value.entries);
      buffer.reportPeerDropped(result.value.dropped);
      render.cancel();
      set((s) => ({ logs: { ...s.logs, status: 'ready', minimumLogLevel: result.value.minimumLogLevel, version: nextVersion(s) } }));
    },

    receiveLogBatch(batch) {
      buffer.push(batch.entries);
      if (batch.dropped > 0) buffer.addPeerDropped(batch.dropped);
      render();
    },

    setLogFilter(patch) {
      const filter = { ...get().logsView.filter, ...patch };
      set((s) => ({ logsView: { ...s.logsView, filter } }));
      if (!buffer.beginFilter(filter)) {
        render.cancel();
        bump();
        return;
      }
      // Over many entries: a slice per task; the list shows the new view once every entry is checked.
      const generation = ++refilterGeneration;
      const step = (): void => {
        if (generation !== refilterGeneration || !buffer.refiltering) return;
        if (!buffer.refilterStep(REFILTER_STEP_ENTRIES)) {
          setTimeout(step, 0);
          return;
        }
        // The new view is drawn at the next frame, not in this task after its last slice.
        render.cancel();
        bumpAtFrame();
      };
      setTimeout(step, 0);
    },

    pauseLogs() {
      buffer.pause();
      setView({ paused: true });
    },

    resumeLogs() {
      buffer.resume();
      render.cancel();
      set((s) => ({ logsView: { ...s.logsView, paused: false, follow: true }, logs: { ...s.logs, version: nextVersion(s) } }));
    },

    clearLogs() {
      buffer.clear();
      render.cancel();
      set((s) => ({ logsView: { ...s.logsView, expanded: new Set(), follow: true }, logs: { ...s.logs, version: nextVersion(s) } }));
    },

    setLogsFollow(follow) {
      if (get().logsView.follow !== follow) setView({ follow });
    },

    toggleLogExpanded(ordinal) {
      const expanded = new Set(get().logsView.expanded);
      if (!expanded.delete(ordinal)) expanded.add(ordinal);
      setView({ expanded });
    },

    async recoverLogGap() {
      const mark = buffer.mark();
      set((s) => ({ logs: { ...s.logs, linkGaps: { ...s.logs.linkGaps, count: s.logs.linkGaps.count + 1 } } }));
      const result = await inspector.call('logs:recent', {});
      if (!result.ok) return;
      const recovered = buffer.fillGap(result.value.entries, mark);
      render.cancel();
      set((s) => ({
        logs: {
          ...s.logs,
          minimumLogLevel: result.value.minimumLogLevel,
          linkGaps: { ...s.logs.linkGaps, recovered: s.logs.linkGaps.recovered + recovered },
          version: nextVersion(s),
        },
      }));
    },

    async setPeerLogLevel(level) {
      setData({ levelChange: { saving: true, error: undefined } });
      const result = await inspector.call('logs:set-level', { level });
      if (result.ok) setData({ minimumLogLevel: level, levelChange: { saving: false, error: undefined } });
      else setData({ levelChange: { saving: false, error: result.error } });
    },
  };
};

export const wireLogsEvents: EventWiring = (store) => {
  const stopBatches = inspector.on('logs:batch', (batch) => store.getState().receiveLogBatch(batch));
  // Batches pushed while the link was down are lost: once it is back, fetch what is missing.
  const stopLink = onLinkReopened(store, () => void store.getState().recoverLogGap());
  return () => {
    stopBatches();
    stopLink();
  };
};
