/** The Mesh panel's slice: `mesh` (peer data) and `meshView` (the inspector's own state). */
import type { EventWiring, SliceCreator } from '../../store/types.ts';

export interface MeshSlice {
  readonly meshView: Record<string, never>;
}

export const createMeshSlice: SliceCreator<MeshSlice> = () => ({
  meshView: {},
});

export const wireMeshEvents: EventWiring = () => () => {};
