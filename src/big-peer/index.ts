/**
 * The Big Peer's public surface, for the `syncmesh big-peer` command and for tests elsewhere.
 */
export { BigPeer, type BigPeerDeps } from './big-peer.ts';
export { loadConfig, bigPeerConfig, ConfigError, CONFIG_DEFAULTS, type BigPeerConfig, type ConfigFlags } from './config.ts';
export { ApiKeys, API_KEY_PREFIX, type ApiKeyInfo } from './api-keys.ts';
export { BigPeerSettings } from './settings.ts';
export { collectionPermissions } from './permission-rules.ts';
export { translateLegacyQuery } from './legacy-query.ts';
