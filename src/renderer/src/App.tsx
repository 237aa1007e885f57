/** The inspector's shell: navigation between panels, each inside its own error boundary. */
import iconUrl from '../../../resources/icon.svg';
import { PanelErrorBoundary } from './shell/PanelErrorBoundary.tsx';
import { PANELS } from './shell/panels.tsx';
import { useInspector } from './store/index.ts';

export function App() {
  const panel = useInspector((s) => s.shellView.panel);
  const showPanel = useInspector((s) => s.showPanel);
  const link = useInspector((s) => s.link);
  const current = PANELS.find((p) => p.id === panel) ?? PANELS[0];
  return (
    <div className="app">
      <header className="app-header">
        <img className="app-icon" src={iconUrl} alt="" width={28} height={28} />
        <h1>SyncMesh — mesh inspector</h1>
        {link !== 'open' && (
          <span role="status" className="link-state">
            {link === 'connecting' ? 'Connecting to the peer…' : 'Disconnected from the peer; reconnecting…'}
          </span>
        )}
      </header>
      <nav className="app-nav" role="tablist" aria-label="Panels">
        {PANELS.map((p) => (
          <button key={p.id} type="button" role="tab" aria-selected={p.id === current.id} onClick={() => showPanel(p.id)}>
            {p.title}
          </button>
        ))}
      </nav>
      <main className="app-main" role="tabpanel" aria-label={current.title}>
        <PanelErrorBoundary key={current.id} title={current.title}>
          <current.Component />
        </PanelErrorBoundary>
      </main>
    </div>
  );
}
