/** The inspector's shell: top bar with the panel tabs, the link banner, one panel (in its error boundary), the status bar. */
import { useEffect } from 'react';
import { LinkBanner } from './shell/LinkBanner.tsx';
import { GoToDocumentDialog } from './shell/GoToDocumentDialog.tsx';
import { isGoToShortcut, panelForShortcut } from './shell/navigation.ts';
import { PanelErrorBoundary } from './shell/PanelErrorBoundary.tsx';
import { PANELS } from './shell/panels.tsx';
import { ShortcutsDialog } from './shell/ShortcutsDialog.tsx';
import { StatusBar } from './shell/StatusBar.tsx';
import { TopBar } from './shell/TopBar.tsx';
import { useInspector } from './store/index.ts';
import { useMeshPeerNames } from './features/mesh/use-mesh-peer-names.ts';
import { PeerNamesContext } from './ui/peer-names-context.ts';

/** Whether a key typed here belongs to a text field (or an editor) rather than to the shell. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest('input, textarea, select, .code-editor') !== null;
}

export function App() {
  const panel = useInspector((s) => s.shellView.panel);
  const link = useInspector((s) => s.link);
  const current = PANELS.find((p) => p.id === panel) ?? PANELS[0];
  const names = useMeshPeerNames();
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const target = panelForShortcut(event);
      if (target !== undefined) {
        event.preventDefault();
        useInspector.getState().showPanel(target);
      } else if (isGoToShortcut(event)) {
        event.preventDefault();
        useInspector.getState().setGoToOpen(true);
      } else if (event.key === '?' && !event.ctrlKey && !event.metaKey && !event.altKey && !isTyping(event.composedPath()[0] ?? null)) {
        event.preventDefault();
        useInspector.getState().setShortcutsOpen(true);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
  return (
    <PeerNamesContext.Provider value={names}>
      <div className="app">
        <TopBar />
        <LinkBanner />
        <main id="panel-main" className="app-main" role="tabpanel" aria-labelledby={`panel-tab-${current.id}`} data-link={link}>
          <PanelErrorBoundary key={current.id} title={current.title}>
            <current.Component />
          </PanelErrorBoundary>
        </main>
        <StatusBar />
        <ShortcutsDialog />
        <GoToDocumentDialog />
      </div>
    </PeerNamesContext.Provider>
  );
}
