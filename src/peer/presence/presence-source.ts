/**
 * Where presence comes from and goes to inside a peer: its direct links (the mesh tracker's
 * sessions), and the presence documents its store holds (its own and those replicated to it).
 */
import type { MeshTracker } from '../replication/mesh-tracker.ts';
import type { Store } from '../store/store.ts';
import { PRESENCE_COLLECTION, PRESENCE_LINKS_MAX, readPresence, type PresenceLink, type PresenceRecord } from './presence-document.ts';

/** Presence documents read at most (the most a mesh panel shows). */
export const PRESENCE_READ_MAX = 1000;

/** This peer's direct links: each remote with a session, over its elected connection if one is. */
export function directLinks(tracker: Pick<MeshTracker, 'connections' | 'peers'>): PresenceLink[] {
  const roles = new Map(tracker.peers().map((p) => [p.peerKey, p.role]));
  const links = new Map<string, PresenceLink>();
  for (const c of tracker.connections()) {
    if (c.remotePeerKey === undefined || (c.state !== 'elected' && c.state !== 'standby')) continue;
    const known = links.get(c.remotePeerKey);
    if (known !== undefined && known.state === 'elected') continue;
    links.set(c.remotePeerKey, { peerKey: c.remotePeerKey, role: roles.get(c.remotePeerKey), transport: c.transport, state: c.state });
  }
  return [...links.values()].slice(0, PRESENCE_LINKS_MAX);
}

/** The presence documents the store holds now, by peer key (malformed ones left out). */
export function readAllPresence(store: Pick<Store, 'readNow' | 'isClosed'>): Map<string, PresenceRecord> {
  const out = new Map<string, PresenceRecord>();
  if (store.isClosed) return out;
  const values = store.readNow((r) =>
    r.findValues({ collection: PRESENCE_COLLECTION, where: undefined, params: {}, orderBy: [], limit: PRESENCE_READ_MAX, offset: 0 }),
  );
  for (const value of values) {
    const record = readPresence(value);
    if (record !== undefined) out.set(record.peerKey, record);
  }
  return out;
}
