/** The inspector contract and the types of every panel's data. */
export * from './contract.ts';
export * from './result.ts';
export type * from './overview.ts';
export type * from './documents.ts';
export type * from './subscriptions.ts';
export type * from './permissions.ts';
export type * from './transactions.ts';
export type * from './mesh.ts';
export type * from './logs.ts';
export type * from './eviction.ts';
export type * from './trace.ts';
export * from './prefs.ts';
