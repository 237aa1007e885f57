/**
 * The Permissions panel's slice: `permissions` (the rules of this peer and each connected one;
 * the last access check's report) and `permissionsView` (the document being checked). Rules
 * are fetched when the panel is shown and when the mesh changes while it is.
 */
import type { AccessReport, PermissionsSnapshot } from '../../../../shared/inspector/permissions.ts';
import type { JsonValue } from '../../../../shared/json.ts';
import { inspector } from '../../client/index.ts';
import { onLinkReopened, whileShown } from '../../shell/slice.ts';
import { idle, loading, settle, type Remote } from '../../store/remote.ts';
import { throttle } from '../../store/throttle.ts';
import type { EventWiring, SliceCreator } from '../../store/types.ts';
import { idToText, parseIdInput } from './model.ts';

export interface PermissionsSlice {
  readonly permissions: {
    readonly snapshot: Remote<PermissionsSnapshot>;
    readonly check: Remote<AccessReport>;
  };
  readonly permissionsView: {
    readonly collection: string;
    /** The `_id` as typed (see `parseIdInput`). */
    readonly idText: string;
    readonly printed: boolean;
  };
  loadPermissions(): Promise<void>;
  setAccessQuery(query: Partial<Pick<PermissionsSlice['permissionsView'], 'collection' | 'idText'>>): void;
  setPermissionsPrinted(printed: boolean): void;
  runAccessCheck(): Promise<void>;
  /** Checks one document (from the Documents panel) and shows the Permissions panel. */
  openAccessCheck(ref: { readonly collection: string; readonly id: JsonValue }): void;
}

let inFlight: Promise<void> | undefined;

export const createPermissionsSlice: SliceCreator<PermissionsSlice> = (set, get) => {
  const setData = (patch: Partial<PermissionsSlice['permissions']>) => set((s) => ({ permissions: { ...s.permissions, ...patch } }));
  return {
    permissions: { snapshot: idle(), check: idle() },
    permissionsView: { collection: '', idText: '', printed: false },
    loadPermissions: () => {
      inFlight ??= (async () => {
        setData({ snapshot: loading(get().permissions.snapshot) });
        const result = await inspector.call('permissions:list', {});
        setData({ snapshot: settle(get().permissions.snapshot, result, Date.now()) });
      })().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    setAccessQuery: (query) => set((s) => ({ permissionsView: { ...s.permissionsView, ...query } })),
    setPermissionsPrinted: (printed) => set((s) => ({ permissionsView: { ...s.permissionsView, printed } })),
    runAccessCheck: async () => {
      const { collection, idText } = get().permissionsView;
      const id = parseIdInput(idText);
      if (collection.trim() === '' || id === undefined) return;
      setData({ check: loading(get().permissions.check) });
      const result = await inspector.call('permissions:check', { collection: collection.trim(), id });
      setData({ check: result.ok ? settle(idle(), result, Date.now()) : { status: 'error', value: undefined, error: result.error, receivedAt: undefined } });
    },
    openAccessCheck: ({ collection, id }) => {
      set((s) => ({ permissionsView: { ...s.permissionsView, collection, idText: idToText(id) } }));
      get().showPanel('permissions');
      void get().runAccessCheck();
    },
  };
};

export const wirePermissionsEvents: EventWiring = (store) => {
  const reload = () => {
    void store.getState().loadPermissions();
    // A check already shown is decided again (peers come and go, documents change).
    if (store.getState().permissions.check.value !== undefined) void store.getState().runAccessCheck();
  };
  const shown = whileShown(store, 'permissions', () => void store.getState().loadPermissions());
  const refresh = throttle(() => {
    if (store.getState().shellView.panel === 'permissions') reload();
  }, 1000);
  const stops = [inspector.on('mesh:changed', refresh), onLinkReopened(store, shown.refresh), shown.stop];
  return () => {
    refresh.cancel();
    for (const stop of stops) stop();
  };
};
