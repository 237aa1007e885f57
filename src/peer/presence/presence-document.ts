/**
 * A presence document: what a peer says of itself in `__presence` (spec 2.2, 2.6: presence data
 * is written by an `Internal` job). Its `_id` is the writer's peer key. Every peer subscribes to
 * `__presence` from the start and may always read it, so each peer learns the names and the
 * direct links of every peer of the app, also those it reaches only through the Big Peer.
 * Replicated documents come from other peers: they are read defensively, never trusted to have
 * the shape.
 */
import type { JsonObject, JsonValue } from '../../shared/json.ts';

/** The collection presence documents live in. */
export const PRESENCE_COLLECTION = '__presence';

/** Longest device name kept (longer ones are cut), and most app metadata entries and links kept. */
export const DEVICE_NAME_MAX = 100;
export const APP_METADATA_MAX_ENTRIES = 20;
export const APP_METADATA_VALUE_MAX = 200;
export const PRESENCE_LINKS_MAX = 100;

/** App metadata: short strings an app says of itself (its version, a site, …). */
export type AppMetadata = Readonly<Record<string, string>>;

/** A session the writer has with another peer, as it wrote it. */
export interface PresenceLink {
  readonly peerKey: string;
  readonly role: 'big-peer' | 'small-peer' | undefined;
  /** `WebSocket` (configured) or `LAN` (discovery). */
  readonly transport: 'WebSocket' | 'LAN';
  /** `elected`: a session runs over it; `standby`: up, another connection was elected. */
  readonly state: 'elected' | 'standby';
}

export interface PresenceRecord {
  readonly peerKey: string;
  readonly deviceName: string | undefined;
  readonly appMetadata: AppMetadata;
  readonly role: 'big-peer' | 'small-peer' | undefined;
  readonly links: readonly PresenceLink[];
  /** When the writer last wrote it (ms, on the writer's clock). */
  readonly updatedAt: number | undefined;
}

/** The document a peer writes for itself. */
export function presenceDocument(record: PresenceRecord): JsonObject {
  return {
    _id: record.peerKey,
    deviceName: record.deviceName ?? null,
    appMetadata: { ...record.appMetadata },
    role: record.role ?? null,
    links: record.links.map((l) => ({ peerKey: l.peerKey, role: l.role ?? null, transport: l.transport, state: l.state })),
    updatedAt: record.updatedAt ?? null,
  };
}

/** A device name as kept: trimmed, cut to `DEVICE_NAME_MAX`; undefined when empty or not a string. */
export function cleanDeviceName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, DEVICE_NAME_MAX);
}

/** App metadata as kept: string values only (numbers and booleans as text), bounded in count and length. */
export function cleanAppMetadata(value: unknown): AppMetadata {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (Object.keys(out).length >= APP_METADATA_MAX_ENTRIES) break;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[key.slice(0, 100)] = String(v).slice(0, APP_METADATA_VALUE_MAX);
  }
  return out;
}

function roleOf(value: JsonValue | undefined): 'big-peer' | 'small-peer' | undefined {
  return value === 'big-peer' || value === 'small-peer' ? value : undefined;
}

/** Reads a stored presence document; undefined when it is not one (no string `_id`). */
export function readPresence(doc: JsonObject): PresenceRecord | undefined {
  const id = doc._id;
  if (typeof id !== 'string' || id === '') return undefined;
  const links: PresenceLink[] = [];
  if (Array.isArray(doc.links)) {
    for (const l of doc.links.slice(0, PRESENCE_LINKS_MAX)) {
      if (l === null || typeof l !== 'object' || Array.isArray(l) || typeof l.peerKey !== 'string') continue;
      links.push({
        peerKey: l.peerKey,
        role: roleOf(l.role),
        transport: l.transport === 'LAN' ? 'LAN' : 'WebSocket',
        state: l.state === 'standby' ? 'standby' : 'elected',
      });
    }
  }
  return {
    peerKey: id,
    deviceName: cleanDeviceName(doc.deviceName),
    appMetadata: cleanAppMetadata(doc.appMetadata),
    role: roleOf(doc.role),
    links,
    updatedAt: typeof doc.updatedAt === 'number' && Number.isFinite(doc.updatedAt) ? doc.updatedAt : undefined,
  };
}
