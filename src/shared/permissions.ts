/**
 * Permissions as a peer prints them (spec section 2.5): read and write rules, each either
 * everything or, per collection, the queries (DQL conditions) whose documents are allowed.
 */
export interface PermissionRules {
  readonly everything: boolean;
  readonly queries_by_collection: Readonly<Record<string, readonly string[]>>;
}

export interface Permissions {
  readonly read: PermissionRules;
  readonly write: PermissionRules;
}

/** Read and write everything: the playground's grant, and the Big Peer's default for a connected small peer. */
export const EVERYTHING: Permissions = {
  read: { everything: true, queries_by_collection: {} },
  write: { everything: true, queries_by_collection: {} },
};

/** Nothing at all. */
export const NOTHING: Permissions = {
  read: { everything: false, queries_by_collection: {} },
  write: { everything: false, queries_by_collection: {} },
};

/**
 * Internal collections every authenticated peer of the app may read, whatever the app's read
 * rules say (or whether they name them): every peer subscribes to `__presence` (spec 2.2), so a
 * rule that left it out would only have its subscription refused at every update. Applied where
 * a remote's read rules are checked (`compileReadRules`); the certificate keeps the app's rules
 * as given. Writes to them follow the write rules.
 */
export const READABLE_BY_EVERY_PEER: readonly string[] = ['__presence'];
