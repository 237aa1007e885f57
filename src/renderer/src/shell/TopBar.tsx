/** The top bar: the product, the panel tabs (`role="tab"`, arrow keys move between them), theme and shortcut buttons. */
import { useState, type KeyboardEvent } from 'react';
import iconUrl from '../../../../resources/icon.svg';
import { useInspector } from '../store/index.ts';
import { IconButton } from '../ui/Button.tsx';
import { Icon } from '../ui/Icon.tsx';
import { ConnectPeerDialog } from './ConnectPeerDialog.tsx';
import { PANELS } from './panels.tsx';
import { nextThemePreference, resolveTheme } from './theme.ts';

const THEME_NAMES = { system: 'System', light: 'Light', dark: 'Dark' } as const;

export function TopBar() {
  const panel = useInspector((s) => s.shellView.panel);
  const showPanel = useInspector((s) => s.showPanel);
  const theme = useInspector((s) => s.shellView.theme);
  const setTheme = useInspector((s) => s.setTheme);
  const setShortcutsOpen = useInspector((s) => s.setShortcutsOpen);
  const setGoToOpen = useInspector((s) => s.setGoToOpen);
  // Only the desktop app opens other peers' inspectors in windows of their own.
  const remotePeers = typeof window !== 'undefined' ? window.syncmesh?.peers : undefined;
  const [connectOpen, setConnectOpen] = useState(false);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = PANELS.findIndex((p) => p.id === panel);
    let next: number;
    if (event.key === 'ArrowRight') next = (index + 1) % PANELS.length;
    else if (event.key === 'ArrowLeft') next = (index - 1 + PANELS.length) % PANELS.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = PANELS.length - 1;
    else return;
    event.preventDefault();
    const target = PANELS[next];
    if (target === undefined) return;
    showPanel(target.id);
    document.getElementById(`panel-tab-${target.id}`)?.focus();
  };
  const systemDark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
  const shown = resolveTheme(theme, systemDark);
  return (
    <header className="topbar">
      <div className="topbar-brand">
        <img src={iconUrl} alt="" width={22} height={22} />
        <h1>
          SyncMesh <span>Inspector</span>
        </h1>
      </div>
      <div className="panel-tabs" role="tablist" aria-label="Panels" onKeyDown={onKeyDown}>
        {PANELS.map((p, i) => (
          <button
            key={p.id}
            id={`panel-tab-${p.id}`}
            type="button"
            role="tab"
            className="panel-tab"
            aria-selected={p.id === panel}
            aria-controls="panel-main"
            tabIndex={p.id === panel ? 0 : -1}
            title={`${p.title} (Alt+${i + 1})`}
            onClick={() => showPanel(p.id)}
          >
            <Icon name={p.icon} />
            {p.title}
          </button>
        ))}
      </div>
      <div className="topbar-end">
        <IconButton icon="search" label="Go to document (Alt+G)" onClick={() => setGoToOpen(true)} />
        {remotePeers !== undefined && <IconButton icon="link" label="Connect to a running peer" onClick={() => setConnectOpen(true)} />}
        {remotePeers !== undefined && connectOpen && <ConnectPeerDialog peers={remotePeers} onClose={() => setConnectOpen(false)} />}
        <IconButton icon="keyboard" label="Keyboard shortcuts" onClick={() => setShortcutsOpen(true)} />
        <IconButton
          icon={theme === 'system' ? 'monitor' : shown === 'dark' ? 'moon' : 'sun'}
          label={`Theme: ${THEME_NAMES[theme]}${theme === 'system' ? ` (${shown})` : ''}. Switch to ${THEME_NAMES[nextThemePreference(theme)]}`}
          onClick={() => setTheme(nextThemePreference(theme))}
        />
      </div>
    </header>
  );
}
