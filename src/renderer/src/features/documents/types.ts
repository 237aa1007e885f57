/** The Documents panel's state, as its slice holds it (see slice.ts). */
import type { ErrorValue } from '../../../../shared/error-codes.ts';
import type { DocumentMetadata, QueryOutcome, ResultWindow } from '../../../../shared/inspector/documents.ts';
import type { Statement } from '../../../../shared/inspector/statements.ts';
import type { DocumentTrace } from '../../../../shared/inspector/trace.ts';
import type { JsonObject, JsonValue } from '../../../../shared/json.ts';
import type { Remote } from '../../store/remote.ts';
import type { ConsoleText, HistoryState } from './history.ts';
import type { PageCache } from './paging.ts';

export type ResultMode = 'table' | 'json';
export type DetailTab = 'document' | 'metadata' | 'trace';

/** The current SELECT result. */
export interface ResultState {
  readonly statement: string;
  readonly args: JsonObject;
  /** The collection the statement reads (for the selected row's metadata and actions). */
  readonly collection: string | undefined;
  readonly cache: PageCache;
  readonly columns: readonly string[];
  readonly elapsedMs: number;
  /** The peer kept only `cache.total` rows of a larger result (see `QueryOutcome.truncated`). */
  readonly truncated: boolean;
  /** Which rows of the statement's result are kept, and the limit that cut them (see `QueryOutcome.window`). */
  readonly window: ResultWindow | undefined;
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
    /** The selected document's sync trace: where it stands with each remote (`documents:trace`). */
    readonly trace: Remote<DocumentTrace>;
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
    /** The fields seen in each collection's results in this session, for the console's completion. */
    readonly fieldsSeen: Readonly<Record<string, readonly string[]>>;
  };
  /** Shows a collection: `SELECT * FROM <name>` in the console, run, and the Documents panel. */
  openCollection(name: string): void;
  /**
   * "Go to document": finds the document of `collection` whose `_id` is what was typed (the
   * statement shown in the console, run), selects it and shows its sync trace. False when no
   * document has that id (the empty result says so).
   */
  goToDocument(collection: string, idText: string): Promise<boolean>;
  setEditor(text: Partial<ConsoleText>): void;
  runConsole(): Promise<void>;
  /** Shows an older (-1) or newer (+1) statement of the history; false when there is none. */
  historyStep(direction: -1 | 1): boolean;
  historyPick(index: number): void;
  clearHistory(): void;
  /** Makes sure rows `start`…`end` of the result are here or on their way. */
  ensureRows(start: number, end: number): void;
  refreshResult(): Promise<void>;
  /** A truncated result: shows the window of rows after or before the one kept (`documents:window`). */
  moveResultWindow(direction: 'next' | 'previous'): Promise<void>;
  selectRow(index: number | undefined): void;
  /** Reads the selected document's metadata and its sync trace. */
  loadDetail(): Promise<void>;
  openDialog(dialog: DocumentDialog | undefined): void;
  /** Runs a UI action's statement; closes its dialog when it succeeds. */
  runAction(label: string, statement: Statement): Promise<boolean>;
  /** Puts a statement in the console instead of running it. */
  useInConsole(statement: Statement): void;
  setDocumentsView(
    view: Partial<Pick<DocumentsSlice['documentsView'], 'resultMode' | 'detailTab' | 'detailOpen' | 'live' | 'showInternal' | 'collectionFilter'>>,
  ): void;
  setDocumentsLayout(layout: Partial<DocumentsLayout>): void;
}
