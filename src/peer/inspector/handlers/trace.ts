/**
 * `documents:trace`: where this peer's version of a document stands with each remote, and why
 * (shared/inspector/trace.ts). Running sessions answer from what they keep (replication/
 * delivery.ts); a remote this peer dials whose session is down is listed with since when and why.
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import type { DocumentTrace, RemoteTrace } from '../../../shared/inspector/trace.ts';
import type { InspectorContext } from '../context.ts';
import { documentId, objectInput, requiredString } from './input.ts';
import { documentMetadata } from './merge-metadata.ts';
import { meshSnapshot } from './mesh-model.ts';

type TraceHandlers = Pick<InspectorHandlers, 'documents:trace'>;

export function traceHandlers(ctx: InspectorContext): TraceHandlers {
  return {
    'documents:trace': async (input): Promise<DocumentTrace> => {
      const o = objectInput(input, ['collection', 'id']);
      const collection = requiredString(o, 'collection', { nonEmpty: true, maxLength: 1000 });
      const id = documentId(o, 'id');
      const sync = ctx.sync;
      const stored = sync.store.readNow((reader) => reader.get(collection, id));
      if (stored === undefined) return { collection, id, held: 'absent', txnId: null, lastWriter: null, lastWrittenAt: null, remotes: [] };
      const metadata = documentMetadata(collection, stored, { local: sync.peerKey, sessions: sync.sessions });
      const stamps = [metadata.created, ...(metadata.deleted === undefined ? [] : [metadata.deleted]), ...metadata.fields.map((f) => f.stamp)];
      const last = stamps.reduce((a, b) => (b.hlc > a.hlc ? b : a));
      const remotes: RemoteTrace[] = sync
        .deliveries(collection, stored)
        .map(({ remote, delivery }) => ({ peerKey: remote.peerKey, role: remote.role, delivery }));
      // Remotes this peer dials (or dialed) that have no session now: their latest connection says since when and why.
      const mesh = meshSnapshot(ctx);
      const listed = new Set(remotes.map((r) => r.peerKey));
      for (const peer of mesh.peers) {
        if (peer.role === 'local' || listed.has(peer.peerKey)) continue;
        listed.add(peer.peerKey);
        const latest = mesh.connections.filter((c) => c.remotePeerKey === peer.peerKey).sort((a, b) => b.since - a.since)[0];
        remotes.push({
          peerKey: peer.peerKey,
          role: peer.role,
          delivery: { state: 'session-down', since: latest?.since ?? null, reason: latest?.reason ?? null, retryInMs: latest?.retryInMs ?? null },
        });
      }
      return {
        collection,
        id,
        held: stored.value === null ? 'tombstone' : 'live',
        txnId: stored.txnId,
        lastWriter: last.writer,
        lastWrittenAt: last.time,
        remotes,
      };
    },
  };
}
