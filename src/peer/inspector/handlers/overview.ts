/**
 * `overview:get`, `sync:start`, `sync:stop`: who this peer is and how it is doing.
 *
 * Choices the contract leaves open:
 * - `identityType` is the spec's name (`OnlinePlayground`, `onlineWithAuthentication`), or
 *   `offline` for a peer without an identity (a Big Peer hosting an inspector is `offline` too:
 *   it does not log in).
 * - `bigPeer.url` is the identity's base URL even when `sync.bigPeer` is false (the peer still
 *   logs in there); `bigPeer.state` is then `none`, as it is without an identity: no Big Peer is
 *   dialed. Otherwise `stopped` while sync is off, `connected` while a session with a peer of
 *   role `big-peer` runs, else `connecting` (logging in, dialing, or waiting to dial again).
 * - While `startSync()` is under way (logging in, which may take up to the request timeout),
 *   sync counts as on: `syncActive` is true and `bigPeer.state` is `connecting`. If the start
 *   fails, both go back to off (`false`, `stopped`).
 * - `bigPeer.peerKey` is the key of the Big Peer of the current session, else of the last one
 *   seen in this run (the key is not fixed between sessions: spec 3.4).
 * - `sync:start` answers once `startSync()` has resolved (authenticated and dialing); its
 *   errors (`sync/not-configured`, `auth/failed`, …) come back as error values.
 */
import type { InspectorHandlers } from '../../../shared/inspector/contract.ts';
import type { BigPeerLinkState, IdentityType, OverviewSnapshot } from '../../../shared/inspector/overview.ts';
import { isInternalCollection } from '../../store/store.ts';
import type { InspectorContext } from '../context.ts';
import { emptyInput } from './input.ts';

type OverviewHandlers = Pick<InspectorHandlers, 'overview:get' | 'sync:start' | 'sync:stop'>;

function identityType(type: string): IdentityType {
  if (type === 'onlinePlayground') return 'OnlinePlayground';
  if (type === 'onlineWithAuthentication') return 'onlineWithAuthentication';
  return 'offline';
}

/** The Big Peer's key: of the session now, else of the last one seen in this run. */
function bigPeerKey(ctx: InspectorContext): string | undefined {
  const sync = ctx.sync;
  const live = sync.sessions.find((s) => s.remote.role === 'big-peer');
  if (live !== undefined) return live.remote.peerKey;
  const seen = sync.remotePeers.filter((p) => p.role === 'big-peer');
  return seen.reduce<(typeof seen)[number] | undefined>((last, p) => (last === undefined || p.lastSessionAt >= last.lastSessionAt ? p : last), undefined)
    ?.peerKey;
}

function linkState(ctx: InspectorContext): BigPeerLinkState {
  const sync = ctx.sync;
  if (!sync.dialsBigPeer) return 'none';
  if (sync.isSyncStarting) return 'connecting';
  if (!sync.isSyncActive) return 'stopped';
  return sync.sessions.some((s) => s.remote.role === 'big-peer') ? 'connected' : 'connecting';
}

export function overviewSnapshot(ctx: InspectorContext): OverviewSnapshot {
  const sync = ctx.sync;
  const store = sync.store;
  const status = sync.auth.status;
  // The store first: a closed one answers store/closed, as every call on it does.
  const collections = store
    .collections()
    .map((c) => ({ name: c.name, documents: c.documents, tombstones: c.tombstones, internal: isInternalCollection(c.name) }));
  const upload = sync.pendingUpload;
  const live = new Set(sync.sessions.map((s) => s.remote.peerKey));
  return {
    identityType: identityType(sync.auth.identityType),
    appId: sync.appID,
    peerKey: sync.peerKey,
    persistenceDirectory: sync.persistenceDirectory,
    syncActive: sync.isSyncActive || sync.isSyncStarting,
    bigPeer: { url: sync.bigPeerURL, state: linkState(ctx), peerKey: bigPeerKey(ctx) },
    auth: { authenticated: status.authenticated, userID: status.userID, certificateExpiresAt: status.expiresAt, lastError: status.lastError },
    upload: { pendingCommits: upload.pendingCommits, oldestPendingAt: upload.pendingSince ?? null, acknowledgedUpTo: upload.acknowledgedUpTo },
    remotes: sync.remotePeers.map((p) => ({ peerKey: p.peerKey, role: p.role, inSession: live.has(p.peerKey), lastSyncedAt: p.lastSyncedAt ?? null })),
    collections,
    storeSizeBytes: store.sizeOnDisk(),
    lastTxnId: store.lastTxnId,
    now: ctx.now(),
  };
}

export function overviewHandlers(ctx: InspectorContext): OverviewHandlers {
  return {
    'overview:get': async (input) => {
      emptyInput(input);
      return overviewSnapshot(ctx);
    },
    'sync:start': async (input) => {
      emptyInput(input);
      await ctx.sync.startSync();
      return overviewSnapshot(ctx);
    },
    'sync:stop': async (input) => {
      emptyInput(input);
      await ctx.sync.stopSync();
      return overviewSnapshot(ctx);
    },
  };
}
