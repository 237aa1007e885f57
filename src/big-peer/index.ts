/**
 * The Big Peer's public surface, for the `syncmesh big-peer` command and for tests elsewhere.
 */
export { BigPeer, DRAIN_CLOSE_REASON, type BigPeerDeps } from './big-peer.ts';
export { BigPeerMetrics, METRICS_PREFIX } from './metrics.ts';
export { OPERATIONS_PATHS } from './routes/operations.ts';
export {
  loadConfig,
  bigPeerConfig,
  parseStorageUrl,
  ConfigError,
  CONFIG_DEFAULTS,
  type BigPeerConfig,
  type ConfigFlags,
  type PostgresConfig,
} from './config.ts';
export { ApiKeys, API_KEY_PREFIX, type ApiKeyInfo } from './api-keys.ts';
export { BigPeerSettings } from './settings.ts';
export { collectionPermissions } from './permission-rules.ts';
export { translateLegacyQuery } from './legacy-query.ts';
export {
  startLocalBigPeer,
  loadOrCreateLocalIdentity,
  LOCAL_BIG_PEER_IDENTITY_FILE,
  type LocalBigPeer,
  type LocalBigPeerIdentity,
  type LocalBigPeerOptions,
} from './local-big-peer.ts';
export { readAppSettings, parseAppSettings, AppSettingsError, APP_SETTINGS_FILE, type AppSettings } from './app-settings.ts';
export {
  startAppPeer,
  providerIdentity,
  userDataPlan,
  USER_DATA_PEER_DIR,
  USER_DATA_LOCAL_BIG_PEER_DIR,
  type AppPeer,
  type AppPeerOptions,
  type AppPeerPlan,
  type BigPeerLink,
} from './app-peer.ts';
