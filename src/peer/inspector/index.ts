/**
 * The inspector for a host that embeds it (package entry `syncmesh/inspector`, docs/package.md):
 * the peer side (`createInspector(sync)`, `serveCall`) and the contract both sides speak
 * (src/shared/inspector: calls, events, results, each panel's types). The desktop app and
 * `syncmesh inspect` take the same from `host.ts`.
 */
export { createInspector, EVENT_COALESCE_MS, type Inspector, type InspectorOptions } from './inspector.ts';
export { serveCall } from './serve-call.ts';
export * from '../../shared/inspector/index.ts';
export { serveInspector, type ServeInspectorOptions, type ServedInspector } from './serve-inspector.ts';
export { InspectorServerOptionError } from './inspector-server-errors.ts';
