/**
 * The result of the console: what the last statement did (rows and time, documents changed and
 * the commit, or its error with code and position), and the current SELECT result as a table or
 * as JSON, refreshed live as commits change its collection.
 */
import type { QueryOutcome, ResultWindow } from '../../../../shared/inspector/documents.ts';
import { isInternalCollection } from '../../../../shared/internal-collections.ts';
import { useInspector } from '../../store/index.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Button, IconButton, Switch } from '../../ui/Button.tsx';
import { compactJson, formatCount, formatElapsed, plural } from '../../ui/format.ts';
import { Icon } from '../../ui/Icon.tsx';
import { DqlText } from '../../ui/StatementView.tsx';
import { EmptyState, ErrorNotice } from '../../ui/states.tsx';
import { Tabs } from '../../ui/Tabs.tsx';
import { ResultsGrid } from './ResultsGrid.tsx';
import { windowSummary } from './result-window.ts';
import type { ResultState, RunRecord } from './slice.ts';

export function ResultsPane() {
  const result = useInspector((s) => s.documents.result);
  const run = useInspector((s) => s.documents.run);
  const rowsError = useInspector((s) => s.documents.rowsError);
  const mode = useInspector((s) => s.documentsView.resultMode);
  const live = useInspector((s) => s.documentsView.live);
  const detailOpen = useInspector((s) => s.documentsView.detailOpen);
  const setView = useInspector((s) => s.setDocumentsView);
  const refresh = useInspector((s) => s.refreshResult);
  const openDialog = useInspector((s) => s.openDialog);
  const viewCollection = useInspector((s) => s.documentsView.collection);
  const target = result?.collection ?? viewCollection;
  const internal = target !== undefined && isInternalCollection(target);
  return (
    <section className="results" aria-label="Results">
      <div className="results-toolbar" role="toolbar" aria-label="Results">
        <Tabs
          label="Result view"
          variant="segmented"
          value={mode}
          onChange={(resultMode) => setView({ resultMode })}
          options={[
            { id: 'table', label: 'Table', icon: 'table' },
            { id: 'json', label: 'JSON', icon: 'braces' },
          ]}
        />
        {result !== undefined && (
          <span className="results-summary" aria-live="polite">
            {result.truncated && result.window !== undefined ? (
              <WindowSummaryView result={result} />
            ) : (
              <>
                <strong>{plural(result.cache.total, 'row')}</strong>
                {result.truncated && (
                  <Badge
                    tone="warn"
                    title="The statement returned more rows than the peer keeps for one inspector (about 64 MiB, 250,000 rows). Narrow it with a WHERE, a LIMIT or fewer fields to see the rest."
                  >
                    truncated: first rows only
                  </Badge>
                )}
              </>
            )}
            <span className="faint">·</span>
            <span className="muted">{formatElapsed(result.elapsedMs)}</span>
            <span className="faint">·</span>
            <DqlText text={result.statement.replace(/\s+/g, ' ')} className="results-statement" />
          </span>
        )}
        <span className="toolbar-spacer" />
        {target !== undefined && (
          <Button
            icon="plus"
            className="collapsible-label"
            aria-label="Insert document"
            disabled={internal}
            title={internal ? 'Internal collections are written by the peer itself' : `Insert a document into ${target}`}
            onClick={() => openDialog({ kind: 'insert', collection: target })}
          >
            Insert document
          </Button>
        )}
        {result?.stale === true && (
          <Button icon="refresh" onClick={() => void refresh()}>
            Changed · Refresh
          </Button>
        )}
        {result?.refreshing === true && <span className="spinner" role="status" aria-label="Refreshing" />}
        <Switch checked={live} onChange={(value) => setView({ live: value })} label="Live" ariaLabel="Refresh live as commits change the collection" />
        <IconButton icon="refresh" label="Run the query again" disabled={result === undefined} onClick={() => void refresh()} />
        <IconButton
          icon="sidebar"
          label={detailOpen ? 'Hide the document pane' : 'Show the document pane'}
          pressed={detailOpen}
          onClick={() => setView({ detailOpen: !detailOpen })}
        />
      </div>
      {run !== undefined && <RunStrip run={run} />}
      {rowsError !== undefined && <ErrorNotice compact title="Could not read rows of the result" error={rowsError} onRetry={() => void refresh()} />}
      <div className="results-body">
        {result === undefined ? (
          <EmptyState icon="table" title="No result yet">
            <p>Pick a collection on the left, or write a statement above and run it.</p>
          </EmptyState>
        ) : result.cache.total === 0 ? (
          <EmptyState icon="search" title="No documents match">
            <p>
              <DqlText text={result.statement} />
            </p>
          </EmptyState>
        ) : (
          <ResultsGrid result={result} mode={mode} />
        )}
      </div>
    </section>
  );
}

/**
 * A result larger than the peer keeps: which rows are shown, the limit, and buttons to the
 * window before and after (each runs the statement again on the peer).
 */
function WindowSummaryView({ result }: { readonly result: ResultState }) {
  const move = useInspector((s) => s.moveResultWindow);
  const summary = windowSummary(result.window as ResultWindow, result.cache.total);
  return (
    <>
      <strong>{summary.rows}</strong>
      <Badge
        tone="warn"
        title="The peer keeps at most this much of one result for this inspector; Previous and Next run the statement again for the rows before or after these."
      >
        {summary.limit}
      </Badge>
      <span className="results-window-nav" role="group" aria-label="Rows past the limit">
        <Button variant="ghost" icon="chevronUp" disabled={!summary.hasPrevious || result.refreshing} onClick={() => void move('previous')}>
          Previous rows
        </Button>
        <Button variant="ghost" icon="chevronDown" disabled={!summary.hasNext || result.refreshing} onClick={() => void move('next')}>
          Next rows
        </Button>
      </span>
    </>
  );
}

/** The last statement run: running, failed (code, message, position), or what it changed. */
function RunStrip({ run }: { readonly run: RunRecord }) {
  const { outcome } = run;
  if (outcome.status === 'loading') {
    return (
      <div className="run-strip" role="status">
        <span className="spinner" aria-hidden="true" />
        <span>Running</span>
        <DqlText text={run.statement.replace(/\s+/g, ' ')} className="run-statement" />
      </div>
    );
  }
  if (outcome.error !== undefined) {
    return (
      <div className="run-strip run-error">
        <ErrorNotice compact title={run.label === undefined ? 'The statement failed' : `${run.label} failed`} error={outcome.error} />
      </div>
    );
  }
  const value = outcome.value;
  if (value === undefined || value.commitId === null) return null;
  return <MutationStrip run={run} outcome={value} />;
}

function MutationStrip({ run, outcome }: { readonly run: RunRecord; readonly outcome: QueryOutcome }) {
  const ids = outcome.mutatedDocumentIds;
  return (
    <div className="run-strip run-ok" role="status">
      <Icon name="check" className="run-ok-icon" />
      {run.label !== undefined && <strong>{run.label}</strong>}
      <DqlText text={run.statement.replace(/\s+/g, ' ')} className="run-statement" />
      {Object.keys(run.args).length > 0 && <code className="run-args">{compactJson(run.args, 120)}</code>}
      <span className="toolbar-spacer" />
      <Badge tone={ids.length === 0 ? 'neutral' : 'ok'}>{plural(ids.length, 'document')} changed</Badge>
      {ids.length > 0 && ids.length <= 3 && <code className="run-ids">{ids.map((id) => compactJson(id, 40)).join(', ')}</code>}
      <span className="muted">txn {formatCount(outcome.commitId ?? 0)}</span>
      <span className="muted">{formatElapsed(outcome.elapsedMs)}</span>
    </div>
  );
}
