/** What a panel shows when it has nothing yet: loading, empty, an error (with its code). */
import type { ReactNode } from 'react';
import type { ErrorValue } from '../../../shared/error-codes.ts';
import { Button } from './Button.tsx';
import { Icon, type IconName } from './Icon.tsx';

/** A spinner and a line of text; `role="status"` so that it is announced. */
export function Loading({ children = 'Loading…', inline = false }: { readonly children?: ReactNode; readonly inline?: boolean }) {
  return (
    <div className={inline ? 'state-loading state-inline' : 'state-loading'} role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{children}</span>
    </div>
  );
}

export interface EmptyStateProps {
  readonly icon?: IconName;
  readonly title: ReactNode;
  readonly children?: ReactNode;
  readonly action?: ReactNode;
  readonly compact?: boolean;
}

/** Nothing to show, said plainly, with what to do about it. */
export function EmptyState({ icon, title, children, action, compact = false }: EmptyStateProps) {
  return (
    <div className={compact ? 'state-empty state-compact' : 'state-empty'}>
      {icon !== undefined && <Icon name={icon} size={compact ? 18 : 28} className="state-icon" />}
      <p className="state-title">{title}</p>
      {children !== undefined && <div className="state-hint">{children}</div>}
      {action !== undefined && <div className="state-action">{action}</div>}
    </div>
  );
}

/** Line and column from an error's details, when the peer gave them (a `ParseError`). */
export function errorPosition(error: ErrorValue): { readonly line: number; readonly column: number } | undefined {
  const details = error.details;
  if (typeof details !== 'object' || details === null) return undefined;
  const { line, column } = details as { line?: unknown; column?: unknown };
  return typeof line === 'number' && typeof column === 'number' ? { line, column } : undefined;
}

export interface ErrorNoticeProps {
  readonly error: ErrorValue;
  /** What failed: `Could not load the overview`. */
  readonly title?: ReactNode;
  readonly onRetry?: () => void;
  readonly compact?: boolean;
}

/** An error value: its stable code, its message, its position; `role="alert"`. */
export function ErrorNotice({ error, title, onRetry, compact = false }: ErrorNoticeProps) {
  const position = errorPosition(error);
  return (
    <div className={compact ? 'error-notice error-compact' : 'error-notice'} role="alert">
      <Icon name="alert" size={compact ? 14 : 16} className="error-icon" />
      <div className="error-body">
        {title !== undefined && <p className="error-title">{title}</p>}
        <p className="error-message">
          <code className="error-code">{error.code}</code> {error.message}
        </p>
        {position !== undefined && !error.message.includes(`line ${position.line} column ${position.column}`) && (
          <p className="error-position">
            at line {position.line}, column {position.column}
          </p>
        )}
      </div>
      {onRetry !== undefined && (
        <Button icon="refresh" onClick={onRetry}>
          Retry
        </Button>
      )}
    </div>
  );
}
