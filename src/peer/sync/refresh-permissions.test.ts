/**
 * `sync.refreshPermissions()` (spec 4.6): on Android it asks for the Bluetooth permission. The
 * transports of a desktop (the WebSocket to the Big Peer and to peers, LAN) need no platform
 * permission, so here it asks for none, resolves, and says so once at INFO.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/log.ts';
import { SyncError } from '../errors.ts';
import { LogHub } from '../log/log-hub.ts';
import { Sync, type SyncOptions } from './sync.ts';
import { TransportConfig } from '../replication/transport-config.ts';

describe('sync.refreshPermissions()', () => {
  const opened: Sync[] = [];
  afterEach(() => {
    for (const sync of opened.splice(0)) sync.close();
  });

  const open = (options: Partial<SyncOptions> = {}): { sync: Sync; logs: LogEntry[] } => {
    const hub = new LogHub({ minimumLogLevel: 'INFO' });
    const logs: LogEntry[] = [];
    hub.setCustomLogCallback((e) => logs.push(e));
    const sync = new Sync({ inMemory: true, logHub: hub, ...options });
    opened.push(sync);
    return { sync, logs };
  };

  it('resolves and logs at INFO that the transports of this platform need no platform permission', async () => {
    const { sync, logs } = open();
    await expect(sync.refreshPermissions()).resolves.toBeUndefined();
    const entries = logs.filter((e) => e.event === 'sync.permissions-refreshed');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ level: 'INFO', component: 'sync', fields: { platform: process.platform, requested: [] } });
    expect(entries[0]?.message).toBe(
      `refreshPermissions: no platform permission to request on ${process.platform}: the transports of this platform (WebSocket, LAN) need none; ` +
        'the Bluetooth permission it requests on Android has no counterpart here, where Bluetooth LE is not available',
    );
  });

  it('asks for nothing on every call, also with every peer-to-peer transport configured', async () => {
    const { sync, logs } = open({ sync: new TransportConfig().enableAllPeerToPeer() });
    await sync.refreshPermissions();
    await sync.refreshPermissions();
    const entries = logs.filter((e) => e.event === 'sync.permissions-refreshed');
    expect(entries.map((e) => e.fields.requested)).toEqual([[], []]);
  });

  it('rejects with sync/closed once the Sync is closed', async () => {
    const { sync } = open();
    sync.close();
    await expect(sync.refreshPermissions()).rejects.toSatisfy((e) => e instanceof SyncError && e.code === 'sync/closed');
  });
});
