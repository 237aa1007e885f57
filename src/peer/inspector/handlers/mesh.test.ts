/**
 * `mesh:get` and the coalescing of `mesh:changed` on a manual clock: a peer dialing an address
 * on 127.0.0.1 where nothing listens changes state several times at once; the inspector pushes
 * one event per EVENT_COALESCE_MS, with the state then.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { onlinePlayground } from '../../auth/identity.ts';
import { FixtureLogin } from '../../auth/test-fixtures/login-server.ts';
import { ManualTimers } from '../../time.ts';
import { EVENT_COALESCE_MS } from '../inspector.ts';
import { until } from '../net-kit.ts';
import { inspectorKit, type InspectorKit } from '../test-kit.ts';

let kit: InspectorKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it('answers this peer alone before sync starts, and refuses input', async () => {
  kit = inspectorKit();
  expect(await kit.call('mesh:get')).toEqual({ local: { peerKey: kit.sync.peerKey, role: 'local', appId: undefined }, peers: [], connections: [], now: kit.clock.now() });
  expect(await kit.fail('mesh:get', { peer: 'x' })).toMatchObject({ code: 'inspector/bad-request', message: expect.stringMatching(/^peer:/) });
});

it('pushes one mesh:changed per window for a burst of changes, with a retry counted from the peer’s clock', async () => {
  const clock = new ManualTimers(Date.now());
  const fixture = new FixtureLogin({ appID: 'app-1', playgroundToken: 'tok', now: () => clock.now() });
  const url = `ws://127.0.0.1:${await closedPort()}/_sync/ws`;
  kit = inspectorKit({
    clock,
    sync: {
      identity: onlinePlayground({ appID: 'app-1', token: 'tok', bigPeerURL: 'http://127.0.0.1:9' }),
      fetch: fixture.fetch,
      sync: { bigPeer: false, connect: [url], reconnect: { minDelayMs: 4_000, maxDelayMs: 4_000 } },
    },
  });
  let changes = 0;
  kit.sync.onConnectionsChange(() => changes++);
  await kit.call('sync:start');
  await until('the refused dial is scheduled again', () => kit?.sync.connections[0]?.retryAt !== undefined);
  expect(changes).toBeGreaterThanOrEqual(3); // waiting, dialing, closed, retry scheduled
  expect(kit.eventsOf('mesh:changed')).toEqual([]);
  clock.advance(EVENT_COALESCE_MS);
  const events = kit.eventsOf('mesh:changed');
  expect(events).toHaveLength(1);
  expect(events[0]?.connections).toEqual([
    expect.objectContaining({ id: expect.stringMatching(/^WsClient#\d+$/), direction: 'dialed', address: url, state: 'closed', reason: expect.stringMatching(/StreamFailed|ConnectionEnded/) }),
  ]);
  const retryIn = events[0]?.connections[0]?.retryInMs ?? 0;
  expect(retryIn).toBeGreaterThan(1_000);
  expect(retryIn).toBeLessThanOrEqual(4_000 - EVENT_COALESCE_MS);
  clock.advance(10 * EVENT_COALESCE_MS);
  expect(kit.eventsOf('mesh:changed')).toHaveLength(1);
  await kit.call('sync:stop');
  clock.advance(EVENT_COALESCE_MS);
  expect(kit.eventsOf('mesh:changed').at(-1)?.connections[0]).toMatchObject({ state: 'closed', reason: 'sync stopped', retryInMs: undefined });
});
