/** Every panel of the inspector, in the order of the navigation. */
import type { ComponentType } from 'react';
import { DocumentsPanel } from '../features/documents/DocumentsPanel.tsx';
import { LogsPanel } from '../features/logs/LogsPanel.tsx';
import { MeshPanel } from '../features/mesh/MeshPanel.tsx';
import { OverviewPanel } from '../features/overview/OverviewPanel.tsx';
import { PermissionsPanel } from '../features/permissions/PermissionsPanel.tsx';
import { SubscriptionsPanel } from '../features/subscriptions/SubscriptionsPanel.tsx';
import { TransactionsPanel } from '../features/transactions/TransactionsPanel.tsx';

export interface PanelDefinition {
  readonly id: string;
  readonly title: string;
  readonly Component: ComponentType;
}

export const PANELS = [
  { id: 'overview', title: 'Overview', Component: OverviewPanel },
  { id: 'documents', title: 'Documents', Component: DocumentsPanel },
  { id: 'subscriptions', title: 'Subscriptions', Component: SubscriptionsPanel },
  { id: 'permissions', title: 'Permissions', Component: PermissionsPanel },
  { id: 'transactions', title: 'Transactions', Component: TransactionsPanel },
  { id: 'mesh', title: 'Mesh', Component: MeshPanel },
  { id: 'logs', title: 'Logs', Component: LogsPanel },
] as const satisfies readonly PanelDefinition[];

export type PanelId = (typeof PANELS)[number]['id'];
