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
import { statementCollection } from '../../../../shared/inspector/statement-scan.ts';
import { selectCollection } from '../../../../shared/inspector/statements.ts';
import type { JsonObject } from '../../../../shared/json.ts';
import { inspector } from '../../client/index.ts';
import { onLinkReopened, whileShown } from '../../shell/slice.ts';
import { readStored, writeStored } from '../../store/persist.ts';
import { idle, loading, settle } from '../../store/remote.ts';
import { throttle } from '../../store/throttle.ts';
import type { EventWiring, SliceCreator } from '../../store/types.ts';
import { goToStatement } from './go-to.ts';
import { EMPTY_HISTORY, parseHistory, pickHistory, stepHistory } from './history.ts';
import { createResultActions } from './result-actions.ts';
import type { DocumentsLayout, DocumentsSlice } from './types.ts';

/** At most one live refresh of the result per this interval while commits keep coming. */
export const LIVE_REFRESH_MS = 2000;

export type { DetailTab, DocumentDialog, DocumentsLayout, DocumentsSlice, ResultMode, ResultState, RunRecord, Selection } from './types.ts';

const HISTORY_KEY = 'console-history';
const LAYOUT_KEY = 'documents-layout';
const DEFAULT_LAYOUT: DocumentsLayout = { sidebar: 210, console: 180, detail: 400 };

export function parseLayout(value: unknown): DocumentsLayout | undefined {
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

export const createDocumentsSlice: SliceCreator<DocumentsSlice> = (set, get) => {
  const setDocs = (patch: Partial<DocumentsSlice['documents']>) => set((s) => ({ documents: { ...s.documents, ...patch } }));
  const setView = (patch: Partial<DocumentsSlice['documentsView']>) => set((s) => ({ documentsView: { ...s.documentsView, ...patch } }));

  const results = createResultActions(set, get);
  const { execute } = results;

  return {
    documents: { run: undefined, result: undefined, rowsError: undefined, detail: idle(), trace: idle(), action: idle() },
    documentsView: {
      collection: undefined,
      showInternal: false,
      collectionFilter: '',
      editor: { statement: '', args: '' },
      history: { ...EMPTY_HISTORY, entries: readStored(HISTORY_KEY, parseHistory) ?? [] },
      resultMode: 'table',
      selected: undefined,
      detailTab: 'document',
      fieldsSeen: {},
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

    goToDocument: async (collection, idText) => {
      const { statement, args } = goToStatement(collection, idText);
      setView({ collection, editor: { statement, args: JSON.stringify(args, null, 2) }, detailTab: 'trace' });
      get().showPanel('documents');
      await get().runConsole();
      const result = get().documents.result;
      if (result === undefined || result.statement !== statement || result.cache.total === 0) return false;
      get().selectRow(0);
      return true;
    },

    ensureRows: results.ensureRows,
    refreshResult: results.refreshResult,
    moveResultWindow: results.moveResultWindow,
    selectRow: results.selectRow,
    loadDetail: results.loadDetail,

    setEditor: (text) => set((s) => ({ documentsView: { ...s.documentsView, editor: { ...s.documentsView.editor, ...text } } })),

    runConsole: async () => {
      const { editor } = get().documentsView;
      const parsed = parseArgs(editor.args);
      if (!parsed.ok) {
        setDocs({
          run: {
            source: 'console',
            label: undefined,
            statement: editor.statement,
            args: {},
            outcome: { status: 'error', value: undefined, error: parsed.error, receivedAt: undefined },
          },
        });
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
      else if (!result.stale)
        store.setState((s) => ({
          documents: { ...s.documents, result: s.documents.result === undefined ? undefined : { ...s.documents.result, stale: true } },
        }));
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
    // The fields of each collection's results, for completion in the console.
    const result = state.documents.result;
    if (result?.collection !== undefined && result.columns !== previous.documents.result?.columns) {
      const known = state.documentsView.fieldsSeen[result.collection] ?? [];
      const added = result.columns.filter((c) => !known.includes(c));
      if (added.length > 0) {
        const fieldsSeen = { ...state.documentsView.fieldsSeen, [result.collection]: [...known, ...added] };
        store.setState((s) => ({ documentsView: { ...s.documentsView, fieldsSeen } }));
      }
    }
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
