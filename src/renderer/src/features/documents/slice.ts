/**
 * The Documents panel's slice. `documents` holds what came from the peer: the last statement run
 * and its outcome, the current SELECT result (a bounded page cache, see paging.ts), the selected
 * document's merge metadata, the UI action in flight. `documentsView` holds the inspector's own
 * state: the collection picked, the console's text and history, the result mode, the selection,
 * the layout, the open dialog.
 *
 * Every action of the panel runs a DQL statement through `documents:query`; the SELECT result
 * stays on the peer and is read a page at a time with `documents:rows` as the table scrolls.
 */
import type { ErrorValue } from '../../../../shared/error-codes.ts';
import type { DocumentMetadata, QueryOutcome } from '../../../../shared/inspector/documents.ts';
import { jsonEqual, selectCollection, statementCollection, type Statement } from '../../../../shared/inspector/statements.ts';
import type { JsonObject, JsonValue } from '../../../../shared/json.ts';
import { inspector } from '../../client/index.ts';
import { onLinkReopened, whileShown } from '../../shell/slice.ts';
import { readStored, writeStored } from '../../store/persist.ts';
import { idle, loading, settle, type Remote } from '../../store/remote.ts';
import { throttle } from '../../store/throttle.ts';
import type { EventWiring, SliceCreator } from '../../store/types.ts';
import { extendColumns } from './columns.ts';
import { EMPTY_HISTORY, parseHistory, pickHistory, pushHistory, stepHistory, type ConsoleText, type HistoryState } from './history.ts';
import { createPageCache, missingPages, PAGE_SIZE, pagesInRange, rowAt, withPage, type PageCache } from './paging.ts';

/** At most one live refresh of the result per this interval while commits keep coming. */
export const LIVE_REFRESH_MS = 2000;

export type ResultMode = 'table' | 'json';
export type DetailTab = 'document' | 'metadata';

/** The current SELECT result. */
export interface ResultState {
  readonly statement: string;
  readonly args: JsonObject;
  /** The collection the statement reads (for the selected row's metadata and actions). */
  readonly collection: string | undefined;
  readonly cache: PageCache;
  readonly columns: readonly string[];
  readonly elapsedMs: number;
  /** The peer kept only the first `cache.total` rows of a larger result (see `QueryOutcome.truncated`). */
  readonly truncated: boolean;
  readonly ranAt: number;
  /** Changes when another statement runs, not on a refresh: the table goes back to the top. */
  readonly epoch: number;
  readonly refreshing: boolean;
  /** Commits changed the collection since this result was taken (live refresh off). */
  readonly stale: boolean;
}

/** The last statement run, from the console or a UI action, and how it went. */
export interface RunRecord {
  readonly source: 'console' | 'action';
  /** What the action was, for a UI action: `Delete document`. */
  readonly label: string | undefined;
  readonly statement: string;
  readonly args: JsonObject;
  readonly outcome: Remote<QueryOutcome>;
}

export type DocumentDialog =
  | { readonly kind: 'insert'; readonly collection: string }
  | { readonly kind: 'edit'; readonly collection: string; readonly id: JsonValue }
  | { readonly kind: 'delete' | 'evict'; readonly collection: string; readonly id: JsonValue };

export interface Selection {
  readonly index: number;
  readonly collection: string | undefined;
  /** The row's `_id`; undefined for a row without one (a projection). */
  readonly id: JsonValue | undefined;
  readonly row: JsonObject;
}

export interface DocumentsLayout {
  readonly sidebar: number;
  readonly console: number;
  readonly detail: number;
}

export interface DocumentsSlice {
  readonly documents: {
    readonly run: RunRecord | undefined;
    readonly result: ResultState | undefined;
    /** A page of the result could not be read. */
    readonly rowsError: ErrorValue | undefined;
    readonly detail: Remote<DocumentMetadata>;
    /** The UI action (insert, edit, delete, evict) in flight or failed, shown in its dialog. */
    readonly action: Remote<QueryOutcome>;
  };
  readonly documentsView: {
    readonly collection: string | undefined;
    readonly showInternal: boolean;
    readonly collectionFilter: string;
    readonly editor: ConsoleText;
    readonly history: HistoryState;
    readonly resultMode: ResultMode;
    readonly selected: Selection | undefined;
    readonly detailTab: DetailTab;
    readonly detailOpen: boolean;
    readonly live: boolean;
    readonly layout: DocumentsLayout;
    readonly dialog: DocumentDialog | undefined;
  };
  /** Shows a collection: `SELECT * FROM <name>` in the console, run, and the Documents panel. */
  openCollection(name: string): void;
  setEditor(text: Partial<ConsoleText>): void;
  runConsole(): Promise<void>;
  /** Shows an older (-1) or newer (+1) statement of the history; false when there is none. */
  historyStep(direction: -1 | 1): boolean;
  historyPick(index: number): void;
  clearHistory(): void;
  /** Makes sure rows `start`…`end` of the result are here or on their way. */
  ensureRows(start: number, end: number): void;
  refreshResult(): Promise<void>;
  selectRow(index: number | undefined): void;
  loadDetail(): Promise<void>;
  openDialog(dialog: DocumentDialog | undefined): void;
  /** Runs a UI action's statement; closes its dialog when it succeeds. */
  runAction(label: string, statement: Statement): Promise<boolean>;
  /** Puts a statement in the console instead of running it. */
  useInConsole(statement: Statement): void;
  setDocumentsView(view: Partial<Pick<DocumentsSlice['documentsView'], 'resultMode' | 'detailTab' | 'detailOpen' | 'live' | 'showInternal' | 'collectionFilter'>>): void;
  setDocumentsLayout(layout: Partial<DocumentsLayout>): void;
}

const HISTORY_KEY = 'console-history';
const LAYOUT_KEY = 'documents-layout';
const DEFAULT_LAYOUT: DocumentsLayout = { sidebar: 210, console: 180, detail: 400 };

function parseLayout(value: unknown): DocumentsLayout | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const n = (key: keyof DocumentsLayout) => (typeof v[key] === 'number' && Number.isFinite(v[key]) ? (v[key] as number) : DEFAULT_LAYOUT[key]);
  return { sidebar: n('sidebar'), console: n('console'), detail: n('detail') };
}

/** Parses the console's arguments: empty is `{}`; anything else must be a JSON object. */
export function parseArgs(text: string): { readonly ok: true; readonly args: JsonObject } | { readonly ok: false; readonly error: ErrorValue } {
  if (text.trim() === '') return { ok: true, args: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: { code: 'query/arguments-invalid', message: `The arguments are not JSON: ${(error as Error).message}` } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: { code: 'query/arguments-invalid', message: 'The arguments must be a JSON object of named values, like {"id": "a1"}.' } };
  }
  return { ok: true, args: value as JsonObject };
}

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

export const createDocumentsSlice: SliceCreator<DocumentsSlice> = (set, get) => {
  const setDocs = (patch: Partial<DocumentsSlice['documents']>) => set((s) => ({ documents: { ...s.documents, ...patch } }));
  const setView = (patch: Partial<DocumentsSlice['documentsView']>) => set((s) => ({ documentsView: { ...s.documentsView, ...patch } }));

  /** Runs a statement; a SELECT becomes the result, a mutation refreshes it. */
  const execute = async (statement: string, args: JsonObject, argsText: string, source: RunRecord['source'], label?: string): Promise<QueryOutcome | ErrorValue> => {
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

  const fetchPage = async (resultId: string, page: number): Promise<void> => {
    let flying = pagesInFlight.get(resultId);
    if (flying === undefined) pagesInFlight.set(resultId, (flying = new Set()));
    flying.add(page);
    const answer = await inspector.call('documents:rows', { resultId, offset: page * PAGE_SIZE, limit: PAGE_SIZE });
    flying.delete(page);
    const current = get().documents.result;
    if (current === undefined || current.cache.resultId !== resultId) return;
    if (!answer.ok) {
      // The peer keeps a few results per session: an expired one is simply taken again.
      if (answer.error.code === 'inspector/not-found') void get().refreshResult();
      else setDocs({ rowsError: answer.error });
      return;
    }
    const keep = new Set(pagesInRange(current.cache, visibleRange.start, visibleRange.end));
    setDocs({
      rowsError: undefined,
      result: { ...current, cache: withPage(current.cache, page, answer.value.rows, keep), columns: extendColumns(current.columns, answer.value.rows) },
    });
    if (pendingSelect !== undefined && Math.floor(pendingSelect / PAGE_SIZE) === page) {
      const index = pendingSelect;
      pendingSelect = undefined;
      get().selectRow(index);
    }
  };

  return {
    documents: { run: undefined, result: undefined, rowsError: undefined, detail: idle(), action: idle() },
    documentsView: {
      collection: undefined,
      showInternal: false,
      collectionFilter: '',
      editor: { statement: '', args: '' },
      history: { ...EMPTY_HISTORY, entries: readStored(HISTORY_KEY, parseHistory) ?? [] },
      resultMode: 'table',
      selected: undefined,
      detailTab: 'document',
      detailOpen: true,
      live: true,
      layout: readStored(LAYOUT_KEY, parseLayout) ?? DEFAULT_LAYOUT,
      dialog: undefined,
    },

    openCollection: (name) => {
      const { statement } = selectCollection(name);
      setView({ collection: name, editor: { statement, args: '' } });
      get().showPanel('documents');
      void execute(statement, {}, '', 'console');
    },

    setEditor: (text) => set((s) => ({ documentsView: { ...s.documentsView, editor: { ...s.documentsView.editor, ...text } } })),

    runConsole: async () => {
      const { editor } = get().documentsView;
      const parsed = parseArgs(editor.args);
      if (!parsed.ok) {
        setDocs({ run: { source: 'console', label: undefined, statement: editor.statement, args: {}, outcome: { status: 'error', value: undefined, error: parsed.error, receivedAt: undefined } } });
        return;
      }
      if (get().documents.run?.outcome.status === 'loading') return;
      const collection = statementCollection(editor.statement);
      if (collection !== undefined && collection !== get().documentsView.collection) setView({ collection });
      await execute(editor.statement, parsed.args, editor.args, 'console');
    },

    historyStep: (direction) => {
      const { history, editor } = get().documentsView;
      const step = stepHistory(history, direction, editor);
      if (step === undefined) return false;
      setView({ history: step.state, editor: step.text });
      return true;
    },

    historyPick: (index) => {
      const { history, editor } = get().documentsView;
      const pick = pickHistory(history, index, editor);
      if (pick !== undefined) setView({ history: pick.state, editor: pick.text });
    },

    clearHistory: () => setView({ history: EMPTY_HISTORY }),

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
      const answer = await inspector.call('documents:query', { statement: result.statement, args: result.args, pageSize: PAGE_SIZE });
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
      const answers = await Promise.all(pages.map((page) => inspector.call('documents:rows', { resultId: outcome.resultId, offset: page * PAGE_SIZE, limit: PAGE_SIZE })));
      answers.forEach((rows, i) => {
        if (!rows.ok) return;
        cache = withPage(cache, pages[i] as number, rows.value.rows);
        columns = extendColumns(columns, rows.value.rows);
      });
      const latest = get().documents.result;
      if (latest === undefined || latest.epoch !== result.epoch) return;
      setDocs({ rowsError: undefined, result: { ...latest, cache, columns, elapsedMs: outcome.elapsedMs, truncated: outcome.truncated === true, ranAt: Date.now(), refreshing: false, stale: false } });
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
      setDocs({ detail: idle() });
      void get().loadDetail();
    },

    loadDetail: async () => {
      const selected = get().documentsView.selected;
      if (selected?.collection === undefined || selected.id === undefined) return;
      const { collection, id } = selected;
      setDocs({ detail: loading(get().documents.detail) });
      const answer = await inspector.call('documents:metadata', { collection, id });
      const now = get().documentsView.selected;
      if (now?.collection !== collection || JSON.stringify(now.id) !== JSON.stringify(id)) return;
      set((s) => ({ documents: { ...s.documents, detail: answer.ok ? settle(s.documents.detail, answer, Date.now()) : { status: 'error', value: undefined, error: answer.error, receivedAt: undefined } } }));
    },

    openDialog: (dialog) => {
      setView({ dialog });
      setDocs({ action: idle() });
    },

    runAction: async (label, statement) => {
      setDocs({ action: loading(idle()) });
      const outcome = await execute(statement.statement, statement.args, JSON.stringify(statement.args, null, 2), 'action', label);
      if ('code' in outcome) {
        setDocs({ action: { status: 'error', value: undefined, error: outcome, receivedAt: undefined } });
        return false;
      }
      setDocs({ action: settle(idle(), { ok: true, value: outcome }, Date.now()) });
      setView({ dialog: undefined });
      return true;
    },

    useInConsole: (statement) => {
      const args = Object.keys(statement.args).length === 0 ? '' : JSON.stringify(statement.args, null, 2);
      setView({ editor: { statement: statement.statement, args }, dialog: undefined });
    },

    setDocumentsView: (view) => setView(view),

    setDocumentsLayout: (layout) => set((s) => ({ documentsView: { ...s.documentsView, layout: { ...s.documentsView.layout, ...layout } } })),
  };
};

export const wireDocumentsEvents: EventWiring = (store) => {
  const refresh = throttle(() => void store.getState().refreshResult(), LIVE_REFRESH_MS);
  const reloadDetail = throttle(() => void store.getState().loadDetail(), LIVE_REFRESH_MS);
  const stopChanged = inspector.on('store:changed', ({ collections }) => {
    const state = store.getState();
    const result = state.documents.result;
    if (result !== undefined && (result.collection === undefined || collections.includes(result.collection))) {
      // Live, and in sight: refreshed. Otherwise marked, and refreshed when the panel shows again (live) or on demand.
      if (state.documentsView.live && state.shellView.panel === 'documents') refresh();
      else if (!result.stale) store.setState((s) => ({ documents: { ...s.documents, result: s.documents.result === undefined ? undefined : { ...s.documents.result, stale: true } } }));
    }
    const selected = state.documentsView.selected;
    if (selected?.collection !== undefined && collections.includes(selected.collection)) reloadDetail();
  });
  const shown = whileShown(store, 'documents', () => {
    const state = store.getState();
    if (state.documents.result?.stale === true && state.documentsView.live) void state.refreshResult();
  });
  // The old session's results are gone with it.
  const stopReopened = onLinkReopened(store, () => {
    void store.getState().refreshResult();
    void store.getState().loadDetail();
  });
  // The history and the layout outlive the page (localStorage, per origin).
  const stopPersist = store.subscribe((state, previous) => {
    if (state.documentsView.history.entries !== previous.documentsView.history.entries) writeStored(HISTORY_KEY, state.documentsView.history.entries);
    if (state.documentsView.layout !== previous.documentsView.layout) writeStored(LAYOUT_KEY, state.documentsView.layout);
  });
  return () => {
    refresh.cancel();
    reloadDetail.cancel();
    stopChanged();
    stopReopened();
    stopPersist();
    shown.stop();
  };
};
