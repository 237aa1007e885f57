/**
 * What the list holds and what was lost, always in view: entries the peer dropped before sending
 * them, and entries the inspector's ring dropped to stay within its capacity. Never hidden, even
 * at zero, so that "nothing dropped" is something the user can read.
 */
import { LOG_LEVELS } from '../../../../shared/log.ts';
import { useInspector } from '../../store/index.ts';
import { LevelBadge } from './LevelBadge.tsx';
import { formatCount } from '../../ui/format.ts';

export function LogsStatusBar() {
  const buffer = useInspector((s) => s.logs.buffer);
  useInspector((s) => s.logs.version);
  const gaps = useInspector((s) => s.logs.linkGaps);
  const counts = buffer.levelCounts();
  return (
    <div className="logs-status" role="status" aria-live="off" aria-label="Log counts">
      <span>
        Showing <strong>{formatCount(buffer.size)}</strong> of {formatCount(buffer.held)} held
      </span>
      <span className="logs-status-sep" aria-hidden="true" />
      <span>{formatCount(buffer.received)} received</span>
      <span className="logs-status-sep" aria-hidden="true" />
      <span
        className={buffer.peerDropped > 0 ? 'logs-dropped is-lossy' : 'logs-dropped'}
        title="Entries the peer could not send to this inspector in time (it fell behind); they are not in the list"
      >
        Dropped by the peer: <strong data-testid="logs-peer-dropped">{formatCount(buffer.peerDropped)}</strong>
      </span>
      <span
        className={buffer.evicted > 0 ? 'logs-dropped is-lossy' : 'logs-dropped'}
        title={`The inspector keeps the newest ${formatCount(buffer.capacity)} entries; older ones are dropped`}
      >
        Dropped by the inspector: <strong data-testid="logs-inspector-dropped">{formatCount(buffer.evicted)}</strong>
        <span className="logs-status-note"> (keeps {formatCount(buffer.capacity)})</span>
      </span>
      {buffer.cleared > 0 && <span className="logs-status-note">{formatCount(buffer.cleared)} cleared</span>}
      {gaps.count > 0 && (
        <span
          className="logs-dropped is-lossy"
          title="Entries logged while the inspector was disconnected are fetched again from the peer's recent entries; any older than those are missing"
        >
          Link lost <strong>{formatCount(gaps.count)}×</strong>, {formatCount(gaps.recovered)} recovered
        </span>
      )}
      <span className="logs-status-levels">
        {LOG_LEVELS.filter((level) => counts[level] > 0).map((level) => (
          <span key={level} className="logs-status-level" title={`${formatCount(counts[level])} ${level} entries held`}>
            <LevelBadge level={level} /> {formatCount(counts[level])}
          </span>
        ))}
      </span>
    </div>
  );
}
