/**
 * The Mesh panel: this peer, the Big Peer and every remote peer with their connections, live from
 * `mesh:changed`; a graph and, beside it, the same as lists.
 */
import { useEffect, useRef } from 'react';
import { useInspector } from '../../store/index.ts';
import { Switch } from '../../ui/Button.tsx';
import { SplitPane } from '../../ui/SplitPane.tsx';
import { formatCount, plural } from '../../ui/format.ts';
import { useTicker } from '../../ui/hooks.ts';
import { EmptyState, ErrorNotice, Loading } from '../../ui/states.tsx';
import { MeshGraph } from './MeshGraph.tsx';
import { ConnectionsTable, PeersTable, connectionCounts } from './MeshLists.tsx';
import { layoutMesh } from './mesh-layout.ts';
import { useElementSize } from './use-element-size.ts';
import './mesh.css';

const LEGEND = [
  { state: 'elected', text: 'elected' },
  { state: 'standby', text: 'standby' },
  { state: 'connecting', text: 'connecting' },
  { state: 'closed', text: 'closed' },
] as const;

export function MeshPanel() {
  const mesh = useInspector((s) => s.mesh);
  const view = useInspector((s) => s.meshView);
  const { loadMesh, selectMeshItem, setMeshShowClosed, setMeshListWidth } = useInspector.getState();
  // Countdowns to the next dial and ages tick once a second.
  const now = useTicker(1_000);
  const canvas = useRef<HTMLDivElement>(null);
  const size = useElementSize(canvas);
  const panel = useRef<HTMLElement>(null);
  const panelSize = useElementSize(panel);

  useEffect(() => {
    void loadMesh();
  }, [loadMesh]);

  const snapshot = mesh.value;
  if (snapshot === undefined) {
    return (
      <div className="mesh-panel">
        {mesh.status === 'error' && mesh.error !== undefined ? (
          <div className="mesh-notice">
            <ErrorNotice error={mesh.error} title="Could not read the mesh" onRetry={() => void loadMesh()} />
          </div>
        ) : (
          <Loading>Reading the mesh…</Loading>
        )}
      </div>
    );
  }

  const receivedAt = mesh.receivedAt ?? now;
  // The graph keeps at least 480 px (or half of a narrow panel); the lists get the rest they asked for.
  const panelWidth = panelSize?.width ?? 1400;
  const maxListWidth = Math.max(240, Math.min(1100, panelWidth - Math.max(480, panelWidth / 2)));
  const layout = layoutMesh(snapshot, view.showClosed, size);
  const remotes = snapshot.peers.length;

  const graph = (
    <div className="mesh-graph-pane">
      <div className="mesh-toolbar" role="toolbar" aria-label="Graph controls">
        <span className="mesh-counts">
          <strong>{plural(remotes, 'remote peer')}</strong> · {connectionCounts(snapshot.connections)}
        </span>
        <Switch checked={view.showClosed} onChange={setMeshShowClosed} label="Show closed" />
        {layout.hiddenClosed > 0 && <span className="faint mesh-hidden">{formatCount(layout.hiddenClosed)} older closed in the list only</span>}
      </div>
      <div className="mesh-canvas" ref={canvas}>
          <ul className="mesh-legend" aria-label="Edge styles">
            {LEGEND.map(({ state, text }) => (
              <li key={state}>
                <svg width="26" height="8" aria-hidden="true" className={`mesh-edge mesh-edge-${state}`}>
                  <path className="mesh-edge-line" d="M1 4H25" />
                </svg>
                {text}
              </li>
            ))}
          </ul>
        <MeshGraph snapshot={snapshot} layout={layout} receivedAt={receivedAt} now={now} selected={view.selected} onSelect={selectMeshItem} />
        {snapshot.connections.length === 0 && (
          <div className="mesh-empty">
            <EmptyState compact icon="unlink" title="No connections">
              This peer syncs with no one now: start sync, or give it a Big Peer or peer addresses.
            </EmptyState>
          </div>
        )}
      </div>
    </div>
  );

  const lists = (
    <div className="mesh-lists">
      {mesh.status === 'error' && mesh.error !== undefined && <ErrorNotice compact error={mesh.error} title="Could not refresh the mesh; showing the last one received." onRetry={() => void loadMesh()} />}
      <section className="mesh-list-section" aria-label="Peers">
        <h2 className="mesh-list-title">
          Peers <span className="mesh-list-count">{formatCount(remotes + 1)}</span>
        </h2>
        <PeersTable snapshot={snapshot} receivedAt={receivedAt} now={now} selected={view.selected} onSelect={selectMeshItem} />
      </section>
      <section className="mesh-list-section mesh-list-grow" aria-label="Connections">
        <h2 className="mesh-list-title">
          Connections <span className="mesh-list-count">{formatCount(snapshot.connections.length)}</span>
        </h2>
        <ConnectionsTable snapshot={snapshot} receivedAt={receivedAt} now={now} selected={view.selected} onSelect={selectMeshItem} />
      </section>
    </div>
  );

  return (
    <section className="mesh-panel" aria-label="Mesh" ref={panel}>
      <SplitPane
        direction="row"
        sized="second"
        size={Math.min(view.listWidth, maxListWidth)}
        min={Math.min(320, maxListWidth)}
        max={maxListWidth}
        onResize={setMeshListWidth}
        label="Resize the lists beside the graph"
        first={graph}
        second={lists}
      />
    </section>
  );
}
