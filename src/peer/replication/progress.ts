/**
 * What this peer holds of each remote peer's store: per subscription query, the remote's last
 * `txn_id` merged here. It is saved with the store (settings), so a restarted peer is sent only
 * what is new. An EVICT forgets it for the evicted collection: the peer no longer holds those
 * documents, and whatever its subscriptions still match comes back (spec 3.1, last row).
 *
 * The progress is saved with the read rules the remote applied to this peer when it was reached:
 * documents the rules kept back were passed over, not held. When this peer's read rules for a
 * collection change (a new certificate that lets it read more), the progress of that
 * collection's queries is forgotten, and the documents now readable come in the next update.
 */
import type { PermissionRules } from '../../shared/permissions.ts';
import { EVERYTHING_KEY } from '../../shared/protocol/messages.ts';

const PROGRESS_PREFIX = 'replication/progress/';
const EVICTED_KEY = 'replication/evicted';

export interface SettingsPort {
  get(key: string): string | undefined;
  set(entries: Readonly<Record<string, string>>): Promise<void>;
}

interface Saved {
  /** This store's txn_id when the progress was reached (before the update's merge). */
  readonly savedAt: number;
  readonly progress: Record<string, number>;
  /** The read rules the remote applied to this peer (absent in progress saved before they were kept). */
  readonly read?: PermissionRules;
}

/** A collection's read rule, as a text to compare: what a remote lets this peer read of it. */
function ruleFor(read: PermissionRules, collection: string | undefined): string {
  if (read.everything) return 'everything';
  if (collection === undefined) return JSON.stringify(read.queries_by_collection);
  return JSON.stringify(read.queries_by_collection[collection] ?? []);
}

/** The setting (key and value) that saves what this peer holds of a remote's store, as of `savedAt`. */
export function progressSetting(remotePeerKey: string, progress: Record<string, number>, savedAt: number, read?: PermissionRules): [string, string] {
  return [PROGRESS_PREFIX + remotePeerKey, JSON.stringify({ savedAt, progress, ...(read === undefined ? {} : { read }) } satisfies Saved)];
}

/** The collection of a progress key (undefined for the everything key). */
export function collectionOf(key: string): string | undefined {
  if (key === EVERYTHING_KEY) return undefined;
  try {
    const parsed = JSON.parse(key) as unknown;
    return Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed[0] : undefined;
  } catch {
    return undefined;
  }
}

function parseJson<T>(text: string | undefined, fallback: T): T {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export class ReplicationProgress {
  readonly #settings: SettingsPort;

  constructor(settings: SettingsPort) {
    this.#settings = settings;
  }

  /**
   * Per query key, the remote's txn_id this peer holds everything up to (an evicted collection,
   * or one whose read rule differs from `read`, the rules the remote applies now: 0).
   */
  load(remotePeerKey: string, read?: PermissionRules): Record<string, number> {
    const saved = parseJson<Saved | undefined>(this.#settings.get(PROGRESS_PREFIX + remotePeerKey), undefined);
    if (saved === undefined || typeof saved.progress !== 'object' || saved.progress === null) return {};
    const evicted = this.#evicted();
    const lastEvict = Math.max(0, ...Object.values(evicted));
    const out: Record<string, number> = {};
    for (const [key, value] of Object.entries(saved.progress)) {
      if (typeof value !== 'number') continue;
      const collection = collectionOf(key);
      const evictedAt = collection === undefined ? lastEvict : (evicted[collection] ?? 0);
      if (evictedAt > saved.savedAt) continue;
      if (read !== undefined && saved.read !== undefined && ruleFor(read, collection) !== ruleFor(saved.read, collection)) continue;
      out[key] = value;
    }
    return out;
  }

  save(remotePeerKey: string, progress: Record<string, number>, savedAt: number, read?: PermissionRules): Promise<void> {
    return this.#settings.set(Object.fromEntries([progressSetting(remotePeerKey, progress, savedAt, read)]));
  }

  /** Records an EVICT of these collections at this store's txn_id. */
  evicted(collections: readonly string[], txnId: number): Promise<void> {
    const evicted = this.#evicted();
    for (const c of collections) evicted[c] = txnId;
    return this.#settings.set({ [EVICTED_KEY]: JSON.stringify(evicted) });
  }

  #evicted(): Record<string, number> {
    return parseJson<Record<string, number>>(this.#settings.get(EVICTED_KEY), {});
  }
}
