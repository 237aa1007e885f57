/** The Logs panel's controls: pause, clear, filters, the peer's minimum level, export. */
import { memo, useEffect, useRef, useState } from 'react';
import { LOG_LEVELS, type LogLevel } from '../../../../shared/log.ts';
import { useInspector } from '../../store/index.ts';
import { Button } from '../../ui/Button.tsx';
import { formatCount } from '../../ui/format.ts';
import { ComponentMenu } from './ComponentMenu.tsx';
import { downloadText, exportFileName, exportText } from './log-export.ts';

const SHOWN_LEVELS: Record<LogLevel, string> = {
  ERROR: 'ERROR only',
  WARN: 'WARN and above',
  INFO: 'INFO and above',
  DEBUG: 'DEBUG and above',
  VERBOSE: 'All levels',
};

/** How long typing rests before the (O(entries held)) filter runs. */
const TEXT_FILTER_DELAY_MS = 150;

/**
 * Memoized, and not told of each batch: during a flood only the parts that count entries (the
 * export button, the component menu) render again, not the filter field and the selects.
 */
export const LogsToolbar = memo(function LogsToolbar() {
  const filter = useInspector((s) => s.logsView.filter);
  const paused = useInspector((s) => s.logsView.paused);
  const minimumLogLevel = useInspector((s) => s.logs.minimumLogLevel);
  const levelChange = useInspector((s) => s.logs.levelChange);
  const { setLogFilter, pauseLogs, resumeLogs, clearLogs, setPeerLogLevel } = useInspector.getState();

  const [text, setText] = useState(filter.text);
  const sent = useRef(filter.text);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (text === sent.current) return;
    const timer = setTimeout(() => {
      sent.current = text;
      setLogFilter({ text });
    }, TEXT_FILTER_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, setLogFilter]);
  // The filters were reset elsewhere ("Clear the filters"): show it.
  useEffect(() => {
    if (filter.text === sent.current) return;
    sent.current = filter.text;
    setText(filter.text);
  }, [filter.text]);

  // "/" puts the cursor in the filter, as in most log viewers.
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const target = event.target as HTMLElement | null;
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      if (target !== null && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // Read at every change of the store, but a render only when it changes: the filter in force
  // changes once a filter change has gone through every entry held.
  const textError = useInspector((s) => s.logs.buffer.filter.textError);

  return (
    <div className="logs-toolbar" role="toolbar" aria-label="Log controls">
      <div className="logs-toolbar-group">
        {paused ? (
          <Button variant="primary" icon="play" onClick={resumeLogs}>
            Resume
          </Button>
        ) : (
          <Button icon="pause" onClick={pauseLogs} title="Stop showing new entries; they are kept and counted">
            Pause
          </Button>
        )}
        <Button variant="ghost" icon="trash" onClick={clearLogs} title="Forget the entries held here (the peer keeps its own)">
          Clear
        </Button>
      </div>

      <div className="logs-toolbar-group logs-filter-group">
        <input
          ref={input}
          type="search"
          className="input mono logs-filter"
          aria-label="Filter log entries"
          aria-invalid={textError !== undefined}
          placeholder="Filter text or /regex/  ( / )"
          value={text}
          spellCheck={false}
          title={
            textError === undefined
              ? 'Matches the message, the event name and the fields'
              : `Not a valid regular expression (${textError}); matched as plain text`
          }
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && text !== '') {
              e.stopPropagation();
              setText('');
            }
          }}
        />
        <label className="logs-field">
          <span>Show</span>
          <select className="select" value={filter.level} onChange={(e) => setLogFilter({ level: e.target.value as LogLevel })}>
            {LOG_LEVELS.map((level) => (
              <option key={level} value={level}>
                {SHOWN_LEVELS[level]}
              </option>
            ))}
          </select>
        </label>
        <ComponentMenu />
      </div>

      <div className="logs-toolbar-group logs-toolbar-end">
        <label className="logs-field" title="The peer records entries at this level and above (SyncLogger.minimumLogLevel); DEBUG and VERBOSE are loud">
          <span>Peer level</span>
          <select
            className="select"
            value={minimumLogLevel ?? ''}
            disabled={minimumLogLevel === undefined || levelChange.saving}
            aria-invalid={levelChange.error !== undefined}
            onChange={(e) => void setPeerLogLevel(e.target.value as LogLevel)}
          >
            {minimumLogLevel === undefined && <option value="">…</option>}
            {LOG_LEVELS.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </select>
        </label>
        {levelChange.error !== undefined && (
          <span role="alert" className="logs-inline-error" title={levelChange.error.code}>
            {levelChange.error.message}
          </span>
        )}
        <ExportButton />
      </div>
    </div>
  );
});

/** Export, with how many entries it would save: it renders with each batch. */
function ExportButton() {
  const buffer = useInspector((s) => s.logs.buffer);
  useInspector((s) => s.logs.version);
  const shown = buffer.size;
  return (
    <Button
      icon="download"
      disabled={shown === 0}
      title="Save the entries shown (with the filters) as text lines: [LEVEL] timestamp: message"
      onClick={() => downloadText(exportFileName(new Date()), exportText(buffer.entries()))}
    >
      Export {formatCount(shown)}
    </Button>
  );
}
