/**
 * The WebSocket dialer against an address where nothing listens (127.0.0.1, a port just
 * freed): it logs the failure and retries with capped exponential backoff, on an injected clock.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/log.ts';
import { LogHub } from '../log/log-hub.ts';
import { ManualTimers } from '../time.ts';
import { createMesh, type Mesh } from '../../testing/test-mesh.ts';
import { WebSocketDialer } from './ws-dialer.ts';

let mesh: Mesh | undefined;
afterEach(() => mesh?.dispose());

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it('retries a refused connection with capped exponential backoff, logging StreamFailed and each delay', async () => {
  mesh = createMesh();
  const peer = mesh.peer('small');
  const timers = new ManualTimers();
  const hub = new LogHub({ minimumLogLevel: 'DEBUG' });
  const logs: LogEntry[] = [];
  hub.setCustomLogCallback((e) => logs.push(e));
  const url = `ws://127.0.0.1:${await freePort()}/_sync/ws`;
  const dialer = new WebSocketDialer({
    url,
    replicator: peer.replicator,
    logger: hub.logger('replication'),
    timers,
    minDelayMs: 100,
    maxDelayMs: 1000,
    random: () => 1,
  });
  dialer.start();
  const delays: number[] = [];
  for (let attempt = 0; attempt < 6; attempt++) {
    const before = logs.filter((e) => e.event === 'peer.reconnect-scheduled').length;
    for (let i = 0; i < 500 && logs.filter((e) => e.event === 'peer.reconnect-scheduled').length === before; i++) await new Promise((r) => setTimeout(r, 5));
    const scheduled = logs.filter((e) => e.event === 'peer.reconnect-scheduled').at(-1);
    delays.push(Number(scheduled?.fields.seconds));
    timers.advance(1000);
  }
  dialer.stop();
  expect(delays).toEqual([0.1, 0.2, 0.4, 0.8, 1, 1]);
  expect(logs[0]?.message).toBe(`Discovered; peer = WebSocketClientPeer; connect_address = ${url}`);
  expect(logs.filter((e) => e.event === 'peer.stream-failed').length).toBeGreaterThanOrEqual(6);
  expect(logs.find((e) => e.event === 'peer.stream-failed')?.level).toBe('WARN');
});
