/** A log level as a coloured badge (also used by the Transactions panel for blocked writers). */
import type { LogLevel } from '../../../../shared/log.ts';
import './levels.css';

export function LevelBadge({ level, title }: { readonly level: LogLevel; readonly title?: string }) {
  return (
    <span className={`level-badge level-${level.toLowerCase()}`} title={title}>
      {level}
    </span>
  );
}
