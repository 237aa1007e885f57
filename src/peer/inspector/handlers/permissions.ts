/**
 * `permissions:list` and `permissions:check`: the rules of this peer and of each connected one,
 * and for one document who may read and write it, and why.
 *
 * Choices the contract leaves open:
 * - The local peer's rules are its certificate's (what the Big Peer lets it read and write);
 *   an offline peer has none and is shown as allowed locally. A Big Peer's own rules are
 *   everything. A remote's rules are what it may read from and write to this peer.
 * - A tombstone is allowed wherever its collection has a rule (it has no fields to test), as
 *   replication decides. A document this peer does not hold is `found: false`; rules without
 *   conditions still decide it, rules with conditions cannot (not allowed, and said so).
 * - Peers are the local one, then each with a live session, in session order.
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import type { AccessReport, DocumentAccess, PermissionsSnapshot } from '../../../shared/inspector/permissions.ts';
import type { Permissions } from '../../../shared/permissions.ts';
import type { InspectorContext } from '../context.ts';
import { verdict, type Held } from './access.ts';
import { documentId, emptyInput, objectInput, requiredString } from './input.ts';

type PermissionsHandlers = Pick<InspectorHandlers, 'permissions:list' | 'permissions:check'>;

function access(peerKey: string, role: DocumentAccess['role'], permissions: Permissions | undefined, collection: string, held: Held): DocumentAccess {
  return { peerKey, role, read: verdict('read', permissions?.read, collection, held), write: verdict('write', permissions?.write, collection, held) };
}

export function permissionsHandlers(ctx: InspectorContext): PermissionsHandlers {
  return {
    'permissions:list': async (input): Promise<PermissionsSnapshot> => {
      emptyInput(input);
      const sync = ctx.sync;
      return {
        local: { peerKey: sync.peerKey, role: 'local', permissions: sync.permissions },
        remotes: sync.sessions.map((s) => ({ peerKey: s.remote.peerKey, role: s.remote.role, permissions: s.remote.permissions })),
      };
    },
    'permissions:check': async (input): Promise<AccessReport> => {
      const o = objectInput(input, ['collection', 'id']);
      const collection = requiredString(o, 'collection', { nonEmpty: true, maxLength: 1000 });
      const id = documentId(o, 'id');
      const sync = ctx.sync;
      const stored = sync.store.readNow((reader) => reader.get(collection, id));
      const held: Held = stored === undefined ? { found: false } : { found: true, value: stored.value };
      return {
        collection,
        id,
        found: held.found,
        peers: [
          access(sync.peerKey, 'local', sync.permissions, collection, held),
          ...sync.sessions.map((s) => access(s.remote.peerKey, s.remote.role, s.remote.permissions, collection, held)),
        ],
      };
    },
  };
}
