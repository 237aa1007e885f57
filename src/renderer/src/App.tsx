import iconUrl from '../../../resources/icon.svg';

const VERSION_LABELS: ReadonlyArray<readonly [keyof SyncMeshVersions, string]> = [
  ['app', 'SyncMesh'],
  ['electron', 'Electron'],
  ['chrome', 'Chromium'],
  ['node', 'Node.js'],
];

/** The inspector's shell: its header, and what it knows about where it runs. */
export function App() {
  const desktop = window.syncmesh;
  return (
    <div className="app">
      <header className="app-header">
        <img className="app-icon" src={iconUrl} alt="" width={28} height={28} />
        <h1>SyncMesh — mesh inspector</h1>
      </header>
      <main className="app-main">
        {desktop === undefined ? (
          <p className="app-note">Running in a browser.</p>
        ) : (
          <section aria-labelledby="versions-title">
            <h2 id="versions-title">Versions</h2>
            <dl className="versions">
              {VERSION_LABELS.map(([key, label]) => (
                <div key={key} className="versions-row">
                  <dt>{label}</dt>
                  <dd>{desktop.versions[key]}</dd>
                </div>
              ))}
            </dl>
          </section>
        )}
      </main>
    </div>
  );
}
