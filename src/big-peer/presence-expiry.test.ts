/**
 * The Big Peer's presence expiry on a real in-memory store and a manual clock: what it removes,
 * what it keeps, and when it runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LogHub, ManualTimers, MemoryStorage, Store, readAllPresence } from '../peer/host.ts';
import type { LogEntry } from '../shared/log.ts';
import { PRESENCE_EXPIRY_FIRST_RUN_MS, PresenceExpiry } from './presence-expiry.ts';

const DAY_MS = 86_400_000;
const open: Store[] = [];
afterEach(() => open.splice(0).forEach((s) => s.close()));

function setup(expiryDays = 30) {
  const clock = new ManualTimers();
  const hub = new LogHub();
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((entry) => logs.push(entry));
  const store = new Store({ storage: new MemoryStorage(), peerKey: 'big', timers: clock, logger: hub.logger('store') });
  open.push(store);
  const expiry = new PresenceExpiry({ store, timers: clock, logger: hub.logger('presence'), expiryDays });
  /** A peer's presence document, last written `daysAgo` days before now. */
  const seen = (peerKey: string, daysAgo: number) =>
    store.internalWrites.execute('Internal', 'presence', 'INSERT INTO __presence DOCUMENTS (:doc) ON ID CONFLICT DO UPDATE', {
      doc: { _id: peerKey, deviceName: peerKey, appMetadata: {}, role: 'small-peer', links: [], updatedAt: clock.now() - daysAgo * DAY_MS },
    });
  const held = () => [...readAllPresence(store).keys()].sort();
  return { clock, store, expiry, seen, held, logs };
}

describe('PresenceExpiry', () => {
  it('removes the documents of peers silent for longer than the expiry and keeps the others', async () => {
    const { expiry, seen, held, logs } = setup(30);
    await seen('retired-till', 45);
    await seen('on-holiday', 29);
    await seen('live-till', 0);
    expect(await expiry.runNow()).toBe(1);
    expect(held()).toEqual(['live-till', 'on-holiday']);
    expect(logs.filter((l) => l.event === 'presence.expired').map((l) => l.fields)).toEqual([{ removed: 1, older_than_days: 30, txn_id: 4 }]);
  });

  it('keeps every document and logs nothing when none is old enough', async () => {
    const { expiry, seen, held, logs } = setup(30);
    await seen('live-till', 1);
    expect(await expiry.runNow()).toBe(0);
    expect(held()).toEqual(['live-till']);
    expect(logs.some((l) => l.event === 'presence.expired')).toBe(false);
  });

  it('runs a minute after start and then once a day, and not after stop', async () => {
    const { clock, expiry, seen, held } = setup(30);
    await seen('a', 31);
    expiry.start();
    clock.advance(PRESENCE_EXPIRY_FIRST_RUN_MS - 1);
    await Promise.resolve();
    expect(held()).toEqual(['a']);
    clock.advance(1);
    await expect.poll(held).toEqual([]);
    await seen('b', 29);
    // A day later b is 30 days old, not older: kept; the day after, it goes.
    clock.advance(DAY_MS);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(held()).toEqual(['b']);
    clock.advance(DAY_MS);
    await expect.poll(held).toEqual([]);
    await seen('c', 40);
    expiry.stop();
    clock.advance(2 * DAY_MS);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(held()).toEqual(['c']);
  });
});
