/**
 * The inspector's own preferences kept with the peer: the console's history, the theme and the
 * Documents panel's layout. A browser page's localStorage belongs to its origin, and `syncmesh
 * inspect` serves each run on a new port, so the page keeps them with the peer instead
 * (docs/inspector.md, "Preferences").
 */
import type { JsonObject } from '../json.ts';

/** At most this many bytes of JSON are kept. */
export const MAX_PREFS_BYTES = 256 * 1024;

export interface InspectorPrefs {
  /** The preferences saved last, or null when none were. Their shape is the page's own. */
  readonly prefs: JsonObject | null;
}
