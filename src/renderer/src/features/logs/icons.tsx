/**
 * Icons the shared set (ui/Icon.tsx) lacks, drawn the same way (24 units, a 1.8 stroke in the text
 * colour, decorative), and a button that shows one the way ui/Button shows its icons.
 */
import type { ButtonHTMLAttributes, ReactNode } from 'react';

const PATHS = {
  pause: <path d="M8.5 5v14M15.5 5v14" />,
  download: <path d="M12 4v11m0 0-4.5-4.5M12 15l4.5-4.5M4.5 19.5h15" />,
  follow: <path d="M12 4v14m0 0-5-5m5 5 5-5M5 20.5h14" />,
  hold: (
    <>
      <rect x="5" y="10.5" width="14" height="10" rx="1.8" />
      <path d="M8 10.5V7.5a4 4 0 0 1 8 0v3" />
    </>
  ),
};

export type PanelIconName = keyof typeof PATHS;

export function PanelIcon({ name, size = 14 }: { readonly name: PanelIconName; readonly size?: number }) {
  return (
    <svg
      className="icon"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {PATHS[name]}
    </svg>
  );
}

export interface PanelIconButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type'> {
  readonly icon: PanelIconName;
  readonly variant?: 'default' | 'primary' | 'ghost' | 'danger';
  readonly children: ReactNode;
}

/** ui/Button's markup with one of these icons. */
export function PanelIconButton({ icon, variant = 'default', className, children, ...rest }: PanelIconButtonProps) {
  return (
    <button {...rest} type="button" className={`btn btn-${variant}${className === undefined ? '' : ` ${className}`}`}>
      <PanelIcon name={icon} />
      <span className="btn-label">{children}</span>
    </button>
  );
}
