/**
 * A LAN peer that vanished without a goodbye (SIGKILL: its dials fail at once) is said
 * unreachable, since when and after how many attempts, once `LAN_UNREACHABLE_AFTER` dials in a
 * row failed; a session clears it. Built from a real mesh tracker on a manual clock.
 */
import { describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../../shared/permissions.ts';
import { LAN_UNREACHABLE_AFTER } from '../../../shared/inspector/mesh.ts';
import { MeshTracker } from '../../replication/mesh-tracker.ts';
import { ManualTimers } from '../../time.ts';
import { buildMeshSnapshot } from './mesh-model.ts';

const URL_ = 'ws://192.168.1.20:41000/_sync/ws';

function lan() {
  const clock = new ManualTimers();
  const tracker = new MeshTracker(clock);
  tracker.lanSeen({ name: 'syncmesh-b', peerKey: 'b', appID: 'app', protocolVersion: 2, url: URL_, compatible: true, reason: undefined });
  let n = 0;
  const attempt = (outcome: 'fail' | 'session'): void => {
    const c = { id: `WsClient#${++n}`, type: 'WsClient', dialed: true, remoteAddress: URL_, transport: 'LAN' as const };
    tracker.dialing(c, false);
    clock.advance(10);
    if (outcome === 'session') {
      tracker.sessionStarted(c, { peerKey: 'b', role: 'small-peer', appID: 'app', permissions: EVERYTHING, userID: 'u', expiresAt: undefined }, true);
      return;
    }
    tracker.closed(c.id, 'ConnectionEnded (connect ECONNREFUSED 192.168.1.20:41000)');
    tracker.retryScheduled(URL_, 1_000);
    clock.advance(1_000);
  };
  const snapshot = () =>
    buildMeshSnapshot(
      {
        peerKey: 'me',
        appID: 'app',
        connections: tracker.connections(),
        remotePeers: tracker.peers(),
        lanPeers: tracker.lanPeers(),
        transportConditions: tracker.transportConditions(),
      },
      clock.now(),
    );
  return { clock, tracker, attempt, snapshot };
}

describe('a LAN peer whose dials keep failing', () => {
  it('is unreachable since its first failed dial once enough failed in a row, and counts its attempts', () => {
    const { attempt, snapshot, tracker } = lan();
    attempt('session');
    expect(snapshot().lanPeers[0]?.unreachable).toBeUndefined();
    // SIGKILL: the session's connection ends (no failure: it had a session), then every redial is refused.
    tracker.closed(snapshot().connections[0]!.id, 'ConnectionEnded (1006)');
    tracker.retryScheduled(URL_, 1_000);
    expect(snapshot().connections[0]?.failedAttempts).toBeUndefined();
    for (let i = 1; i < LAN_UNREACHABLE_AFTER; i++) attempt('fail');
    expect(snapshot().lanPeers[0]?.unreachable).toBeUndefined();
    const firstFailureEnded = snapshot().connections[0]!.failingSince;
    attempt('fail');
    expect(snapshot().lanPeers[0]?.unreachable).toEqual({ since: firstFailureEnded, attempts: LAN_UNREACHABLE_AFTER });
    attempt('fail');
    expect(snapshot().lanPeers[0]?.unreachable?.attempts).toBe(LAN_UNREACHABLE_AFTER + 1);
    expect(snapshot().connections[0]).toMatchObject({ failedAttempts: LAN_UNREACHABLE_AFTER + 1, failingSince: firstFailureEnded });
  });

  it('is reachable again once a dial reaches a session', () => {
    const { attempt, snapshot } = lan();
    for (let i = 0; i < LAN_UNREACHABLE_AFTER + 2; i++) attempt('fail');
    expect(snapshot().lanPeers[0]?.unreachable).toBeDefined();
    attempt('session');
    expect(snapshot().lanPeers[0]?.unreachable).toBeUndefined();
    expect(snapshot().connections[0]).toMatchObject({ state: 'elected', failedAttempts: undefined, failingSince: undefined });
  });
});
