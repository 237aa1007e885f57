/**
 * A dialer told its peer left (LAN) before it could dial: it does not dial until told otherwise,
 * whatever starts it later (a login that came after the peer's goodbye).
 */
import { describe, expect, it } from 'vitest';
import { LogHub } from '../log/log-hub.ts';
import { ManualTimers } from '../time.ts';
import { MeshTracker } from './mesh-tracker.ts';
import type { Replicator } from './replicator.ts';
import { WebSocketDialer } from './ws-dialer.ts';

describe('a LAN dialer whose peer left before it started', () => {
  it('does not dial when started, and dials once the peer is seen again', async () => {
    const clock = new ManualTimers();
    const tracker = new MeshTracker(clock);
    const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
    const events: string[] = [];
    hub.setCustomLogCallback((e) => events.push(e.event));
    const url = 'ws://127.0.0.1:9/_sync/ws'; // Nothing listens on the discard port.
    const replicator = { hasSession: () => false, onSessionEnd: () => () => {} } as unknown as Replicator;
    const dialer = new WebSocketDialer({ url, replicator, logger: hub.logger('replication'), timers: clock, tracker, transport: 'LAN', remotePeerKey: 'k' });
    dialer.setRedial(false);
    dialer.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events.filter((e) => e === 'peer.stream-failed')).toEqual([]);
    expect(tracker.connections()[0]).toMatchObject({ state: 'closed', reason: 'the peer left the LAN' });
    dialer.setRedial(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events).toContain('peer.stream-failed');
    dialer.stop();
  });
});
