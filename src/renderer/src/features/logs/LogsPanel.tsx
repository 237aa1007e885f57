/**
 * The Logs panel: the peer's live stream of structured entries, virtualized, with filters,
 * pause, follow, export, the peer's minimum level, and the drop counts always in view.
 */
import { useEffect } from 'react';
import { useInspector } from '../../store/index.ts';
import { Button } from '../../ui/Button.tsx';
import { Icon } from '../../ui/Icon.tsx';
import { formatCount } from '../../ui/format.ts';
import { ErrorNotice } from '../../ui/states.tsx';
import { LogList } from './LogList.tsx';
import { LogsStatusBar } from './LogsStatusBar.tsx';
import { LogsToolbar } from './LogsToolbar.tsx';
import { SHOW_EVERYTHING } from './log-filter.ts';
import './logs.css';

export function LogsPanel() {
  const status = useInspector((s) => s.logs.status);
  const error = useInspector((s) => s.logs.error);
  const buffer = useInspector((s) => s.logs.buffer);
  useInspector((s) => s.logs.version);
  const paused = useInspector((s) => s.logsView.paused);
  const follow = useInspector((s) => s.logsView.follow);
  const { loadLogs, resumeLogs, setLogsFollow, setLogFilter } = useInspector.getState();

  useEffect(() => {
    if (useInspector.getState().logs.status === 'idle') void loadLogs();
  }, [loadLogs]);

  const filtered = !buffer.filter.passesEverything;
  const empty =
    status === 'loading' && buffer.held === 0
      ? { title: 'Loading the peer’s recent entries…' }
      : buffer.held === 0
        ? paused
          ? { title: 'Paused', hint: 'New entries are counted above and shown on resume.' }
          : { title: 'No log entries yet', hint: 'They appear here as the peer logs. Set the peer level to DEBUG to see transactions and replication.' }
        : { title: 'No entries match the filters', hint: `${formatCount(buffer.held)} entries are held; the filters hide them all.` };

  return (
    <section className="logs-panel" aria-label="Logs">
      <LogsToolbar />
      {status === 'error' && error !== undefined && (
        <div className="logs-notice">
          <ErrorNotice compact error={error} title="Could not load the peer’s recent entries; live entries still arrive." onRetry={() => void loadLogs()} />
        </div>
      )}
      {paused && (
        <div className="logs-paused" role="status">
          <Icon name="pause" />
          <span>
            <strong>Paused</strong> · <span data-testid="logs-pending">{formatCount(buffer.pending)}</span> new {buffer.pending === 1 ? 'entry' : 'entries'}{' '}
            while paused{buffer.pending > 0 ? ', shown on resume' : ''}
          </span>
          <Button variant="primary" icon="play" onClick={resumeLogs}>
            Resume
          </Button>
        </div>
      )}
      <div className="logs-body">
        <LogList
          empty={
            <div className="logs-empty">
              <p className="logs-empty-title">{empty.title}</p>
              {'hint' in empty && <p className="logs-empty-hint">{empty.hint}</p>}
              {buffer.held > 0 && filtered && (
                <Button icon="x" onClick={() => setLogFilter(SHOW_EVERYTHING)}>
                  Clear the filters
                </Button>
              )}
            </div>
          }
        />
        {!follow && buffer.size > 0 && (
          <Button
            icon="follow"
            variant="primary"
            className="logs-jump"
            onClick={() => setLogsFollow(true)}
            title="Scroll to the newest entry and keep following (End)"
          >
            Jump to latest
          </Button>
        )}
      </div>
      <LogsStatusBar />
    </section>
  );
}
