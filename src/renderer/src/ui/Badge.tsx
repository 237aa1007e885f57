/** Small status marks: badges, coloured dots, keyboard keys. */
import type { ReactNode } from 'react';

export type Tone = 'neutral' | 'accent' | 'ok' | 'warn' | 'danger' | 'info';

export function Badge({ tone = 'neutral', children, title }: { readonly tone?: Tone; readonly children: ReactNode; readonly title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

/** A coloured dot before a state word; `pulse` for something in progress. */
export function StatusDot({ tone, pulse = false }: { readonly tone: Tone; readonly pulse?: boolean }) {
  return <span className={`status-dot status-dot-${tone}${pulse ? ' status-dot-pulse' : ''}`} aria-hidden="true" />;
}

/** A state word with its dot: `● Connected`. */
export function StatusText({ tone, pulse, children }: { readonly tone: Tone; readonly pulse?: boolean; readonly children: ReactNode }) {
  return (
    <span className={`status-text status-text-${tone}`}>
      <StatusDot tone={tone} pulse={pulse ?? false} />
      {children}
    </span>
  );
}

export function Kbd({ children }: { readonly children: ReactNode }) {
  return <kbd className="kbd">{children}</kbd>;
}
