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
