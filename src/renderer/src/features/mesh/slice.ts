/**
 * The Mesh panel's slice: `mesh` (the last snapshot, from `mesh:get` on open and `mesh:changed`
 * after) and `meshView` (the selected peer or connection, closed connections shown or not, the
 * width of the list beside the graph, and which lists it shows).
 */
import type { MeshSnapshot } from '../../../../shared/inspector/mesh.ts';
import { inspector } from '../../client/index.ts';
import { readStored, writeStored } from '../../store/persist.ts';
import { idle, loading, settle, type Remote } from '../../store/remote.ts';
import { onLinkReopened } from '../../shell/slice.ts';
import type { EventWiring, SliceCreator } from '../../store/types.ts';

export type MeshSelection = { readonly kind: 'peer'; readonly id: string } | { readonly kind: 'connection'; readonly id: string } | undefined;

/** The lists beside the graph: peers and connections, or the transports and the peers seen on the LAN. */
export type MeshListTab = 'connections' | 'lan';

export interface MeshView {
  readonly selected: MeshSelection;
  readonly showClosed: boolean;
  /** Width of the list pane, in pixels. */
  readonly listWidth: number;
  readonly listTab: MeshListTab;
}

export interface MeshSlice {
  readonly mesh: Remote<MeshSnapshot>;
  readonly meshView: MeshView;
  loadMesh(): Promise<void>;
  receiveMesh(snapshot: MeshSnapshot): void;
  selectMeshItem(selection: MeshSelection): void;
  setMeshShowClosed(show: boolean): void;
  setMeshListWidth(width: number): void;
  setMeshListTab(tab: MeshListTab): void;
}

const LIST_WIDTH_KEY = 'mesh.listWidth';
export const DEFAULT_LIST_WIDTH = 560;

export const createMeshSlice: SliceCreator<MeshSlice> = (set, get) => {
  const setView = (patch: Partial<MeshView>): void => set((s) => ({ meshView: { ...s.meshView, ...patch } }));
  return {
    mesh: idle(),
    meshView: {
      selected: undefined,
      showClosed: true,
      listWidth: readStored(LIST_WIDTH_KEY, (v) => (typeof v === 'number' && v >= 240 && v <= 2000 ? v : undefined)) ?? DEFAULT_LIST_WIDTH,
      listTab: 'connections',
    },

    async loadMesh() {
      const before = get().mesh.value;
      set((s) => ({ mesh: loading(s.mesh) }));
      const result = await inspector.call('mesh:get', {});
      // An event that arrived while the call ran is newer: keep it.
      const current = get().mesh;
      if (result.ok && current.value !== undefined && current.value !== before && current.value.now > result.value.now) {
        set({ mesh: { ...current, status: 'ready' } });
        return;
      }
      set((s) => ({ mesh: settle(s.mesh, result, Date.now()) }));
    },

    receiveMesh(snapshot) {
      // Snapshots can cross a mesh:get answer: an older one never replaces a newer one.
      const current = get().mesh.value;
      if (current !== undefined && current.local.peerKey === snapshot.local.peerKey && current.now > snapshot.now) return;
      set({ mesh: { status: 'ready', value: snapshot, error: undefined, receivedAt: Date.now() } });
    },

    selectMeshItem(selected) {
      // A connection is listed only with the connections: show it there.
      setView(selected?.kind === 'connection' ? { selected, listTab: 'connections' } : { selected });
    },

    setMeshShowClosed(showClosed) {
      setView({ showClosed });
    },

    setMeshListWidth(listWidth) {
      writeStored(LIST_WIDTH_KEY, listWidth);
      setView({ listWidth });
    },

    setMeshListTab(listTab) {
      setView({ listTab });
    },
  };
};

export const wireMeshEvents: EventWiring = (store) => {
  // Read once at start, whatever the panel: every panel names peers from it (peer-names.ts).
  if (store.getState().mesh.status === 'idle') void store.getState().loadMesh();
  const stopChanges = inspector.on('mesh:changed', (snapshot) => store.getState().receiveMesh(snapshot));
  // Changes pushed while the link was down are lost: once it is back, read the mesh again.
  const stopLink = onLinkReopened(store, () => {
    if (store.getState().mesh.status !== 'idle') void store.getState().loadMesh();
  });
  return () => {
    stopChanges();
    stopLink();
  };
};
