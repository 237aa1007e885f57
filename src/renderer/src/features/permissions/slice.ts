/** The Permissions panel's slice: `permissions` (peer data) and `permissionsView` (the inspector's own state). */
import type { EventWiring, SliceCreator } from '../../store/types.ts';

export interface PermissionsSlice {
  readonly permissionsView: Record<string, never>;
}

export const createPermissionsSlice: SliceCreator<PermissionsSlice> = () => ({
  permissionsView: {},
});

export const wirePermissionsEvents: EventWiring = () => () => {};
