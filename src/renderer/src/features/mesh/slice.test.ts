import { describe, expect, it, vi } from 'vitest';
import type { SliceCreator } from '../../store/types.ts';
import { testStore } from '../../../../testing/renderer/test-bridge.ts';
import { createMeshSlice, wireMeshEvents, type MeshSlice } from './slice.ts';
import { connection, lanSnapshot, snapshot } from '../../../../testing/renderer/mesh-snapshots.ts';

function setup() {
  const { store, bridge } = testStore<MeshSlice>(createMeshSlice as SliceCreator<Partial<MeshSlice>>);
  wireMeshEvents(store);
  return { store, bridge };
}

describe('the Mesh slice', () => {
  it('loads the mesh on open and takes every change after', async () => {
    const { store, bridge } = setup();
    bridge.answer('mesh:get', snapshot({ now: 1 }));
    await store.getState().loadMesh();
    expect(store.getState().mesh.status).toBe('ready');
    bridge.emit('mesh:changed', snapshot({ now: 2, connections: [connection('WsClient#2', { state: 'closed' })] }));
    expect(store.getState().mesh.value?.connections[0]?.id).toBe('WsClient#2');
    expect(store.getState().mesh.receivedAt).toBeDefined();
  });

  it('keeps a change that arrived while mesh:get was on its way', async () => {
    const { store, bridge } = setup();
    bridge.answer('mesh:get', () => {
      bridge.emit('mesh:changed', snapshot({ now: 5, connections: [] }));
      return snapshot({ now: 3 });
    });
    await store.getState().loadMesh();
    expect(store.getState().mesh.value?.now).toBe(5);
    expect(store.getState().mesh.status).toBe('ready');
  });

  it('keeps the last snapshot beside the error of a failed load', async () => {
    const { store, bridge } = setup();
    bridge.emit('mesh:changed', snapshot({ now: 1 }));
    bridge.answer('mesh:get', { code: 'internal/unexpected', message: 'boom' });
    await store.getState().loadMesh();
    expect(store.getState().mesh.status).toBe('error');
    expect(store.getState().mesh.value?.now).toBe(1);
  });

  it('selects a peer or a connection', () => {
    const { store } = setup();
    store.getState().selectMeshItem({ kind: 'connection', id: 'WsClient#1' });
    expect(store.getState().meshView.selected).toEqual({ kind: 'connection', id: 'WsClient#1' });
  });

  it('shows the peers and connections first, and turns back to them when a connection is selected from the LAN list', () => {
    const { store } = setup();
    expect(store.getState().meshView.listTab).toBe('connections');
    store.getState().setMeshListTab('lan');
    store.getState().selectMeshItem({ kind: 'peer', id: 'peer-b' });
    expect(store.getState().meshView).toMatchObject({ listTab: 'lan', selected: { kind: 'peer', id: 'peer-b' } });
    store.getState().selectMeshItem({ kind: 'connection', id: 'WsClient#4' });
    expect(store.getState().meshView.listTab).toBe('connections');
  });

  it('takes the LAN peers and transports of a snapshot as they come', async () => {
    const { store, bridge } = setup();
    bridge.answer('mesh:get', lanSnapshot({ now: 1 }));
    await store.getState().loadMesh();
    expect(store.getState().mesh.value?.lanPeers).toHaveLength(5);
    bridge.emit('mesh:changed', lanSnapshot({ now: 2, transports: [] }));
    expect(store.getState().mesh.value?.transports).toEqual([]);
  });

  it('reads the mesh again when the link to the peer comes back', async () => {
    const { store, bridge } = setup();
    bridge.answer('mesh:get', snapshot({ now: 1 }));
    store.setState({ linkEpoch: 1 });
    await store.getState().loadMesh();
    bridge.answer('mesh:get', snapshot({ now: 9 }));
    store.setState({ linkEpoch: 2 });
    await vi.waitFor(() => expect(store.getState().mesh.value?.now).toBe(9));
  });
});
