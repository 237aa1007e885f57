/** The inspector's icons: 24-unit line drawings in the current text colour, decorative by default. */
import type { ReactNode } from 'react';

const PATHS = {
  play: <path d="M7 4.5v15l12.5-7.5z" />,
  refresh: (
    <>
      <path d="M20.5 12a8.5 8.5 0 1 1-2.6-6.1L20.5 8.5" />
      <path d="M20.5 3.5v5h-5" />
    </>
  ),
  plus: <path d="M12 5v14M5 12h14" />,
  trash: <path d="M4 6.5h16M9.5 6.5V4h5v2.5M18 6.5l-.9 13a1.5 1.5 0 0 1-1.5 1.5H8.4a1.5 1.5 0 0 1-1.5-1.5L6 6.5M10 11v6M14 11v6" />,
  pencil: <path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L8 18l-4 1 1-4z" />,
  evict: (
    <>
      <rect x="3" y="3.5" width="18" height="4.5" rx="1" />
      <path d="M5 8v10.5A1.5 1.5 0 0 0 6.5 20h11a1.5 1.5 0 0 0 1.5-1.5V8M10 12.5l4 4M14 12.5l-4 4" />
    </>
  ),
  copy: (
    <>
      <rect x="9" y="9" width="11.5" height="11.5" rx="1.8" />
      <path d="M15 9V5.3A1.8 1.8 0 0 0 13.2 3.5H5.3a1.8 1.8 0 0 0-1.8 1.8v7.9A1.8 1.8 0 0 0 5.3 15H9" />
    </>
  ),
  check: <path d="M19.5 6.5 9.5 17l-5-5" />,
  x: <path d="M17.5 6.5l-11 11M6.5 6.5l11 11" />,
  chevronDown: <path d="m6.5 9.5 5.5 5.5 5.5-5.5" />,
  chevronRight: <path d="m9.5 6.5 5.5 5.5-5.5 5.5" />,
  chevronUp: <path d="m6.5 14.5 5.5-5.5 5.5 5.5" />,
  history: (
    <>
      <path d="M3.5 12a8.5 8.5 0 1 0 2.6-6.1L3.5 8.5" />
      <path d="M3.5 3.5v5h5M12 7.5V12l3.5 2" />
    </>
  ),
  sun: (
    <>
      <circle cx="12" cy="12" r="4" />
      <path d="M12 2.5v2M12 19.5v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2.5 12h2M19.5 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
    </>
  ),
  moon: <path d="M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5z" />,
  monitor: (
    <>
      <rect x="2.5" y="3.5" width="19" height="13" rx="1.8" />
      <path d="M8 20.5h8M12 16.5v4" />
    </>
  ),
  search: (
    <>
      <circle cx="11" cy="11" r="6.5" />
      <path d="m20 20-4.3-4.3" />
    </>
  ),
  database: (
    <>
      <ellipse cx="12" cy="5.5" rx="8" ry="2.8" />
      <path d="M4 5.5v13c0 1.5 3.6 2.8 8 2.8s8-1.3 8-2.8v-13M4 12c0 1.5 3.6 2.8 8 2.8s8-1.3 8-2.8" />
    </>
  ),
  table: (
    <>
      <rect x="3.5" y="4" width="17" height="16" rx="1.5" />
      <path d="M3.5 9.5h17M3.5 15h17M9.5 9.5V20" />
    </>
  ),
  braces: (
    <path d="M8.5 3.5h-1a2 2 0 0 0-2 2V10a2 2 0 0 1-2 2 2 2 0 0 1 2 2v4.5a2 2 0 0 0 2 2h1M15.5 3.5h1a2 2 0 0 1 2 2V10a2 2 0 0 0 2 2 2 2 0 0 0-2 2v4.5a2 2 0 0 1-2 2h-1" />
  ),
  alert: (
    <>
      <path d="M10.3 4.1 2.6 17.5A2 2 0 0 0 4.3 20.5h15.4a2 2 0 0 0 1.7-3L13.7 4.1a2 2 0 0 0-3.4 0z" />
      <path d="M12 9.5v4M12 17h.01" />
    </>
  ),
  info: (
    <>
      <circle cx="12" cy="12" r="8.5" />
      <path d="M12 16v-4.5M12 8h.01" />
    </>
  ),
  key: (
    <>
      <circle cx="8" cy="15" r="4.5" />
      <path d="m11.2 11.8 8.3-8.3M16 7l2.5 2.5M18.5 4.5 21 7" />
    </>
  ),
  shield: <path d="M12 21s7.5-3.6 7.5-9.4V5.8L12 3 4.5 5.8v5.8C4.5 17.4 12 21 12 21z" />,
  subscriptions: (
    <>
      <path d="M5 11.5a7.5 7.5 0 0 1 7.5 7.5M5 5a14 14 0 0 1 14 14" />
      <circle cx="5.8" cy="18.2" r="1.3" />
    </>
  ),
  mesh: (
    <>
      <circle cx="12" cy="5" r="2.2" />
      <circle cx="5" cy="18.5" r="2.2" />
      <circle cx="19" cy="18.5" r="2.2" />
      <path d="M10.9 6.9 6.1 16.6M13.1 6.9l4.8 9.7M7.2 18.5h9.6" />
    </>
  ),
  activity: <path d="M21 12h-4l-3 8-4-16-3 8H3" />,
  logs: <path d="M9 6h11M9 12h11M9 18h11M4.5 6h.01M4.5 12h.01M4.5 18h.01" />,
  overview: (
    <>
      <rect x="3.5" y="3.5" width="7" height="8" rx="1.2" />
      <rect x="13.5" y="3.5" width="7" height="5" rx="1.2" />
      <rect x="13.5" y="11.5" width="7" height="9" rx="1.2" />
      <rect x="3.5" y="14.5" width="7" height="6" rx="1.2" />
    </>
  ),
  documents: (
    <>
      <path d="M14 3H6.8A1.8 1.8 0 0 0 5 4.8v14.4A1.8 1.8 0 0 0 6.8 21h10.4a1.8 1.8 0 0 0 1.8-1.8V8z" />
      <path d="M14 3v5h5M9 13h6M9 17h6" />
    </>
  ),
  power: <path d="M12 3v9M17.7 6.6a8 8 0 1 1-11.4 0" />,
  stop: <rect x="6.5" y="6.5" width="11" height="11" rx="1.5" />,
  link: <path d="M10 14a4.5 4.5 0 0 0 6.4 0l3-3a4.5 4.5 0 0 0-6.4-6.4l-1.2 1.2M14 10a4.5 4.5 0 0 0-6.4 0l-3 3a4.5 4.5 0 0 0 6.4 6.4l1.2-1.2" />,
  unlink: <path d="M10 14a4.5 4.5 0 0 0 6.4 0l3-3a4.5 4.5 0 0 0-6.4-6.4l-1.2 1.2M14 10a4.5 4.5 0 0 0-6.4 0l-3 3a4.5 4.5 0 0 0 6.4 6.4l1.2-1.2M3.5 3.5l17 17" />,
  keyboard: (
    <>
      <rect x="2.5" y="6" width="19" height="12" rx="1.8" />
      <path d="M6.5 10h.01M10 10h.01M14 10h.01M17.5 10h.01M8 14h8" />
    </>
  ),
  clock: (
    <>
      <circle cx="12" cy="12" r="8.5" />
      <path d="M12 7.5V12l3 2" />
    </>
  ),
  terminal: <path d="m5 16.5 5-4.5-5-4.5M12 17.5h7" />,
  arrowRight: <path d="M5 12h14M13 6l6 6-6 6" />,
  user: (
    <>
      <circle cx="12" cy="8.5" r="4" />
      <path d="M4.5 20.5a7.5 7.5 0 0 1 15 0" />
    </>
  ),
  drive: (
    <>
      <path d="M21 13H3M5.9 5.7 3 13v5a1.5 1.5 0 0 0 1.5 1.5h15A1.5 1.5 0 0 0 21 18v-5l-2.9-7.3A1.5 1.5 0 0 0 16.7 4.7H7.3a1.5 1.5 0 0 0-1.4 1z" />
      <path d="M7 16.5h.01M10.5 16.5h.01" />
    </>
  ),
  cloud: <path d="M17.5 19H8a6 6 0 1 1 5.7-7.9h1.3a4 4 0 0 1 2.5 7.9z" />,
  sidebar: (
    <>
      <rect x="3.5" y="4" width="17" height="16" rx="1.5" />
      <path d="M15 4v16" />
    </>
  ),
  filter: <path d="M21 4H3l7 8.5V19l4 2v-8.5z" />,
  dot: <circle cx="12" cy="12" r="4" fill="currentColor" stroke="none" />,
  wrap: <path d="M4 6h16M4 12h13a3 3 0 0 1 0 6h-4M4 18h5M15 16l-2 2 2 2" />,
  pause: <path d="M8.5 5v14M15.5 5v14" />,
  download: <path d="M12 4v11m0 0-4.5-4.5M12 15l4.5-4.5M4.5 19.5h15" />,
  follow: <path d="M12 4v14m0 0-5-5m5 5 5-5M5 20.5h14" />,
  hold: (
    <>
      <rect x="5" y="10.5" width="14" height="10" rx="1.8" />
      <path d="M8 10.5V7.5a4 4 0 0 1 8 0v3" />
    </>
  ),
} satisfies Record<string, ReactNode>;

export type IconName = keyof typeof PATHS;

export interface IconProps {
  readonly name: IconName;
  /** Pixel size (square); 14 by default. */
  readonly size?: number;
  readonly className?: string;
  /** Set only when the icon carries meaning that no text beside it gives. */
  readonly label?: string;
}

export function Icon({ name, size = 14, className, label }: IconProps) {
  return (
    <svg
      className={className === undefined ? 'icon' : `icon ${className}`}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      role={label === undefined ? undefined : 'img'}
      aria-label={label}
      aria-hidden={label === undefined ? true : undefined}
      focusable="false"
    >
      {PATHS[name]}
    </svg>
  );
}
