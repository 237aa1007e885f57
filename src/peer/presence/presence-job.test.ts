/**
 * The presence job on a real in-memory store and a real mesh tracker, on a manual clock: what it
 * writes, when, and that it never floods.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EVERYTHING } from '../../shared/permissions.ts';
import { LogHub } from '../log/log-hub.ts';
import { MeshTracker } from '../replication/mesh-tracker.ts';
import type { RemotePeer } from '../replication/handshake.ts';
import { MemoryStorage } from '../storage/memory-storage.ts';
import { Store, type CommittedTransaction } from '../store/store.ts';
import { ManualTimers } from '../time.ts';
import { PresenceJob, type PresenceOptions } from './presence-job.ts';
import { directLinks, readAllPresence } from './presence-source.ts';

const remote = (peerKey: string, role: RemotePeer['role'] = 'small-peer'): RemotePeer => ({
  peerKey,
  role,
  appID: 'app',
  permissions: EVERYTHING,
  userID: undefined,
  expiresAt: undefined,
});
const dialed = (id: string, address: string) => ({ id, type: 'WsClient', dialed: true, remoteAddress: address });

const open: Store[] = [];
afterEach(() => open.splice(0).forEach((s) => s.close()));

function setup(options: PresenceOptions = { deviceName: 'till-3', appMetadata: { version: '1.2.0', site: 42 } }) {
  const clock = new ManualTimers();
  const hub = new LogHub();
  const store = new Store({ storage: new MemoryStorage(), peerKey: 'me', timers: clock, logger: hub.logger('store') });
  open.push(store);
  const tracker = new MeshTracker(clock);
  const commits: CommittedTransaction[] = [];
  store.onCommit((txn) => commits.push(txn));
  const job = new PresenceJob(
    {
      writes: store.internalWrites,
      isClosed: () => store.isClosed,
      timers: clock,
      logger: hub.logger('presence'),
      peerKey: 'me',
      links: () => directLinks(tracker),
      onLinksChange: (listener) => tracker.onChange(listener),
    },
    options,
  );
  /** Lets the pending writes commit (bounded). */
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  return { clock, store, tracker, commits, job, settle };
}

describe('the presence job', () => {
  it('writes its own document at start as an Internal transaction with its name, metadata, role and links', async () => {
    const { store, commits, job, settle, clock } = setup();
    job.start('small-peer');
    await settle();
    expect(commits.map((c) => [c.originator, c.hint, c.collections])).toEqual([['Internal', 'presence', ['__presence']]]);
    expect(readAllPresence(store).get('me')).toEqual({
      peerKey: 'me',
      deviceName: 'till-3',
      appMetadata: { version: '1.2.0', site: '42' },
      role: 'small-peer',
      links: [],
      updatedAt: clock.now(),
    });
  });

  it('writes once after a burst of link changes, and not at all for a change that leaves the links as written', async () => {
    const { store, tracker, commits, job, settle, clock } = setup();
    job.start('small-peer');
    await settle();
    tracker.handshaking(dialed('WsClient#1', 'ws://big/_sync/ws'));
    tracker.sessionStarted(dialed('WsClient#1', 'ws://big/_sync/ws'), remote('big', 'big-peer'), true);
    tracker.handshaking(dialed('WsClient#2', 'ws://b/_sync/ws'));
    tracker.sessionStarted(dialed('WsClient#2', 'ws://b/_sync/ws'), remote('b'), true);
    clock.advance(999);
    await settle();
    expect(commits).toHaveLength(1);
    clock.advance(1);
    await settle();
    expect(commits).toHaveLength(2);
    expect(readAllPresence(store).get('me')?.links).toEqual([
      { peerKey: 'big', role: 'big-peer', transport: 'WebSocket', state: 'elected' },
      { peerKey: 'b', role: 'small-peer', transport: 'WebSocket', state: 'elected' },
    ]);
    // A change of something else (a transport's condition) leaves the links: nothing is written.
    tracker.transportCondition({ transport: 'LAN', condition: 'Ok', reason: 'listening', since: clock.now() });
    clock.advance(5_000);
    await settle();
    expect(commits).toHaveLength(2);
    tracker.closed('WsClient#2', 'ConnectionEnded');
    clock.advance(1_000);
    await settle();
    expect(commits).toHaveLength(3);
    expect(
      readAllPresence(store)
        .get('me')
        ?.links.map((l) => l.peerKey),
    ).toEqual(['big']);
  });

  it('rewrites its document on each heartbeat so that others see when it was last heard of, and stops when stopped', async () => {
    const { store, commits, job, settle, clock } = setup({ deviceName: 'x', heartbeatMs: 60_000 });
    job.start('small-peer');
    await settle();
    for (let i = 0; i < 3; i++) {
      clock.advance(60_000);
      await settle();
    }
    expect(commits).toHaveLength(4);
    expect(readAllPresence(store).get('me')?.updatedAt).toBe(clock.now());
    job.stop();
    clock.advance(600_000);
    await settle();
    expect(commits).toHaveLength(4);
    expect(clock.pending).toBe(0);
  });

  it('refuses a heartbeat under a second', () => {
    expect(() => setup({ heartbeatMs: 10 })).toThrow(expect.objectContaining({ code: 'presence/invalid' }));
  });
});
