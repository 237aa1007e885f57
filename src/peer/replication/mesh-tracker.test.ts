/**
 * The mesh tracker on its own, on a manual clock: the states a dialed address and an accepted
 * connection go through, as the dialer and the replicator report them.
 */
import { describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../shared/permissions.ts';
import { ManualTimers } from '../time.ts';
import type { RemotePeer } from './handshake.ts';
import { CLOSED_ACCEPTED_KEPT, MeshTracker } from './mesh-tracker.ts';

const URL_ = 'ws://127.0.0.1:1/_sync/ws';
const remote = (peerKey: string, role: RemotePeer['role'] = 'small-peer'): RemotePeer => ({
  peerKey,
  role,
  appID: 'app',
  permissions: EVERYTHING,
  userID: undefined,
  expiresAt: undefined,
});
const dialed = (id: string) => ({ id, type: 'WsClient', dialed: true, remoteAddress: URL_ });
const accepted = (id: string) => ({ id, type: 'WsServer', dialed: false, remoteAddress: '127.0.0.1:5000' });

describe('the mesh tracker', () => {
  it('follows a dialed address through waiting, connecting, elected, closed with a retry, and stopped', () => {
    const clock = new ManualTimers();
    const tracker = new MeshTracker(clock);
    let changes = 0;
    tracker.onChange(() => changes++);
    tracker.dialWaiting(URL_, 'WsClient', true);
    expect(tracker.connections()).toEqual([
      {
        id: `WsClient ${URL_}`,
        type: 'WsClient',
        direction: 'dialed',
        address: URL_,
        state: 'connecting',
        since: clock.now(),
        remotePeerKey: undefined,
        reason: 'waiting for a certificate to dial',
        retryAt: undefined,
        bigPeer: true,
        transport: 'WebSocket',
      },
    ]);
    tracker.dialing(dialed('WsClient#7'), true);
    tracker.handshaking(dialed('WsClient#7'));
    expect(tracker.connections()[0]).toMatchObject({ id: 'WsClient#7', state: 'connecting', reason: undefined });
    clock.advance(5);
    tracker.sessionStarted(dialed('WsClient#7'), remote('big', 'big-peer'), true);
    expect(tracker.connections()[0]).toMatchObject({ state: 'elected', remotePeerKey: 'big', since: clock.now() });
    expect(tracker.peers()).toEqual([
      { peerKey: 'big', role: 'big-peer', appID: 'app', lastSessionAt: clock.now(), userID: undefined, certificateExpiresAt: undefined },
    ]);
    tracker.closed('WsClient#7', 'session ended (1006)');
    tracker.closed('WsClient#7', 'ConnectionEnded (1006)');
    tracker.retryScheduled(URL_, 500);
    expect(tracker.connections()[0]).toMatchObject({ state: 'closed', reason: 'session ended (1006)', retryAt: clock.now() + 500 });
    tracker.dialing(dialed('WsClient#8'), true);
    expect(tracker.connections()).toHaveLength(1);
    expect(tracker.connections()[0]).toMatchObject({ id: 'WsClient#8', state: 'connecting', retryAt: undefined, reason: undefined });
    tracker.dialStopped(URL_);
    expect(tracker.connections()[0]).toMatchObject({ state: 'closed', reason: 'sync stopped', retryAt: undefined });
    expect(changes).toBe(7);
  });

  it('ignores the late close of an earlier attempt once the address is dialed again', () => {
    const tracker = new MeshTracker(new ManualTimers());
    tracker.dialing(dialed('WsClient#1'), false);
    tracker.dialing(dialed('WsClient#2'), false);
    tracker.closed('WsClient#1', 'late');
    expect(tracker.connections()[0]).toMatchObject({ id: 'WsClient#2', state: 'connecting' });
  });

  it('lists accepted connections after dialed ones, marks one that lost the election standby, and closes all when sync stops', () => {
    const tracker = new MeshTracker(new ManualTimers());
    tracker.handshaking(accepted('WsServer#1'));
    tracker.handshaking(accepted('WsServer#2'));
    tracker.dialing(dialed('WsClient#3'), false);
    tracker.sessionStarted(accepted('WsServer#1'), remote('a'), true);
    tracker.sessionStarted(accepted('WsServer#2'), remote('a'), false);
    expect(tracker.connections().map((c) => [c.id, c.state])).toEqual([
      ['WsClient#3', 'connecting'],
      ['WsServer#1', 'elected'],
      ['WsServer#2', 'standby'],
    ]);
    expect(tracker.peers().map((p) => p.peerKey)).toEqual(['a']);
    tracker.stopped();
    expect(tracker.connections().map((c) => [c.state, c.reason])).toEqual([
      ['closed', 'sync stopped'],
      ['closed', 'sync stopped'],
      ['closed', 'sync stopped'],
    ]);
  });

  it(`keeps only the ${CLOSED_ACCEPTED_KEPT} most recent closed accepted connections, never an open one`, () => {
    const tracker = new MeshTracker(new ManualTimers());
    tracker.handshaking(accepted('WsServer#open'));
    for (let i = 0; i < CLOSED_ACCEPTED_KEPT + 20; i++) {
      tracker.handshaking(accepted(`WsServer#${i}`));
      tracker.closed(`WsServer#${i}`, 'gone');
    }
    const list = tracker.connections();
    expect(list).toHaveLength(CLOSED_ACCEPTED_KEPT + 1);
    expect(list[0]?.id).toBe('WsServer#open');
    expect(list[1]?.id).toBe('WsServer#20');
  });

  it('keeps telling the other listeners when one throws, and stops telling one that unsubscribed', () => {
    const tracker = new MeshTracker(new ManualTimers());
    const seen: string[] = [];
    tracker.onChange(() => {
      throw new Error('bad listener');
    });
    const off = tracker.onChange(() => seen.push('change'));
    tracker.onRemoteSubscriptionsChange(() => {
      throw new Error('bad listener');
    });
    tracker.onRemoteSubscriptionsChange((key) => seen.push(`subs ${key}`));
    tracker.handshaking(accepted('WsServer#1'));
    tracker.remoteSubscriptionsChanged('a');
    off();
    tracker.closed('WsServer#1', 'x');
    expect(seen).toEqual(['change', 'subs a']);
  });
});
