/**
 * Presence over real WebSocket sessions on 127.0.0.1: two registers, each with a session to the
 * Big Peer only, learn each other's device name and see each other in the Mesh as reached via the
 * Big Peer, from the presence documents the Big Peer relays.
 */
import { afterEach, expect, it } from 'vitest';
import { buildMeshSnapshot } from './mesh-model.ts';
import { netKit, until, type NetKit } from '../../../testing/inspector/net-kit.ts';

let kit: NetKit | undefined;
afterEach(async () => {
  await kit?.dispose();
  kit = undefined;
});

it('shows a register behind the Big Peer by its device name, via the Big Peer, with its last-seen time', async () => {
  kit = netKit();
  const big = await kit.bigPeer();
  const a = kit.smallPeer('clerk-a', { bigPeerURL: big.url, presence: { deviceName: 'till-1', appMetadata: { version: '3.1' } } });
  const b = kit.smallPeer('clerk-b', { bigPeerURL: big.url, presence: { deviceName: 'till-2' } });
  await a.sync.startSync();
  await b.sync.startSync();
  const behind = () => buildMeshSnapshot(a.sync, Date.now()).indirect.find((p) => p.peerKey === b.sync.peerKey);
  // b writes its links once its session to the Big Peer runs (after the debounce): then a sees it linked.
  await until('a sees b linked through the Big Peer', () => behind()?.via === big.sync.peerKey);
  expect(behind()).toMatchObject({ deviceName: 'till-2', role: 'small-peer', viaRole: 'big-peer', online: true });
  expect(behind()?.lastSeenAt).toBeGreaterThan(Date.now() - 60_000);
  const onA = buildMeshSnapshot(a.sync, Date.now());
  expect(onA.local).toMatchObject({ deviceName: 'till-1', appMetadata: { version: '3.1' } });
  expect(onA.peers.map((p) => p.peerKey)).toEqual([big.sync.peerKey]);
  // The Big Peer holds both documents, and each register's own, written as Internal transactions.
  expect([...big.sync.presence.values()].map((p) => p.deviceName).sort()).toEqual(['till-1', 'till-2']);
  const internal = a.logs.filter((e) => /^Write txn committed; txn_id = \d+; originator = Internal$/.test(e.message));
  expect(internal.length).toBeGreaterThanOrEqual(1);
});

it('names a direct remote from its handshake, before any presence document', async () => {
  kit = netKit();
  const big = await kit.bigPeer(0, { presence: { deviceName: 'cloud-east' } });
  const a = kit.smallPeer('clerk-a', { bigPeerURL: big.url, presence: { deviceName: '  till-1  ' } });
  await a.sync.startSync();
  await until('a has a session with the Big Peer', () => a.sync.remotePeers.length === 1);
  // What each side's handshake announced, kept with the session (presence documents are not read here).
  expect(a.sync.remotePeers.map((p) => p.deviceName)).toEqual(['cloud-east']);
  await until('the Big Peer has a session with a', () => big.sync.remotePeers.length === 1);
  expect(big.sync.remotePeers.map((p) => p.deviceName)).toEqual(['till-1']);
  // The Mesh names the Big Peer by it, whichever arrives first.
  expect(buildMeshSnapshot(a.sync, Date.now()).peers).toMatchObject([{ peerKey: big.sync.peerKey, deviceName: 'cloud-east' }]);
});
