/**
 * The DQL console: a CodeMirror editor with DQL highlighting and completion (keywords, the
 * peer's collections), named arguments as JSON beside it, the history (Mod-↑/↓ or the list), and
 * Run (Mod-Enter). A statement's error marks its line and column in the editor.
 */
import { statementCollection, statementKind } from '../../../../shared/inspector/statement-scan.ts';
import { useInspector } from '../../store/index.ts';
import { Button, IconButton } from '../../ui/Button.tsx';
import { CodeEditor } from '../../ui/code-editor/CodeEditor.tsx';
import { formatAgo } from '../../ui/format.ts';
import { Icon } from '../../ui/Icon.tsx';
import { MOD } from '../../ui/platform.ts';
import { Popover } from '../../ui/Popover.tsx';
import { DqlText } from '../../ui/StatementView.tsx';
import { errorPosition } from '../../ui/states.tsx';
import { parseArgs } from './slice.ts';

export function Console() {
  const editor = useInspector((s) => s.documentsView.editor);
  const setEditor = useInspector((s) => s.setEditor);
  const runConsole = useInspector((s) => s.runConsole);
  const historyStep = useInspector((s) => s.historyStep);
  const history = useInspector((s) => s.documentsView.history);
  const run = useInspector((s) => s.documents.run);
  const collections = useInspector((s) => s.overview.snapshot.value?.collections);
  const names = collections?.map((c) => c.name) ?? [];
  const fieldsSeen = useInspector((s) => s.documentsView.fieldsSeen);
  const current = statementCollection(editor.statement);
  const running = run?.source === 'console' && run.outcome.status === 'loading';
  // The error's position, while the statement is still the one that failed.
  const failed = run?.source === 'console' && run.outcome.error !== undefined && run.statement === editor.statement ? run.outcome.error : undefined;
  const position = failed === undefined ? undefined : errorPosition(failed);
  const argsProblem = editor.args.trim() === '' ? undefined : parseArgs(editor.args);
  const kind = statementKind(editor.statement);
  return (
    <section className="console" aria-label="DQL console">
      <div className="console-toolbar" role="toolbar" aria-label="Console">
        <span className="console-title">
          <Icon name="terminal" /> DQL console
        </span>
        <Button variant="primary" icon="play" shortcut={`${MOD}↵`} busy={running} disabled={editor.statement.trim() === ''} onClick={() => void runConsole()}>
          Run
        </Button>
        <span className="toolbar-group">
          <IconButton
            icon="chevronUp"
            label={`Previous statement (${MOD}↑)`}
            disabled={history.entries.length === 0 || history.cursor === 0}
            onClick={() => historyStep(-1)}
          />
          <IconButton icon="chevronDown" label={`Next statement (${MOD}↓)`} disabled={history.cursor === undefined} onClick={() => historyStep(1)} />
          <HistoryMenu />
        </span>
        {kind !== undefined && kind !== 'select' && <span className="console-kind">{kind.toUpperCase()} changes data</span>}
        <span className="toolbar-spacer" />
        <span className="console-hint">
          {history.cursor !== undefined ? `History ${history.cursor + 1} of ${history.entries.length}` : `Ctrl+Space completes · ${MOD}↵ runs`}
        </span>
      </div>
      <div className="console-editors">
        <div className="console-statement">
          <CodeEditor
            language="dql"
            ariaLabel="DQL statement"
            value={editor.statement}
            onChange={(statement) => setEditor({ statement })}
            onRun={() => void runConsole()}
            onHistory={(direction) => historyStep(direction)}
            completions={names}
            completionFields={fieldsSeen}
            {...(current === undefined ? {} : { completionCollection: current })}
            lineNumbers
            placeholder="SELECT * FROM orders WHERE status = :status ORDER BY createdAt DESC LIMIT 100"
            {...(position === undefined ? {} : { errorAt: position })}
          />
        </div>
        <div className="console-args">
          <div className="console-args-label">
            <span id="console-args-label">Arguments</span>
            <span className="faint">JSON object · :name</span>
          </div>
          <div className="console-args-editor">
            <CodeEditor
              language="json"
              ariaLabel="Arguments (JSON)"
              value={editor.args}
              onChange={(args) => setEditor({ args })}
              onRun={() => void runConsole()}
              placeholder={'{ "status": "open" }'}
            />
          </div>
          {argsProblem !== undefined && !argsProblem.ok && (
            <p className="console-args-error" role="status">
              {argsProblem.error.message}
            </p>
          )}
        </div>
      </div>
    </section>
  );
}

function HistoryMenu() {
  const entries = useInspector((s) => s.documentsView.history.entries);
  const pick = useInspector((s) => s.historyPick);
  const clear = useInspector((s) => s.clearHistory);
  const now = Date.now();
  return (
    <Popover
      label="Statement history"
      align="start"
      className="history-popover"
      button={{ variant: 'ghost', icon: 'history', children: `History (${entries.length})` }}
    >
      {(close) =>
        entries.length === 0 ? (
          <p className="history-empty">Statements you run appear here, newest first, and are kept in this browser.</p>
        ) : (
          <>
            <ul className="history-list">
              {entries
                .map((entry, index) => ({ entry, index }))
                .reverse()
                .map(({ entry, index }) => (
                  <li key={`${index}-${entry.at}`}>
                    <button
                      type="button"
                      className="history-item"
                      onClick={() => {
                        pick(index);
                        close();
                      }}
                    >
                      <span className={`history-dot ${entry.ok ? 'ok' : 'failed'}`} aria-label={entry.ok ? 'ran' : 'failed'} />
                      <DqlText text={entry.statement.replace(/\s+/g, ' ')} className="history-statement" />
                      <span className="history-when">{formatAgo(entry.at, now)}</span>
                    </button>
                  </li>
                ))}
            </ul>
            <div className="history-footer">
              <Button
                variant="ghost"
                icon="trash"
                onClick={() => {
                  clear();
                  close();
                }}
              >
                Clear history
              </Button>
            </div>
          </>
        )
      }
    </Popover>
  );
}
