/** Every panel of the inspector, in the order of the navigation. */
import type { ComponentType } from 'react';
import { DocumentsPanel } from '../features/documents/DocumentsPanel.tsx';
import { EvictionPanel } from '../features/eviction/EvictionPanel.tsx';
import { LogsPanel } from '../features/logs/LogsPanel.tsx';
import { MeshPanel } from '../features/mesh/MeshPanel.tsx';
import { OverviewPanel } from '../features/overview/OverviewPanel.tsx';
import { PermissionsPanel } from '../features/permissions/PermissionsPanel.tsx';
import { SubscriptionsPanel } from '../features/subscriptions/SubscriptionsPanel.tsx';
import { TransactionsPanel } from '../features/transactions/TransactionsPanel.tsx';
import type { IconName } from '../ui/Icon.tsx';
import type { PanelId } from './navigation.ts';

export type { PanelId } from './navigation.ts';

export interface PanelDefinition {
  readonly id: PanelId;
  readonly title: string;
  readonly icon: IconName;
  readonly Component: ComponentType;
}

export const PANELS = [
  { id: 'overview', title: 'Overview', icon: 'overview', Component: OverviewPanel },
  { id: 'documents', title: 'Documents', icon: 'documents', Component: DocumentsPanel },
  { id: 'subscriptions', title: 'Subscriptions', icon: 'subscriptions', Component: SubscriptionsPanel },
  { id: 'permissions', title: 'Permissions', icon: 'shield', Component: PermissionsPanel },
  { id: 'transactions', title: 'Transactions', icon: 'activity', Component: TransactionsPanel },
  { id: 'mesh', title: 'Mesh', icon: 'mesh', Component: MeshPanel },
  { id: 'logs', title: 'Logs', icon: 'logs', Component: LogsPanel },
  { id: 'eviction', title: 'Eviction', icon: 'evict', Component: EvictionPanel },
] as const satisfies readonly PanelDefinition[];
