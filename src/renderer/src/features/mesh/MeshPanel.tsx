/**
 * The Mesh panel: this peer, the Big Peer and every remote peer with their connections, live from
 * `mesh:changed`; a graph and, beside it, the same as lists, with a second tab of lists for the
 * peer-to-peer transports and the peers seen on the LAN.
 */
import { useEffect } from 'react';
import { useInspector } from '../../store/index.ts';
import type { MeshTransportCondition } from '../../../../shared/inspector/mesh.ts';
import { StatusDot } from '../../ui/Badge.tsx';
import { Switch } from '../../ui/Button.tsx';
import { SplitPane } from '../../ui/SplitPane.tsx';
import { Tabs } from '../../ui/Tabs.tsx';
import { formatCount, plural } from '../../ui/format.ts';
import { useTicker } from '../../ui/hooks.ts';
import { EmptyState, ErrorNotice, Loading } from '../../ui/states.tsx';
import { LanLists } from './LanLists.tsx';
import { MeshGraph } from './MeshGraph.tsx';
import { ConnectionsTable, PeersTable, connectionCounts } from './MeshLists.tsx';
import { CONDITION_TONES, PEER_TO_PEER_NAMES, noConnectionsHint, presentCount, transportChips, transportSentence } from './lan-model.ts';
import { layoutMesh } from './mesh-layout.ts';
import { peerNow } from './mesh-model.ts';
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
  const { loadMesh, selectMeshItem, setMeshShowClosed, setMeshListWidth, setMeshListTab } = useInspector.getState();
  // Countdowns to the next dial and ages tick once a second.
  const now = useTicker(1_000);
  // Measured once they are attached: both appear only after the first snapshot arrives.
  const [canvas, size] = useElementSize<HTMLDivElement>();
  const [panel, panelSize] = useElementSize<HTMLElement>();

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
        <TransportChips transports={snapshot.transports} onOpen={() => setMeshListTab('lan')} />
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
              {noConnectionsHint(snapshot.transports)}
            </EmptyState>
          </div>
        )}
      </div>
    </div>
  );

  const lists = (
    <div className="mesh-lists">
      {mesh.status === 'error' && mesh.error !== undefined && (
        <ErrorNotice compact error={mesh.error} title="Could not refresh the mesh; showing the last one received." onRetry={() => void loadMesh()} />
      )}
      <div className="mesh-list-tabs">
        <Tabs
          label="Mesh lists"
          value={view.listTab}
          onChange={setMeshListTab}
          idPrefix="mesh"
          options={[
            { id: 'connections', label: 'Peers & connections' },
            { id: 'lan', label: 'Transports & LAN', count: snapshot.transports.length === 0 ? undefined : `${formatCount(presentCount(snapshot))} on the LAN` },
          ]}
        />
      </div>
      <div className="mesh-list-body" role="tabpanel" id={`mesh-panel-${view.listTab}`} aria-labelledby={`mesh-tab-${view.listTab}`}>
        {view.listTab === 'connections' ? (
          <>
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
          </>
        ) : (
          <LanLists snapshot={snapshot} peerClock={peerNow(snapshot, receivedAt, now)} selected={view.selected} onSelect={selectMeshItem} />
        )}
      </div>
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

/**
 * The peer-to-peer transports asked for, as a dot and a name each; those this platform lacks as
 * one chip (`4 unavailable`). The full conditions are in the Transports & LAN tab, which a click opens.
 */
function TransportChips({ transports, onOpen }: { readonly transports: readonly MeshTransportCondition[]; readonly onOpen: () => void }) {
  if (transports.length === 0) return null;
  const { shown, unavailable } = transportChips(transports);
  const more = 'Click for the transports and the peers seen on the LAN.';
  return (
    <span className="mesh-chips" role="group" aria-label="Peer-to-peer transports">
      {shown.map((t) => (
        <button
          key={t.transport}
          type="button"
          className={`mesh-chip mesh-chip-${t.condition}`}
          title={`${transportSentence(t)}\n${more}`}
          aria-label={transportSentence(t)}
          onClick={onOpen}
        >
          <StatusDot tone={CONDITION_TONES[t.condition]} />
          {PEER_TO_PEER_NAMES[t.transport]}
          {t.condition !== 'Ok' && <span className={`mesh-chip-condition mesh-chip-condition-${CONDITION_TONES[t.condition]}`}>{t.condition}</span>}
        </button>
      ))}
      {unavailable.length > 0 && (
        <button
          type="button"
          className="mesh-chip mesh-chip-Unavailable"
          title={`Not available on this platform: ${unavailable.map((t) => PEER_TO_PEER_NAMES[t.transport]).join(', ')}\n${more}`}
          aria-label={`${unavailable.map((t) => PEER_TO_PEER_NAMES[t.transport]).join(', ')}: Unavailable`}
          onClick={onOpen}
        >
          <StatusDot tone="neutral" />
          {unavailable.length === 1
            ? `${PEER_TO_PEER_NAMES[(unavailable[0] as MeshTransportCondition).transport]} unavailable`
            : `${formatCount(unavailable.length)} unavailable`}
        </button>
      )}
    </span>
  );
}
