/**
 * The Documents panel's result machinery: running a statement (a SELECT becomes the result, a
 * mutation refreshes it), fetching pages as the grid scrolls, refreshing without blanking, the
 * selection and its merge metadata. Part of the slice (slice.ts), kept apart for its size.
 */
import type { ErrorValue } from '../../../../shared/error-codes.ts';
import type { QueryOutcome } from '../../../../shared/inspector/documents.ts';
import { statementCollection } from '../../../../shared/inspector/statement-scan.ts';
import { jsonEqual } from '../../../../shared/json.ts';
import type { JsonObject, JsonValue } from '../../../../shared/json.ts';
import { inspector } from '../../client/index.ts';
import { idle, loading, settle } from '../../store/remote.ts';
import type { InspectorState } from '../../store/types.ts';
import { extendColumns } from './columns.ts';
import { pushHistory } from './history.ts';
import { createPageCache, missingPages, PAGE_SIZE, pagesInRange, rowAt, withPage, type PageCache } from './paging.ts';
import type { DocumentsSlice, RunRecord } from './types.ts';

type SetState = (partial: (state: InspectorState) => Partial<InspectorState>) => void;
type GetState = () => InspectorState;

/** The index of the row with `_id` `id` among the rows loaded, nearest to `near` first. */
export function findRow(cache: PageCache, id: JsonValue, near: number): number | undefined {
  if (jsonEqual(rowAt(cache, near)?.['_id'] ?? null, id)) return near;
  let best: number | undefined;
  for (const [page, rows] of cache.pages) {
    rows.forEach((row, i) => {
      const index = page * cache.pageSize + i;
      if (jsonEqual(row['_id'] ?? null, id) && (best === undefined || Math.abs(index - near) < Math.abs(best - near))) best = index;
    });
  }
  return best;
}

// Not state: what the table last showed (a refresh fetches those pages before it swaps), and the pages on their way.
let visibleRange = { start: 0, end: 60 };
const pagesInFlight = new Map<string, Set<number>>();
let epoch = 0;
/** A refresh asked for while one runs: it runs again once that one is done. */
let refreshAgain = false;
/** A row selected (by the keyboard) before its page was here: selected once it arrives. */
let pendingSelect: number | undefined;

/** Runs `callback` at the next animation frame; without one (outside a browser, as in unit tests), in a microtask. */
function atNextFrame(callback: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => callback());
  else queueMicrotask(callback);
}

export interface ResultActions {
  execute(statement: string, args: JsonObject, argsText: string, source: RunRecord['source'], label?: string): Promise<QueryOutcome | ErrorValue>;
  ensureRows: DocumentsSlice['ensureRows'];
  refreshResult: DocumentsSlice['refreshResult'];
  moveResultWindow: DocumentsSlice['moveResultWindow'];
  selectRow: DocumentsSlice['selectRow'];
  loadDetail: DocumentsSlice['loadDetail'];
}

export function createResultActions(set: SetState, get: GetState): ResultActions {
  const setDocs = (patch: Partial<DocumentsSlice['documents']>) => set((s) => ({ documents: { ...s.documents, ...patch } }));
  const setView = (patch: Partial<DocumentsSlice['documentsView']>) => set((s) => ({ documentsView: { ...s.documentsView, ...patch } }));

  /** Runs a statement; a SELECT becomes the result, a mutation refreshes it. */
  const execute = async (
    statement: string,
    args: JsonObject,
    argsText: string,
    source: RunRecord['source'],
    label?: string,
  ): Promise<QueryOutcome | ErrorValue> => {
    const run: RunRecord = { source, label, statement, args, outcome: loading(idle()) };
    setDocs({ run });
    const result = await inspector.call('documents:query', { statement, args, pageSize: PAGE_SIZE });
    const now = Date.now();
    set((s) => ({
      documents: { ...s.documents, run: { ...run, outcome: settle(run.outcome, result, now) } },
      documentsView: { ...s.documentsView, history: pushHistory(s.documentsView.history, { statement, args: argsText, at: now, ok: result.ok }) },
    }));
    if (!result.ok) return result.error;
    const outcome = result.value;
    if (outcome.commitId === null) {
      epoch += 1;
      const cache = createPageCache(outcome.resultId, outcome.total, outcome.rows);
      setDocs({
        rowsError: undefined,
        result: {
          statement,
          args,
          collection: statementCollection(statement),
          cache,
          columns: extendColumns([], outcome.rows),
          elapsedMs: outcome.elapsedMs,
          truncated: outcome.truncated === true,
          window: outcome.window,
          ranAt: now,
          epoch,
          refreshing: false,
          stale: false,
        },
      });
      visibleRange = { start: 0, end: 60 };
      setView({ selected: undefined });
      setDocs({ detail: idle() });
    } else {
      void get().refreshResult();
      if (get().documentsView.selected !== undefined) void get().loadDetail();
    }
    return outcome;
  };

  /**
   * Pages answered since the last frame. They are stored together at the next animation frame
   * rather than each in a render of its own as it arrives: while the table scrolls, a render
   * between two frames is styled and laid out at the start of the next one (Chromium updates the
   * hover state after a scroll, which needs layout), and that frame's scroll then replaces the
   * very rows it drew. At the frame (after its scroll), they render into the rows that frame
   * shows and are laid out with it; several pages make one render.
   */
  const arrived: { readonly resultId: string; readonly page: number; readonly rows: readonly JsonObject[] }[] = [];
  const storeArrived = () => {
    const batch = arrived.splice(0);
    for (const { resultId, page } of batch) pagesInFlight.get(resultId)?.delete(page);
    const current = get().documents.result;
    const pages = batch.filter((a) => a.resultId === current?.cache.resultId);
    if (current === undefined || pages.length === 0) return;
    const keep = new Set(pagesInRange(current.cache, visibleRange.start, visibleRange.end));
    let { cache, columns } = current;
    for (const { page, rows } of pages) {
      cache = withPage(cache, page, rows, keep);
      columns = extendColumns(columns, rows);
    }
    setDocs({ rowsError: undefined, result: { ...current, cache, columns } });
    if (pendingSelect !== undefined && rowAt(cache, pendingSelect) !== undefined) {
      const index = pendingSelect;
      pendingSelect = undefined;
      get().selectRow(index);
    }
  };

  const fetchPage = async (resultId: string, page: number): Promise<void> => {
    let flying = pagesInFlight.get(resultId);
    if (flying === undefined) pagesInFlight.set(resultId, (flying = new Set()));
    flying.add(page);
    const answer = await inspector.call('documents:rows', { resultId, offset: page * PAGE_SIZE, limit: PAGE_SIZE });
    const current = get().documents.result;
    if (current === undefined || current.cache.resultId !== resultId) {
      flying.delete(page);
      return;
    }
    if (!answer.ok) {
      flying.delete(page);
      // The peer keeps a few results per session: an expired one is simply taken again.
      if (answer.error.code === 'inspector/not-found') void get().refreshResult();
      else setDocs({ rowsError: answer.error });
      return;
    }
    // Still in flight (not asked for again) until it is stored.
    arrived.push({ resultId, page, rows: answer.value.rows });
    if (arrived.length === 1) atNextFrame(storeArrived);
  };

  return {
    execute,
    ensureRows: (start, end) => {
      visibleRange = { start, end };
      const result = get().documents.result;
      if (result === undefined || result.refreshing) return;
      const flying = pagesInFlight.get(result.cache.resultId) ?? new Set<number>();
      for (const page of missingPages(result.cache, start, end, flying)) void fetchPage(result.cache.resultId, page);
    },
    refreshResult: async () => {
      const result = get().documents.result;
      if (result === undefined) return;
      if (result.refreshing) {
        refreshAgain = true;
        return;
      }
      refreshAgain = false;
      setDocs({ result: { ...result, refreshing: true } });
      // A window past the first stays where it is (from its first row still there); the first, or
      // one whose kept result is gone (a new session), runs from the start.
      let answer =
        result.window !== undefined && result.window.start > 0
          ? await inspector.call('documents:window', { resultId: result.cache.resultId, direction: 'current', pageSize: PAGE_SIZE })
          : undefined;
      if (answer === undefined || (!answer.ok && answer.error.code === 'inspector/not-found'))
        answer = await inspector.call('documents:query', { statement: result.statement, args: result.args, pageSize: PAGE_SIZE });
      const current = get().documents.result;
      if (current === undefined || current.epoch !== result.epoch) return;
      if (!answer.ok || answer.value.commitId !== null) {
        setDocs({ result: { ...current, refreshing: false }, rowsError: answer.ok ? undefined : answer.error });
        refreshAgain = false;
        return;
      }
      const outcome = answer.value;
      // The pages on screen are fetched before the swap, so that the table never blanks.
      let cache = createPageCache(outcome.resultId, outcome.total, outcome.rows);
      let columns = extendColumns(current.columns, outcome.rows);
      const pages = pagesInRange(cache, visibleRange.start, visibleRange.end).filter((page) => page !== 0);
      const answers = await Promise.all(
        pages.map((page) => inspector.call('documents:rows', { resultId: outcome.resultId, offset: page * PAGE_SIZE, limit: PAGE_SIZE })),
      );
      answers.forEach((rows, i) => {
        if (!rows.ok) return;
        cache = withPage(cache, pages[i] as number, rows.value.rows);
        columns = extendColumns(columns, rows.value.rows);
      });
      const latest = get().documents.result;
      if (latest === undefined || latest.epoch !== result.epoch) return;
      setDocs({
        rowsError: undefined,
        result: {
          ...latest,
          cache,
          columns,
          elapsedMs: outcome.elapsedMs,
          truncated: outcome.truncated === true,
          window: outcome.window,
          ranAt: Date.now(),
          refreshing: false,
          stale: false,
        },
      });
      // The selected document may have moved (rows before it deleted or inserted): follow it among the rows here.
      const selected = get().documentsView.selected;
      if (selected?.id !== undefined) {
        const index = findRow(cache, selected.id, selected.index);
        if (index !== undefined && index !== selected.index) setView({ selected: { ...selected, index } });
      } else if (selected !== undefined) {
        const row = rowAt(cache, selected.index);
        if (row !== undefined) setView({ selected: { ...selected, row } });
      }
      if (refreshAgain) void get().refreshResult();
    },
    moveResultWindow: async (direction) => {
      const result = get().documents.result;
      if (result === undefined || result.refreshing) return;
      setDocs({ result: { ...result, refreshing: true } });
      const answer = await inspector.call('documents:window', { resultId: result.cache.resultId, direction, pageSize: PAGE_SIZE });
      const current = get().documents.result;
      if (current === undefined || current.epoch !== result.epoch) return;
      if (!answer.ok) {
        setDocs({ result: { ...current, refreshing: false }, rowsError: answer.error });
        return;
      }
      const outcome = answer.value;
      // Another window is another table: back to its top, nothing selected.
      epoch += 1;
      visibleRange = { start: 0, end: 60 };
      setDocs({
        rowsError: undefined,
        detail: idle(),
        result: {
          ...current,
          cache: createPageCache(outcome.resultId, outcome.total, outcome.rows),
          columns: extendColumns(current.columns, outcome.rows),
          elapsedMs: outcome.elapsedMs,
          truncated: outcome.truncated === true,
          window: outcome.window,
          ranAt: Date.now(),
          epoch,
          refreshing: false,
          stale: false,
        },
      });
      setView({ selected: undefined });
    },
    selectRow: (index) => {
      const result = get().documents.result;
      if (index === undefined || result === undefined) {
        setView({ selected: undefined });
        setDocs({ detail: idle() });
        return;
      }
      const row = rowAt(result.cache, index);
      if (row === undefined) {
        pendingSelect = index;
        get().ensureRows(Math.max(0, index - 30), index + 30);
        return;
      }
      pendingSelect = undefined;
      const id = Object.hasOwn(row, '_id') ? row['_id'] : undefined;
      setView({ selected: { index, collection: result.collection, id, row }, detailOpen: true });
      setDocs({ detail: idle(), trace: idle() });
      void get().loadDetail();
    },
    loadDetail: async () => {
      const selected = get().documentsView.selected;
      if (selected?.collection === undefined || selected.id === undefined) return;
      const { collection, id } = selected;
      setDocs({ detail: loading(get().documents.detail), trace: loading(get().documents.trace) });
      const [answer, trace] = await Promise.all([
        inspector.call('documents:metadata', { collection, id }),
        inspector.call('documents:trace', { collection, id }),
      ]);
      const now = get().documentsView.selected;
      if (now?.collection !== collection || JSON.stringify(now.id) !== JSON.stringify(id)) return;
      const received = Date.now();
      set((s) => ({
        documents: {
          ...s.documents,
          detail: answer.ok ? settle(s.documents.detail, answer, received) : { status: 'error', value: undefined, error: answer.error, receivedAt: undefined },
          trace: trace.ok ? settle(s.documents.trace, trace, received) : { status: 'error', value: undefined, error: trace.error, receivedAt: undefined },
        },
      }));
    },
  };
}
