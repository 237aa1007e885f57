/** The inspector's store, built from every slice; and the wiring of pushed events into it. */
import { create } from 'zustand';
import { createDocumentsSlice, wireDocumentsEvents } from '../features/documents/slice.ts';
import { createEvictionSlice, wireEvictionEvents } from '../features/eviction/slice.ts';
import { createLogsSlice, wireLogsEvents } from '../features/logs/slice.ts';
import { createMeshSlice, wireMeshEvents } from '../features/mesh/slice.ts';
import { createOverviewSlice, wireOverviewEvents } from '../features/overview/slice.ts';
import { createPermissionsSlice, wirePermissionsEvents } from '../features/permissions/slice.ts';
import { createSubscriptionsSlice, wireSubscriptionsEvents } from '../features/subscriptions/slice.ts';
import { createTransactionsSlice, wireTransactionsEvents } from '../features/transactions/slice.ts';
import { createShellSlice, wireShellEvents } from '../shell/slice.ts';
import type { EventWiring, InspectorState } from './types.ts';
import { wirePeerPrefs } from './peer-prefs.ts';

export type { InspectorState } from './types.ts';

export const useInspector = create<InspectorState>()((...a) => ({
  ...createShellSlice(...a),
  ...createOverviewSlice(...a),
  ...createDocumentsSlice(...a),
  ...createSubscriptionsSlice(...a),
  ...createPermissionsSlice(...a),
  ...createTransactionsSlice(...a),
  ...createMeshSlice(...a),
  ...createLogsSlice(...a),
  ...createEvictionSlice(...a),
}));

const WIRINGS: readonly EventWiring[] = [
  wireShellEvents,
  wireOverviewEvents,
  wireDocumentsEvents,
  wireSubscriptionsEvents,
  wirePermissionsEvents,
  wireTransactionsEvents,
  wireMeshEvents,
  wireLogsEvents,
  wireEvictionEvents,
  wirePeerPrefs,
];

/** Starts every panel's event subscriptions; returns the function that stops them. */
export function wireEvents(): () => void {
  const stops = WIRINGS.map((wire) => wire(useInspector));
  return () => {
    for (const stop of stops) stop();
  };
}
