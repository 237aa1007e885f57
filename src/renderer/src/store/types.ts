/**
 * The inspector's one zustand store is built from slices, one per panel plus the shell's. Each
 * slice keeps the peer data it shows (which arrives only through `client/`) apart from the
 * inspector's own state (filters, selection, layout): by convention `<panel>` holds peer data
 * and `<panel>View` the inspector's own state.
 */
import type { StateCreator, StoreApi } from 'zustand';
import type { DocumentsSlice } from '../features/documents/slice.ts';
import type { EvictionSlice } from '../features/eviction/slice.ts';
import type { LogsSlice } from '../features/logs/slice.ts';
import type { MeshSlice } from '../features/mesh/slice.ts';
import type { OverviewSlice } from '../features/overview/slice.ts';
import type { PermissionsSlice } from '../features/permissions/slice.ts';
import type { SubscriptionsSlice } from '../features/subscriptions/slice.ts';
import type { TransactionsSlice } from '../features/transactions/slice.ts';
import type { ShellSlice } from '../shell/slice.ts';

export type InspectorState = ShellSlice &
  OverviewSlice &
  DocumentsSlice &
  SubscriptionsSlice &
  PermissionsSlice &
  TransactionsSlice &
  MeshSlice &
  LogsSlice &
  EvictionSlice;

/** How a slice is written: it sees (and may call) the whole state. */
export type SliceCreator<Slice> = StateCreator<InspectorState, [], [], Slice>;

/** Subscribes a panel to the events it cares about; returns the function that stops it. */
export type EventWiring = (store: StoreApi<InspectorState>) => () => void;
